"""Benchmark: open the ``/resume`` picker over 1,000 session files of one folder.

Writes the files once into a temp sessions root (20 messages each, every fifth one named,
optionally a tool result of ``--tool-output`` bytes after each answer), then times the listing
alone (``SessionManager.list``), pushing ``SessionPicker`` until it has painted in a headless
120x40 app, search keystrokes (the first reads every message of every session: cold; the next
ones use what it read: warm), and the Tab to all folders.

Run: ``.venv/bin/python bench/tui_session_picker.py [--sessions 1000] [--tool-output 4000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

CWD = "/home/dev/bench-project"
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def write_sessions(root: Path, count: int, messages: int = 20, tool_output: int = 0) -> Path:
    from pi_runtime.session.paths import project_session_dir

    folder = project_session_dir(CWD, root)
    folder.mkdir(parents=True)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for n in range(count):
        when = start + timedelta(hours=n)
        sid = f"0195a1b2-0000-7000-8000-{n:012d}"
        lines = [{"type": "session", "version": 3, "id": sid, "timestamp": when.isoformat(), "cwd": CWD}]
        parent = None
        for m in range(messages):
            role = "user" if m % 2 == 0 else "assistant"
            message = {"role": role, "timestamp": int((when + timedelta(minutes=m)).timestamp() * 1000)}
            if role == "user":
                message["content"] = f"Task {n}: refactor module_{n % 97} step {m}"
            else:
                message.update(content=[{"type": "text", "text": "Done, tests pass."}], api="x", provider="p",
                               model="m", usage=USAGE, stopReason="stop")
            entry_id = f"{n:04x}{m:04x}"
            lines.append({"type": "message", "id": entry_id, "parentId": parent,
                          "timestamp": (when + timedelta(minutes=m)).isoformat(), "message": message})
            parent = entry_id
            if role == "assistant" and tool_output:
                result = {"role": "toolResult", "toolCallId": "c", "toolName": "read", "isError": False,
                          "content": [{"type": "text", "text": ("log line " * (tool_output // 9 + 1))[:tool_output]}],
                          "timestamp": message["timestamp"]}
                lines.append({"type": "message", "id": entry_id + "t", "parentId": parent,
                              "timestamp": (when + timedelta(minutes=m)).isoformat(), "message": result})
                parent = entry_id + "t"
        if n % 5 == 0:
            lines.append({"type": "session_info", "id": f"{n:04x}ffff", "parentId": parent,
                          "timestamp": when.isoformat(), "name": f"Session number {n}"})
        (folder / f"{when.strftime('%Y-%m-%dT%H-%M-%S-000Z')}_{sid}.jsonl").write_text(
            "\n".join(json.dumps(x, separators=(",", ":")) for x in lines) + "\n")
    return folder


async def run(count: int, tool_output: int = 0) -> None:
    from textual.screen import Screen

    from pi_runtime.session import SessionManager
    from pi_tui.sessions.session_picker import SessionPicker
    from pi_tui.tree.nav_host import NavHostApp

    with tempfile.TemporaryDirectory(prefix="pi-bench-picker-") as tmp:
        root = Path(tmp) / "sessions"
        folder = write_sessions(root, count, tool_output=tool_output)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"files: {size / 1e6:.1f} MB")
        t0 = time.perf_counter()
        listed = SessionManager.list(CWD, folder)
        print(f"sessions: {len(listed)}")
        print(f"listing alone:              {(time.perf_counter() - t0) * 1000:7.1f} ms")
        app = NavHostApp(lambda: Screen(), exit_on_dismiss=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            t0 = time.perf_counter()
            picker = SessionPicker(CWD, session_dir=folder, sessions_root=root, system_trash=False)
            await app.push_screen(picker)
            await pilot.pause()
            print(f"open (painted, then idle):  {(time.perf_counter() - t0) * 1000:7.1f} ms")
            assert len(picker.state.visible) == count
            await app.workers.wait_for_complete()
            print(f"messages read (thread) by:  {(time.perf_counter() - t0) * 1000:7.1f} ms after opening")

            def direct(action, repeat: int) -> float:
                height = picker.rows.scrollable_content_region.height
                times = []
                for _ in range(repeat):
                    t = time.perf_counter()
                    action()
                    for y in range(height):
                        picker.rows.render_line(y)
                    times.append(time.perf_counter() - t)
                return statistics.median(times) * 1000

            print(f"move down, handler+repaint: {direct(picker.key_down, 30):7.2f} ms median")
            from pi_runtime.session import search

            picker.state.matcher = None
            print(f"first search ('x'):         {direct(lambda: picker._set_query('x'), 1):7.1f} ms (messages read ahead)")
            search._CACHE.clear()  # cold: as if the read-ahead had not finished
            picker.state.matcher = None
            print(f"first search, cold ('x'):   {direct(lambda: picker._set_query('x'), 1):7.1f} ms (reads every message)")
            print(f"search keystroke ('m'):     {direct(lambda: picker._set_query('m'), 5):7.2f} ms median")
            print(f"search 'tests pass' (msgs): {direct(lambda: picker._set_query('tests pass'), 5):7.2f} ms median")
            print(f"search 'module_42 step':    {direct(lambda: picker._set_query('module_42 step'), 5):7.2f} ms median")
            picker._set_query("")
            print(f"sort toggle:                {direct(picker.key_toggle_sort, 4):7.2f} ms median")
            t0 = time.perf_counter()
            picker.key_toggle_scope()
            print(f"tab to all folders (first): {(time.perf_counter() - t0) * 1000:7.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--tool-output", type=int, default=0, help="bytes of tool output after each answer")
    args = parser.parse_args()
    asyncio.run(run(args.sessions, args.tool_output))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
