"""Benchmark: the tree pane as a user meets it, in a real terminal.

``bench/tui_tree_pane.py`` times the pane inside a headless app; this one runs ``pi --session
FILE`` in a 160x48 pseudo-terminal on the same 20,000-entry branched session (written to a
session file first), presses Alt+T and reads what the app writes back:

- open: Alt+T until the pane's title is on screen (rows painted), and until the screen has been
  still for 0.15 s (the transcript re-wrapped to its narrower width);
- ↑ in the pane, 20 times, one press after the screen stilled: until the first screen update
  (the selection moved) and until the screen is still again. Resting on a row draws its path
  after 0.12 s (the preview), which a press landing then waits behind.

CPU seconds of the pi process are given beside the wall times (steadier on a busy machine).

Run: ``.venv/bin/python bench/tui_tree_pane_pty.py [--entries 20000]``. Prints figures only.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tui_resume import Terminal  # noqa: E402
from tui_tree import fill_turns  # noqa: E402

ALT_T = b"\x1bt"
UP = b"\x1b[A"


def write_session(folder: Path, entries: int) -> Path:
    """The session of ``bench/tui_tree.py`` (a branch every 250 turns), as a file in ``folder``."""
    from pi_runtime.session import SessionManager

    sm = SessionManager.create(str(folder), folder / "sessions")
    fill_turns(sm, entries)
    path = Path(str(sm.session_file))
    sm.close()
    return path


def until_still(term: Terminal, start: float, quiet: float, limit: float) -> float:
    """Seconds from ``start`` to the last screen update before ``quiet`` seconds of stillness."""
    last = time.perf_counter()
    while time.perf_counter() - start < limit and term.read(quiet):
        last = time.perf_counter()
    return last - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--presses", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pi-tree-pty-"))
    session_file = write_session(work, args.entries)
    env = dict(os.environ, TERM="xterm-256color", PI_CODING_AGENT_DIR=str(work / "agent"))
    term = Terminal([sys.executable, "-m", "pi_runtime.cli", "--session", str(session_file)], env, work)
    fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
    try:
        if term.wait_for(b"returns", 120) is None:
            print("pi: the session never showed")
            return 1
        term.drain(0.5)  # still: the session attached, the window filled
        start, cpu = time.perf_counter(), term.cpu_seconds()
        os.write(term.fd, ALT_T)
        window = b""
        rows = rows_cpu = None
        while time.perf_counter() - start < 30:
            window = (window + term.read(0.005))[-300_000:]
            if b"Session tree" in window:
                rows, rows_cpu = time.perf_counter() - start, term.cpu_seconds() - cpu
                break
        if rows is None or rows_cpu is None:
            print("pi: the pane never showed")
            return 1
        settled = until_still(term, start, 0.15, 10)
        settled_cpu = term.cpu_seconds() - cpu
        print(f"open: rows on screen {rows * 1000:.0f} ms ({rows_cpu * 1000:.0f} ms CPU), still after "
              f"{settled * 1000:.0f} ms ({settled_cpu * 1000:.0f} ms CPU) (goal < 300 ms to rows)")
        term.drain(0.3)
        first: list[float] = []
        still: list[float] = []
        cpu_per_key: list[float] = []
        for _ in range(args.presses):
            sent, before = time.perf_counter(), term.cpu_seconds()
            os.write(term.fd, UP)
            if not term.read(2.0):
                continue
            first.append((time.perf_counter() - sent) * 1000)
            still.append(until_still(term, sent, 0.05, 1.0) * 1000)
            cpu_per_key.append((term.cpu_seconds() - before) * 1000)
        print(f"↑ in the pane: first update p50 {statistics.median(first):.1f} ms, max {max(first):.1f} ms; "
              f"still again p50 {statistics.median(still):.1f} ms, max {max(still):.1f} ms (goal < 30 ms per key); "
              f"CPU per key p50 {statistics.median(cpu_per_key):.0f} ms, max {max(cpu_per_key):.0f} ms")
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        term.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
