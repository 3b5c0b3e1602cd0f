"""Scenes of the app for snapshot tests and ``screenshots/`` (one definition for both).

Run ``python -m pi_tui.screenshots [--out screenshots]`` to write every scene as SVG and,
when ``rsvg-convert`` is installed, PNG. Scenes use the scripted provider with fixed usage,
a fixed project folder and the app's static mode, so the pictures are deterministic.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import tempfile
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT = Path(tempfile.gettempdir()) / "pi-screens" / "project"
SOURCE = "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(1, 12))
ANSWER = """I read `src/steps.py`. Each `step_N` adds **N** to its input, so the pipeline is linear:

1. `step_1` through `step_11` are pure functions.
2. Nothing reads global state.

```python
def run(x):
    for step in STEPS:
        x = step(x)
    return x
```

> Tip: a single `sum(range(12))` gives the same result.
"""
MARKDOWN_ANSWER = """## Plan

The pipeline is linear, so the change is small:

1. Read `src/steps.py`
2. Replace the additions with a lookup table
3. Run the tests

### The new table

```python
STEPS = {i: (lambda x, i=i: x + i) for i in range(1, 12)}
```

---

- keeps every `step_N` name
- no global state

> The old functions stay until the callers move.

| step | before | after |
|------|--------|-------|
| 3    | x + 3  | x * 3 |
"""


@dataclass
class Scene:
    name: str
    """File name (without extension) and test id."""
    size: tuple[int, int]
    """Terminal columns and rows."""
    prepare: Callable[[Any], Awaitable[None]]
    """Drives the app (a Pilot) into the state to capture."""
    theme: str = "dark"


def _project() -> Path:
    PROJECT.mkdir(parents=True, exist_ok=True)
    src = PROJECT / "src"
    src.mkdir(exist_ok=True)
    (src / "steps.py").write_text(SOURCE, encoding="utf-8")
    for name in ("stages.py", "streams.py"):  # neighbours for Tab completion
        (src / name).write_text("", encoding="utf-8")
    return PROJECT


SCENE_PROVIDERS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
"""The scripted provider behind each scene's app (the scene pushes its replies)."""


def pin_own_docs(session: Any) -> None:
    """Name pi's docs at an installed copy's fixed paths in the system prompt: the context figure
    the footer estimates from it then does not depend on where the checkout is."""
    resources = session.resources.resources
    if resources.own_docs is not None:
        resources.own_docs = type(resources.own_docs).installed_under("/usr")


def make_app(scene: Scene, agent_dir: str | None = None, *, extensions: list[str] | None = None) -> tuple[Any, Any]:
    """A fresh session + app for ``scene`` (returns (app, provider)); ``extensions``: ``-e`` paths."""
    from pi_runtime.frontend import ScriptedProvider, SessionManager, SettingsManager, create_agent_session

    from ..launch import create_app

    agent_dir = agent_dir or tempfile.mkdtemp(prefix="pi-screens-agent-")
    provider = ScriptedProvider(f"screens-{scene.name}")
    session = create_agent_session(
        cwd=str(_project()), agent_dir=agent_dir, model=provider.model("claude-sonnet-4-5", name="Claude Sonnet 4.5"),
        session_manager=SessionManager.in_memory(),
        # The scene's theme is the session's setting, as a user's would be (applied when it is attached).
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}, "theme": scene.theme}),
        extensions=extensions or (),
    )
    pin_own_docs(session)
    app = create_app(session, static=True, agent_dir=agent_dir)
    SCENE_PROVIDERS[app] = provider
    return app, provider


def _usage() -> Any:
    from pi_runtime.frontend import Usage

    return Usage(input=12_480, output=812, cache_read=9_600, cache_write=1_200)


async def _send(pilot: Any, text: str) -> None:
    pilot.app.editor.insert(text)
    await pilot.press("enter")


