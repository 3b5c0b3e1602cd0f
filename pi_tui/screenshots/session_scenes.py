"""Scenes with several sessions open (tabs), for the snapshot test and ``screenshots/``.

Run ``python -m pi_tui.screenshots.session_scenes [--out screenshots] [names...]``. The first
session has a finished conversation and is shown; the second was opened with ``/open``, is
still streaming an answer in the background and keeps a draft in its editor. In
``two_sessions_extensions`` an extension (in the agent dir, so each tab loads it) set a status
and a widget in each tab, different ones: the second tab's are on screen, the first's kept.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from . import scenes
from .scenes import SCENE_PROVIDERS, Scene, _conversation, _send, _until, _usage, render_scenes

EXTENSION = """
def extension(pi):
    async def env(args, ctx):
        colour = "success" if args == "staging" else "warning"
        ctx.ui.set_status("env", ctx.ui.theme.fg("accent", f"env: {args}"))
        ctx.ui.set_widget("target", [ctx.ui.theme.fg(colour, f"deploys go to {args}")])
    pi.register_command("env", env, description="Where this session deploys")
"""


def make_app(scene: Scene, agent_dir: str | None = None) -> tuple[Any, Any]:
    """``scenes.make_app``, with the extension in the agent dir for the scenes that show one."""
    agent_dir = agent_dir or tempfile.mkdtemp(prefix="pi-screens-agent-")
    if scene.name.endswith("_extensions"):
        folder = Path(agent_dir) / "extensions"
        folder.mkdir(exist_ok=True)
        (folder / "deploy_env.py").write_text(EXTENSION, encoding="utf-8")
    return scenes.make_app(scene, agent_dir)


async def _command(pilot: Any, text: str) -> None:
    pilot.app.editor.set_text(text)
    await pilot.pause()
    pilot.app.menu.hide()  # the slash menu would take the Enter
    await pilot.press("enter")


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


async def two_sessions_extensions(pilot: Any) -> None:
    app = pilot.app
    await _until(pilot, lambda: app.extension_ui is not None)
    await _command(pilot, "/env staging")
    await _until(pilot, lambda: "env" in app.extension_ui.statuses)
    await _send(pilot, "/open")
    await _until(pilot, lambda: len(app.workspace.sessions) == 2 and app.workspace.active.number == 2
                 and app.extension_ui is not None and app.extension_ui is app.workspace.active.extension_ui)
    await _conversation(pilot)
    await _command(pilot, "/env production")  # the second tab's own: the first's "staging" is kept aside
    await _until(pilot, lambda: "env" in app.extension_ui.statuses)


SCENES = [
    Scene("two_sessions", (120, 40), two_sessions),
    Scene("two_sessions_narrow", (80, 24), two_sessions),
    Scene("two_sessions_extensions", (100, 30), two_sessions_extensions),
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
