"""SVG snapshots of two open sessions (``pi_tui.screenshots.session_scenes``, same scenes as screenshots/).

Update after an intended visual change with
``pytest tests/tui/test_session_tabs_snapshot.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from pi_tui.screenshots.session_scenes import SCENES, make_app


@pytest.mark.parametrize("scene", SCENES, ids=[s.name for s in SCENES])
def test_session_scene(scene, snap_compare, agent_dir):
    app, _ = make_app(scene, agent_dir=str(agent_dir))

    async def run_before(pilot):
        await pilot.pause()
        await scene.prepare(pilot)

    assert snap_compare(app, terminal_size=scene.size, run_before=run_before)
