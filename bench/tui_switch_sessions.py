"""Benchmark: switching between two open sessions while one of them streams (issue 24: < 100 ms).

Session A streams a long markdown answer from a real HTTP server on 127.0.0.1 (``LoopbackServer``
in a child process, as ``tui_stream.py``: ~2,000 chunks/s by default). Session B was opened
beside it (``Workspace.open``, what ``/open`` does once the kernel built the session) and holds
a finished conversation of ``--turns`` prompts and answers. While A streams, the bench presses
``app.session.next``/``previous`` (a key event posted as the terminal driver does) and measures
from the key to the first screen update that carries the other session's text (every update is
serialised to terminal bytes, as the real driver does, and searched for the marker):

- to B (idle, shown from its mounted-but-hidden transcript): its last answer's marker word;
- to A (streaming): a word of A's streamed answer.

With ``--extensions`` both sessions load an extension that gives each its own statuses, widget
lines above and below the editor, a widget of its own and, in B, an editor of its own: a switch
then also puts one session's extension UI away and brings the other's back.

Run: ``.venv/bin/python bench/tui_switch_sessions.py [--switches 20] [--turns 100] [--extensions]``.
Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from textual import events
from tui_stream import RemoteServer, bench_model, long_answer, make_session, sse_reply

B_MARKER = "bravomarkerword"
A_MARKER = "Section"


EXTENSION = """
from textual.widgets import Static
from pi_tui.extension_ui.custom_editor import CustomEditor

def extension(pi):
    async def look(tag, ctx):
        for key in ("git", "ci", "env"):
            ctx.ui.set_status(key, f"{key}: {tag}")
        ctx.ui.set_widget("above", [f"above {tag} {n}" for n in range(3)])
        ctx.ui.set_widget("below", [f"below {tag}"], placement="belowEditor")
        ctx.ui.set_widget("panel", lambda tui, theme: Static(f"panel {tag}"))
        if tag == "B":
            ctx.ui.set_editor_component(lambda tui, theme, keys: CustomEditor(tui, theme, keys))
    pi.register_command("look", look)
