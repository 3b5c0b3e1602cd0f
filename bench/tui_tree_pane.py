"""Benchmark: the tree pane (``/pane tree``) on a 20,000-message branched session.

Builds the session of ``bench/tui_tree.py`` (user → tool call → tool result → answer turns, a
branch every 250 turns), opens it in the real app (``create_app``, headless 160x48) and prints:

- open: from the toggle to the rows painted (``TreePaneController.open`` + the next frame), and
  until the app is idle again (the transcript re-wrapped to its narrower width);
- a selection move per key: the pilot's key press (its own round trip measured with an unbound
  key), and the handler plus repainting every visible line;
- the preview of a point deep in the tree (path messages from the kernel + the preview drawn);
- taking in one appended entry (``refresh_rows`` after a message is appended: ``LiveTree.sync``
  and a repaint), what every batch of kernel events costs while the pane is open;
- opening it again after closing it (the rows are kept and catch up).

Run: ``.venv/bin/python bench/tui_tree_pane.py [--entries 20000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


async def run(entries: int, moves: int) -> None:
    from tui_tree import build_session

    from pi_tui.launch import create_app
    from pi_tui.tree.branch_preview import PREVIEW_MESSAGES

    session = build_session(entries)
    # As ``pi`` does after loading a session (modes/startup.py): what start-up built lives as long
    # as the process and is kept out of the collector's scans.
    gc.freeze()
    sm = session.session_manager
    messages = sum(1 for e in sm.raw_entries() if e.get("type") == "message")
    print(f"entries: {len(sm.raw_entries())}, messages: {messages}")
    app = create_app(session, static=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await session.wait_for_idle()
        await pilot.pause(0.5)  # the transcript's first window is in; the app is idle

        t0, c0 = time.perf_counter(), time.process_time()
        await app.tree_pane.open()
        built, built_cpu = time.perf_counter() - t0, time.process_time() - c0
        painted: list[tuple[float, float]] = []
        # Runs once the next frame (the rows) is drawn; pilot.pause() would also wait for the frames after.
        app.call_after_refresh(lambda: painted.append((time.perf_counter() - t0, time.process_time() - c0)))
        while not painted:
            await asyncio.sleep(0.001)
        opened, opened_cpu = painted[0]
        pane = app.tree_pane.pane
        assert pane.list.count and pane.live.rows.current_id == sm.leaf_id
        print(f"open (toggle → rows painted): {opened * 1000:7.1f} ms wall, {opened_cpu * 1000:.1f} ms CPU "
              f"(goal < 300 ms; {len(pane.live.rows.visible)} visible rows of {len(pane.live.rows.rows)})")
        print(f"  of which rows built + pane mounted: {built * 1000:.1f} ms wall, {built_cpu * 1000:.1f} ms CPU")
        # Textual draws the pane's rows first; the transcript's blocks are re-wrapped to its
        # narrower width in the frames after (pilot.pause() waits for those too).
        await pilot.pause()
        settled, settled_cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"  until idle (the transcript re-wrapped beside it): {settled * 1000:.1f} ms wall, "
              f"{settled_cpu * 1000:.1f} ms CPU from the toggle")

        async def per_key(key: str, count: int) -> list[float]:
            times = []
            for _ in range(count):
                t = time.perf_counter()
                await pilot.press(key)
                times.append((time.perf_counter() - t) * 1000)
            return times

        base = statistics.median(await per_key("f12", 10))
        ups = await per_key("up", moves)
        downs = await per_key("down", moves)
        both = ups + downs
        print(f"pilot press up/down:          {statistics.median(both):7.2f} ms median, {max(both):.2f} max "
              f"(goal < 30 ms; pilot round trip with an unbound key: {base:.2f} ms)")

        view = pane.list
        height = view.scrollable_content_region.height

        def direct(action, count: int) -> list[float]:
            times = []
            for _ in range(count):
                t = time.perf_counter()
                action()
                for y in range(height):
                    view.render_line(y)
                times.append((time.perf_counter() - t) * 1000)
            return times

        moved = direct(pane.key_up, moves) + direct(pane.key_page_up, moves // 4)
        print(f"move handler + repaint:       {statistics.median(moved):7.2f} ms median, {max(moved):.2f} max "
              f"(up and page up, {height} lines)")
        app.tree_pane.end_preview()

        deep = pane.live.rows.rows[len(pane.live.rows.rows) // 2].entry_id
        t0, c0 = time.perf_counter(), time.process_time()
        app.tree_pane._wanted_preview = deep
        await app.tree_pane._show_preview(deep)
        await pilot.pause()
        print(f"preview of a mid-tree point:  {(time.perf_counter() - t0) * 1000:7.1f} ms wall, "
              f"{(time.process_time() - c0) * 1000:.1f} ms CPU "
              f"(path to entry {len(pane.live.rows.rows) // 2}: last {PREVIEW_MESSAGES} messages drawn)")
        app.tree_pane.end_preview()

        appended = []
        outcomes = set()
        for i in range(20):
            sm.append_message({"role": "user", "content": f"live {i}", "timestamp": 1})
            t = time.perf_counter()
            outcomes.add(pane.refresh_rows())
            for y in range(height):
                view.render_line(y)
            appended.append((time.perf_counter() - t) * 1000)
        print(f"one appended entry (sync + repaint): {statistics.median(appended):7.2f} ms median, "
              f"{max(appended):.2f} max (outcomes: {', '.join(sorted(outcomes))}; flattenings: {pane.live.rebuilds})")

        await app.tree_pane.close()
        await pilot.pause()
        sm.append_message({"role": "user", "content": "while the pane was closed", "timestamp": 1})
        before = pane.live.rebuilds
        t0 = time.perf_counter()
        await app.tree_pane.open()
        await pilot.pause()
        print(f"open again (rows kept, one entry appended meanwhile): {(time.perf_counter() - t0) * 1000:7.1f} ms wall "
              f"(flattenings: {app.tree_pane.pane.live.rebuilds - before})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(run(args.entries, args.moves))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
