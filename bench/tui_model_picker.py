"""Benchmark: ``/model`` (Ctrl+L) over the whole catalogue, each search keystroke, and Ctrl+P.

Every provider variable holds a placeholder (as issue #33 counts), so the picker offers all
1,688 chat models of Pi 1.6's 41 configurable providers plus the session's own. A real
``AgentSession`` (scripted provider, private agent dir) drives the app headless at 120x40.

Prints, in milliseconds (median of the repeats, the first open apart since it builds the
models). Pilot's press-and-paint costs a bare Textual app ~80 ms a key on a loaded 2-core
machine, so each figure through the harness comes with the picker's own part: from the key
reaching the app to the picker filled (open) or refilled (keystroke), measured with hooks:
- opening the picker: Ctrl+L pressed until the picker has painted (first, then again);
- each keystroke of a search, pressed until the list has painted again, then backspaces;
- the floor: a key typed into the editor through the same harness (pilot press + paint);
- the picker's own work per keystroke (filter and draw the rows on screen, no harness);
- the parts: the models it offers (``picker_models``), their rows, one filter pass;
- a six-row pick list opened the same way, for comparison (what any such dialog costs);
- Ctrl+P (next model with credentials) and with ``enabledModels`` scoping the cycle.
The goal (issue #33) is under 50 ms for the open and for each keystroke.

Run: ``.venv/bin/python bench/tui_model_picker.py [--repeat 5] [--query claude]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


def placeholder_env() -> None:
    from pi_runtime.ai.env_keys import ENV_KEYS

    for names in ENV_KEYS.values():
        for name in names:
            os.environ[name] = "placeholder"


def build_session(agent_dir: str, enabled: list[str] | None = None):
    from pi_runtime.ai.providers.scripted import ScriptedProvider
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session import SessionManager
    from pi_runtime.settings import SettingsManager

    settings = {"compaction": {"enabled": False}, **({"enabledModels": enabled} if enabled else {})}
    return create_agent_session(cwd=agent_dir, agent_dir=agent_dir, model=ScriptedProvider("bench-picker").model(),
                                session_manager=SessionManager.in_memory(agent_dir),
                                settings=SettingsManager.in_memory(settings))


class Marks:
    """When the app received a key and when the picker had finished with it (the picker's own
    time, without the Pilot harness's waiting, which costs a bare Textual app ~80 ms a key)."""

    def __init__(self) -> None:
        self.key = 0.0
        self.done = 0.0

    def install(self) -> None:
        from pi_tui.app import PiApp
        from pi_tui.dialogs.pick_list import PickList

        marks = self
        original_key, original_mount, original_refill = PiApp.on_event, PickList.on_mount, PickList.refill

        async def on_event(app, event):  # the app sees every event first
            from textual import events

            if isinstance(event, events.Key):
                marks.key = time.perf_counter()
            return await original_key(app, event)

        def on_mount(picker):
            original_mount(picker)
            marks.done = time.perf_counter()

        def refill(picker, query):
            original_refill(picker, query)
            marks.done = time.perf_counter()

        PiApp.on_event, PickList.on_mount, PickList.refill = on_event, on_mount, refill

    @property
    def handled(self) -> float:
        return self.done - self.key


async def textual_floor(repeat: int) -> float:
    """A key through the same harness in a bare Textual app with one Input."""
    from textual.app import App
    from textual.widgets import Input

    class Bare(App):
        def compose(self):
            yield Input()

    async with Bare().run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        return statistics.median([await timed(pilot, "x") for _ in range(repeat * 2)])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


async def timed(pilot, *keys: str) -> float:
    start = time.perf_counter()
    await pilot.press(*keys)
    await pilot.pause()  # the refresh the keys caused has been painted
    return time.perf_counter() - start


async def run(repeat: int, query: str) -> None:
    from rich.text import Text

    from pi_tui.dialogs.model_picker import ModelPicker, model_items, picker_models
    from pi_tui.dialogs.pick_list import PickItem, PickList
    from pi_tui.launch import create_app

    placeholder_env()
    marks = Marks()
    marks.install()
    bare = await textual_floor(repeat)
    with tempfile.TemporaryDirectory(prefix="pi-bench-models-") as agent_dir:
        os.environ["PI_CODING_AGENT_DIR"] = agent_dir
        session = build_session(agent_dir)
        app = create_app(session, static=True, agent_dir=agent_dir)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            # The floor: what a key costs through this harness with no picker involved.
            floor = [await timed(pilot, ch) for ch in "hello"]
            await timed(pilot, *["backspace"] * 5)
            opens = [await timed(pilot, "ctrl+l")]
            opens_in_pi = [marks.handled]
            assert isinstance(app.screen, ModelPicker), app.screen
            picker = app.screen
            offered = len(picker.items)
            keystrokes: list[float] = []
            keys_in_pi: list[float] = []
            for ch in query:
                keystrokes.append(await timed(pilot, ch))
                keys_in_pi.append(marks.handled)
            shown = sum(1 for item in picker.shown if item is not None)
            backspaces = []
            for _ in query:
                backspaces.append(await timed(pilot, "backspace"))
                keys_in_pi.append(marks.handled)
            rows = picker.query_one("#picker-list")

            def direct(text: str) -> float:  # the picker's own work: filter, then draw the lines on screen
                start = time.perf_counter()
                picker.refill(text)
                for y in range(rows.size.height):
                    rows.render_line(y)
                return time.perf_counter() - start

            handler = [direct(query[:n]) for n in range(1, len(query) + 1)] + [direct("")]
            await timed(pilot, "escape")
            for _ in range(repeat):
                opens.append(await timed(pilot, "ctrl+l"))
                opens_in_pi.append(marks.handled)
                await timed(pilot, "escape")
            t0 = time.perf_counter()
            models = picker_models(session)
            t1 = time.perf_counter()
            items = model_items(models, session.model_registry, session.model.ref)
            picker._narrowed = None  # a pass over every row, not one narrowed from the last search
            t2 = time.perf_counter()
            matched = picker.matching(query)
            t3 = time.perf_counter()
            print(f"models offered: {offered} (providers: {len({m.provider for m in models})})")
            print(f"harness floor: a key in a bare Textual app, pressed until painted: {ms(bare)}")
            print(f"floor in pi: a key typed in the editor, pressed until painted:  {ms(statistics.median(floor))}")
            print(f"open, first (builds the models): {ms(opens[0])}; in pi, key to picker filled: {ms(opens_in_pi[0])}")
            print(f"open, again (median of {repeat}):     {ms(statistics.median(opens[1:]))}; "
                  f"in pi: {ms(statistics.median(opens_in_pi[1:]))}")
            print("keystrokes and backspaces in pi, key to list refilled: "
                  + " ".join(f"{k * 1000:.1f}" for k in keys_in_pi) + f" ms (max {max(keys_in_pi) * 1000:.1f})")
            print(f"keystrokes of {query!r}: " + " ".join(f"{k * 1000:.1f}" for k in keystrokes)
                  + f" ms (max {max(keystrokes) * 1000:.1f}); {shown} rows match")
            print("backspaces: " + " ".join(f"{k * 1000:.1f}" for k in backspaces)
                  + f" ms (max {max(backspaces) * 1000:.1f})")
            print("filter + draw the visible rows, per keystroke (no harness): "
                  + " ".join(f"{k * 1000:.1f}" for k in handler) + f" ms (max {max(handler) * 1000:.1f})")
            print(f"parts: picker_models {ms(t1 - t0)}, rows {ms(t2 - t1)}, one filter pass {ms(t3 - t2)}"
                  f" ({len(items)} rows, {len(matched)} matches)")
            small = []
            for _ in range(repeat):  # the same kind of dialog with six rows: what any picker costs to open
                start = time.perf_counter()
                await app.push_screen(PickList("six rows", [PickItem(n, Text(f"row {n}"), f"row {n}") for n in range(6)]))
                await pilot.pause()
                small.append(time.perf_counter() - start)
                await timed(pilot, "escape")
            print(f"for comparison, a six-row pick list opened (median): {ms(statistics.median(small))}")
            cycles = [await timed(pilot, "ctrl+p") for _ in range(repeat)]
            print(f"ctrl+p (next of all models), median: {ms(statistics.median(cycles))}")
        session.session_manager.close()
        scoped = build_session(agent_dir, enabled=["anthropic/*", "openai/gpt-5*", "sonnet"])
        app = create_app(scoped, static=True, agent_dir=agent_dir)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            cycles = [await timed(pilot, "ctrl+p") for _ in range(repeat)]
            print(f"ctrl+p with enabledModels ({len(scoped.scoped_models)} scoped), median: "
                  f"{ms(statistics.median(cycles))}")
        scoped.session_manager.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--query", default="claude")
    args = parser.parse_args()
    asyncio.run(run(args.repeat, args.query))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
