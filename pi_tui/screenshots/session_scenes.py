"""Scenes with several sessions open (tabs), for the snapshot test and ``screenshots/``.

Run ``python -m pi_tui.screenshots.session_scenes [--out screenshots] [names...]``. The first
session has a finished conversation and is shown; the second was opened with ``/open``, is
still streaming an answer in the background and keeps a draft in its editor.
"""

from __future__ import annotations

import os
from typing import Any

from .scenes import SCENE_PROVIDERS, Scene, _conversation, _send, _until, _usage, make_app, render_scenes


async def two_sessions(pilot: Any) -> None:
    from pi_runtime.frontend import ScriptedResponse, ScriptedText

    app = pilot.app
    await _conversation(pilot)
    await _send(pilot, "/open")
    await _until(pilot, lambda: len(app.workspace.sessions) == 2 and app.workspace.active.number == 2)
    SCENE_PROVIDERS[app].push(ScriptedResponse([ScriptedText("Looking at the tests first: ")], hang=True,
                                               usage=_usage()))
    await _send(pilot, "Write tests for src/steps.py")
    await _until(pilot, lambda: "tests first" in "".join(getattr(w, "text", "") for w in app.transcript.children))
    app.editor.insert("then check the coverage")
    await pilot.press("alt+pageup")  # back to the first; the second works on in its tab
    await _until(pilot, lambda: app.workspace.active.number == 1)


SCENES = [
    Scene("two_sessions", (120, 40), two_sessions),
    Scene("two_sessions_narrow", (80, 24), two_sessions),
]


async def capture(scene: Scene) -> str:
    """Run ``scene`` headless and return its SVG (every session's run stopped afterwards)."""
    app, _ = make_app(scene)
    async with app.run_test(size=scene.size) as pilot:
        await pilot.pause()
        await scene.prepare(pilot)
        svg = app.export_screenshot(title=f"pi — {scene.name}")
        for entry in app.workspace.sessions:
            await entry.session.abort()
    return svg


def main(argv: list[str] | None = None) -> int:
    render_scenes(argv, SCENES, capture, __doc__)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    raise SystemExit(main())