async def _until(pilot: Any, check: Callable[[], bool], timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if check():
            break
        await pilot.pause(0.02)
    await pilot.pause(0.15)


async def _conversation(pilot: Any) -> None:
    from pi_runtime.frontend import (
        ScriptedResponse,
        ScriptedText,
        ScriptedThinking,
        ScriptedToolCall,
    )

    provider = SCENE_PROVIDERS[pilot.app]
    provider.push(
        ScriptedResponse([ScriptedThinking("The user wants a summary. Read the file first."),
                          ScriptedToolCall("read", {"path": "src/steps.py", "offset": 1, "limit": 12}, id="c1")],
                         usage=_usage()),
        ScriptedResponse([ScriptedText(ANSWER)], usage=_usage()),
    )
    await _send(pilot, "What does src/steps.py do?")
    await pilot.app.session.wait_for_idle()
    await pilot.pause(0.2)


async def idle(pilot: Any) -> None:
    await _conversation(pilot)


async def streaming(pilot: Any) -> None:
    from pi_runtime.frontend import ScriptedResponse, ScriptedText

    SCENE_PROVIDERS[pilot.app].push(ScriptedResponse([ScriptedText(ANSWER[:260])], hang=True, usage=_usage()))
    await _send(pilot, "Explain the pipeline")
    await _until(pilot, lambda: "pure functions" in "".join(
        getattr(w, "text", "") for w in pilot.app.transcript.children))
    await pilot.pause(0.2)


async def tool_running(pilot: Any) -> None:
    from pi_runtime.frontend import scripted_tool_call

    SCENE_PROVIDERS[pilot.app].push(scripted_tool_call(
        "bash", {"command": "printf 'collecting 42 items\\nrunning tests...\\n'; sleep 3"}, id="run1", usage=_usage()))
    await _send(pilot, "Run the tests")
    await _until(pilot, lambda: "running tests" in getattr(pilot.app.transcript.query("#tool-run1").first(), "output", ""))


async def tool_error(pilot: Any) -> None:
    from pi_runtime.frontend import scripted_text, scripted_tool_call

    SCENE_PROVIDERS[pilot.app].push(
        scripted_tool_call("read", {"path": "src/missing.py"}, id="e1", usage=_usage()),
        scripted_text("The file `src/missing.py` does not exist. Did you mean `src/steps.py`?", usage=_usage()),
    )
    await _send(pilot, "Open src/missing.py")
    await pilot.app.session.wait_for_idle()
    await pilot.pause(0.2)


async def diff(pilot: Any) -> None:
    from pi_runtime.frontend import scripted_text, scripted_tool_call

    edits = [{"oldText": "    return x + 3\n", "newText": "    # three is special\n    return x * 3\n"},
             {"oldText": "    return x + 4\n", "newText": "    return x * 4\n"}]
    SCENE_PROVIDERS[pilot.app].push(
        scripted_tool_call("edit", {"path": "src/steps.py", "edits": edits}, id="d1", usage=_usage()),
        scripted_text("Steps 3 and 4 now multiply.", usage=_usage()),
    )
    await _send(pilot, "Make steps 3 and 4 multiply")
    await pilot.app.session.wait_for_idle()
    await pilot.pause(0.2)


async def queue(pilot: Any) -> None:
    from pi_runtime.frontend import ScriptedResponse, ScriptedText

    SCENE_PROVIDERS[pilot.app].push(ScriptedResponse([ScriptedText("Working through the steps one by one.")],
                                                   hang=True, usage=_usage()))
    await _send(pilot, "Refactor the steps")
    await _until(pilot, lambda: pilot.app.session.is_streaming)
    await _send(pilot, "Keep the public names unchanged")
    pilot.app.editor.insert("Then add tests for step_3")
    await pilot.press("alt+enter")
    await _until(pilot, lambda: pilot.app.queue_view.display)


async def queue_edit(pilot: Any) -> None:
    """The queue pane with the second queued message being edited in place."""
    await queue(pilot)
    pilot.app.editor.insert("Also update the README")
    await pilot.press("alt+enter")
    await _until(pilot, lambda: len(pilot.app.queue_view.items) == 3)
    await pilot.press("alt+q", "down", "e", *" (step_3 first)")
    await pilot.pause(0.1)


async def completion(pilot: Any) -> None:
    await pilot.press("/")
    await pilot.pause(0.2)


async def path_completion(pilot: Any) -> None:
    pilot.app.editor.insert("look at src/st")
    await pilot.press("tab")
    await _until(pilot, lambda: pilot.app.menu.is_open)
    await pilot.pause(0.1)


async def markdown(pilot: Any) -> None:
    """A long answer as Pi lays it out: fences with their language, numbered lists, a rule."""
    from pi_runtime.frontend import scripted_text

    SCENE_PROVIDERS[pilot.app].push(scripted_text(MARKDOWN_ANSWER, usage=_usage()))
    await _send(pilot, "How would you simplify the steps?")
    await pilot.app.session.wait_for_idle()
    await pilot.pause(0.2)


async def narrow(pilot: Any) -> None:
    await _conversation(pilot)


async def tree_pane(pilot: Any) -> None:
    from .pane_scene import tree_pane as prepare

    await prepare(pilot, SCENE_PROVIDERS[pilot.app])


SCENES = [
    Scene("idle", (120, 40), idle),
    Scene("streaming", (120, 40), streaming),
    Scene("tool_running", (120, 40), tool_running),
    Scene("tool_error", (120, 40), tool_error),
    Scene("diff", (120, 40), diff),
    Scene("markdown", (120, 40), markdown),
    Scene("queue", (120, 40), queue),
    Scene("queue_edit", (120, 40), queue_edit),
    Scene("completion", (120, 40), completion),
    Scene("path_completion", (120, 40), path_completion),
    Scene("narrow", (80, 24), narrow),
    Scene("light", (120, 40), idle, theme="light"),
    Scene("tree_pane", (120, 32), tree_pane),
]


async def capture(scene: Scene) -> str:
    """Run ``scene`` headless and return its SVG."""
    app, _ = make_app(scene)
    async with app.run_test(size=scene.size) as pilot:
        await pilot.pause()
        await scene.prepare(pilot)
        svg = app.export_screenshot(title=f"pi — {scene.name}")
        if app.session.is_streaming:
            await app.session.abort()
    return svg


def save(out: Path, name: str, svg: str, width_cells: int) -> str:
    """Write ``name``.svg (and .png when rsvg-convert is installed); returns a report line."""
    # rsvg collapses leading spaces inside <text> unless told to keep them.
    svg = svg.replace("<svg ", '<svg xml:space="preserve" ', 1)
    (out / f"{name}.svg").write_text(svg, encoding="utf-8")
    rsvg = shutil.which("rsvg-convert")
    if rsvg:
        subprocess.run([rsvg, "-w", str(width_cells * 10), "-o", str(out / f"{name}.png"),
                        str(out / f"{name}.svg")], check=True)
    return f"{name}: {out / name}.svg" + (" + .png" if rsvg else "")


def render_scenes(argv: list[str] | None, scenes: list[Scene], capture_scene: Callable[[Scene], Any],
                  description: str | None) -> tuple[Path, list[str]]:
    """The command line shared by the screenshot modules: ``--out`` and optional scene names.

    Renders the chosen ``scenes`` (all when none are named) with ``capture_scene`` and saves
    each; returns the output folder and the names asked for.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", default="screenshots", help="output folder")
    parser.add_argument("names", nargs="*", help="only these scenes of this module")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for scene in scenes:
        if not args.names or scene.name in args.names:
            print(save(out, scene.name, asyncio.run(capture_scene(scene)), scene.size[0]))
    return out, args.names


def main(argv: list[str] | None = None) -> int:
    """Regenerate every screenshot: these app scenes, the command screens, ``pi config``, ``/llama`` and
    /tree, /resume."""
    out, names = render_scenes(argv, SCENES, capture, __doc__)
    if not names:
        from . import command_scenes, config_scene, llama_scene, nav_scenes, session_scenes

        command_scenes.main(["--out", str(out)])
        config_scene.main(["--out", str(out)])
        llama_scene.main(["--out", str(out)])
        nav_scenes.main(["--out", str(out)])
        session_scenes.main(["--out", str(out)])
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    raise SystemExit(main())
