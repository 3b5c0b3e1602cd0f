"""SVG snapshots of the command screens in ``pi_tui.screenshots.command_scenes`` (same scenes as screenshots/).

Update after an intended visual change with
``pytest tests/tui/test_commands_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from pi_tui.screenshots.command_scenes import SCENES, make_app

SNAPSHOT_SCENES = [s for s in SCENES if s.name in (
    "cmd_model_picker", "cmd_settings", "cmd_hotkeys", "cmd_compaction", "cmd_fork_picker", "cmd_login",
    "cmd_virtual_model")]


@pytest.mark.parametrize("scene", SNAPSHOT_SCENES, ids=[s.name for s in SNAPSHOT_SCENES])
def test_command_scene(scene, snap_compare, agent_dir):
    app, _ = make_app(scene, agent_dir=str(agent_dir))

    async def run_before(pilot):
        await pilot.pause()
        await scene.prepare(pilot)

    assert snap_compare(app, terminal_size=scene.size, run_before=run_before)