"""


def extension_file() -> str:
    """The extension both sessions load with ``--extensions``."""
    path = Path(tempfile.mkdtemp(prefix="pi-bench-switch-")) / "tab_look.py"
    path.write_text(EXTENSION, encoding="utf-8")
    return str(path)


def session_a(url: str, extensions: list[str]):
    """The streaming session (``tui_stream.make_session``, with ``extensions``)."""
    if not extensions:
        return make_session(url)
    from pi_runtime.frontend import SessionManager, SettingsManager, create_agent_session

    session = create_agent_session(model=bench_model(url), session_manager=SessionManager.in_memory(),
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}),
                                   no_tools=True, extensions=extensions)
    session.model_registry.set_runtime_api_key("bench-local", "local")
    return session


def session_b(turns: int, extensions: list[str] | None = None):
    """An idle session with ``turns`` finished prompts and markdown answers (scripted provider)."""
    from pi_runtime.frontend import (
        ScriptedProvider,
        SessionManager,
        SettingsManager,
        create_agent_session,
        scripted_text,
    )

    provider = ScriptedProvider("bench-b")
    for i in range(turns):
        provider.push(scripted_text(f"## Answer {i}\n\nSome *markdown* with `code` and a list:\n\n- one\n- two\n\n"
                                    f"```python\nprint({i})\n```\n{B_MARKER if i == turns - 1 else ''}\n"))
    session = create_agent_session(model=provider.model(), session_manager=SessionManager.in_memory(),
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}),
                                   no_tools=True, extensions=extensions or [])
    return session


class FrameWatch:
    """Notes when a screen update first carries the marker of the probe in progress."""

    def __init__(self, app) -> None:
        self._display = app._display
        self._console = app.console
        self.marker: str | None = None
        self.seen = 0.0
        app._display = self.display

    def display(self, screen, renderable) -> None:
        self._display(screen, renderable)
        if renderable is None or self.marker is None:
            return
        render = getattr(renderable, "render_segments", None)
        if render and self.marker in render(self._console):
            self.seen = time.perf_counter()
            self.marker = None


async def switch(app, watch: FrameWatch, key: str, marker: str) -> float:
    watch.marker, watch.seen = marker, 0.0
    start = time.perf_counter()
    app.post_message(events.Key(key, None))
    while not watch.seen and time.perf_counter() - start < 5:
        await asyncio.sleep(0.0005)
    return (watch.seen or time.perf_counter()) - start


def time_extension_switches(samples: list[float]) -> None:
    """Note how long each switch spends putting one session's extension UI away and the other's back."""
    try:
        from pi_tui.flows import workspace
    except ImportError:  # a checkout from before pi_tui/flows/ (the module was in sessions/)
        from pi_tui.sessions import workspace  # type: ignore[no-redef]

    show = getattr(workspace, "show_extension_ui", None)
    if show is None:  # an older checkout (compared with ``PYTHONPATH=<checkout>``): nothing to time
        return

    def timed(app, ui) -> None:
        start = time.perf_counter()
        show(app, ui)
        samples.append(time.perf_counter() - start)

    workspace.show_extension_ui = timed


async def run(args) -> None:
    from pi_tui.launch import create_app

    ui_switches: list[float] = []
    if args.extensions:
        time_extension_switches(ui_switches)

    answer = long_answer(args.words)
    with RemoteServer() as server:
        extensions = [extension_file()] if args.extensions else []
        a = session_a(server.url, extensions)
        b = session_b(args.turns, extensions)
        for i in range(args.turns):
            await b.prompt(f"question {i}")
        app = create_app(a, static=True)
        to_b: list[float] = []
        to_a: list[float] = []
        async with app.run_test(size=(120, 40)):
            await asyncio.sleep(0.2)
            await app.workspace.open(b)
            await asyncio.sleep(0.3)
            if args.extensions:
                # Each session's extension sets its own look, as a user's /look would.
                for entry, tag in zip(app.workspace.sessions, "AB", strict=True):
                    for _ in range(500):  # its extensions have their UI (B's start in a worker)
                        if entry.extension_ui is not None and entry.session.extension_runner.ui is not None:
                            break
                        await asyncio.sleep(0.02)
                    await entry.session.prompt(f"/look {tag}")
                    assert entry.extension_ui.statuses.get("env") == f"env: {tag}", entry.extension_ui.statuses
            await app.workspace.show(app.workspace.sessions[0])
            watch = FrameWatch(app)
            server.push(sse_reply(answer, args.chunk, args.delay, args.burst))
            gc.freeze()
            await a.prompt("go", wait=False)
            await asyncio.sleep(0.5)
            for _ in range(args.switches):
                if not a.is_streaming:
                    break
                to_b.append(await switch(app, watch, "alt+pagedown", B_MARKER))
                await asyncio.sleep(0.2)
                to_a.append(await switch(app, watch, "alt+pageup", A_MARKER))
                await asyncio.sleep(0.2)
            await a.abort()
            gc.unfreeze()
        # Every pair of switches starts only while A still streams (the loop checks first).
        print(f"B: {args.turns} turns ({len(b.messages)} messages); switches made while A streamed: {len(to_b)} pairs"
              + ("; each session with its own extension UI (statuses, widgets, B's editor)" if args.extensions else ""))
        named = [("to the idle session (B)", to_b), ("to the streaming session (A)", to_a)]
        if ui_switches:
            named.append(("of which extension UI", ui_switches))
        for name, samples in named:
            ms = [s * 1000 for s in samples]
            if ms:
                print(f"switch {name:<30} p50 {statistics.median(ms):6.1f} ms  max {max(ms):6.1f} ms  (n={len(ms)})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--switches", type=int, default=20)
    parser.add_argument("--turns", type=int, default=100, help="finished prompts in session B")
    parser.add_argument("--words", type=int, default=60_000, help="long enough to stream through every switch")
    parser.add_argument("--chunk", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.0004)
    parser.add_argument("--burst", type=int, default=3)
    parser.add_argument("--extensions", action="store_true", help="both sessions with an extension UI of their own")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
