"""Benchmark: open the ``/tree`` browser on a 10,000-entry branched session and move in it.

Builds an in-memory session (user → assistant tool call → tool result → assistant text turns,
a new branch every 250 turns), wraps it in a real ``AgentSession`` (scripted provider) and
shows ``TreeBrowser`` in a headless 120x40 app. Prints the time to flatten the rows, the
time from pushing the screen to its first paint, and the time per cursor move (a key press
through Textual, repaint included), per page move and per filter change.

Run: ``.venv/bin/python bench/tui_tree.py [--entries 10000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def fill_turns(sm, entries: int) -> None:
    """Append read-a-file turns to the session manager ``sm`` until it has about ``entries``
    entries, branching every 250 turns (the tree the tree benches browse)."""
    assistant = {"role": "assistant", "api": "scripted", "provider": "bench", "model": "m", "usage": USAGE,
                 "stopReason": "stop", "timestamp": 1}
    turn = 0
    branch_from: list[str] = []
    while len(sm.raw_entries()) < entries:
        sm.append_message({"role": "user", "content": f"Question {turn}: please look at file_{turn}.py", "timestamp": 1})
        call = f"call{turn}"
        sm.append_message({**assistant, "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": f"file_{turn}.py"}}]})
        sm.append_message({"role": "toolResult", "toolCallId": call, "toolName": "read", "isError": False,
                           "content": [{"type": "text", "text": f"def f{turn}():\n    return {turn}\n"}], "timestamp": 1})
        last = sm.append_message({**assistant, "content": [{"type": "text", "text": f"File {turn} returns {turn}."}]})
        if turn % 50 == 10:
            branch_from.append(last)
        if turn % 250 == 249 and branch_from:
            sm.branch(branch_from[len(branch_from) // 2])
        turn += 1


def build_session(entries: int):
    """A real AgentSession over an in-memory session with about ``entries`` entries."""
    from pi_runtime.ai.providers.scripted import ScriptedProvider
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session import SessionManager
    from pi_runtime.settings import SettingsManager

    sm = SessionManager.in_memory("/tmp/bench-project")
    fill_turns(sm, entries)
    provider = ScriptedProvider("bench-tree")
    session = create_agent_session(cwd="/tmp/bench-project", model=provider.model(), session_manager=sm,
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
    return session


async def run(entries: int, moves: int) -> None:
    from pi_tui.tree.nav_host import NavHostApp
    from pi_tui.tree.tree_browser import TreeBrowser
    from pi_tui.tree.tree_rows import TreeRows

    session = build_session(entries)
    sm = session.session_manager
    t0 = time.perf_counter()
    rows = TreeRows(sm.raw_entries(), sm.leaf_id)
    flatten = time.perf_counter() - t0
    print(f"entries: {len(sm.raw_entries())}, rows: {len(rows.rows)}, visible (default filter): {len(rows.visible)}")
    print(f"flatten rows:            {flatten * 1000:7.1f} ms")

    from textual.screen import Screen

    app = NavHostApp(lambda: Screen(), exit_on_dismiss=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        t0 = time.perf_counter()
        screen = TreeBrowser(session)
        await app.push_screen(screen)
        await pilot.pause()
        opened = time.perf_counter() - t0
        assert screen.is_current and screen.tree_rows.current_id == sm.leaf_id
        print(f"open (push → painted):   {opened * 1000:7.1f} ms")

        async def per_key(key: str, count: int) -> float:
            times = []
            for _ in range(count):
                t = time.perf_counter()
                await pilot.press(key)
                times.append(time.perf_counter() - t)
            return statistics.median(times) * 1000

        def direct(action, count: int) -> float:
            """The key's handler plus drawing every line of the list (what a scroll repaints)."""
            view = screen.list
            height = view.scrollable_content_region.height
            times = []
            for _ in range(count):
                t = time.perf_counter()
                action()
                for y in range(height):
                    view.render_line(y)
                times.append(time.perf_counter() - t)
            return statistics.median(times) * 1000

        print(f"move up, handler+repaint:   {direct(screen.key_up, moves):7.2f} ms median")
        print(f"move down, handler+repaint: {direct(screen.key_down, moves):7.2f} ms median")
        print(f"page up, handler+repaint:   {direct(screen.key_page_up, moves):7.2f} ms median")
        print(f"filter cycle, handler+repaint: {direct(screen.key_cycle_forward, 5):7.2f} ms median")
        screen.tree_rows.set_filter("default")
        screen._sync(full=True)
        base = await per_key("f12", 10)  # a key nothing is bound to: the pilot's own cost
        print(f"pilot press 'down':      {await per_key('down', moves // 2):7.2f} ms median "
              f"(pilot round trip with an unbound key: {base:.2f} ms)")
        print(f"pilot press 'ctrl+o':    {await per_key('ctrl+o', 5):7.2f} ms median")
        print(f"pilot search keystroke:  {await per_key('q', 3):7.2f} ms median")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(run(args.entries, args.moves))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
