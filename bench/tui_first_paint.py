"""Benchmark: time to first paint of ``pi`` in a 120x40 pseudo-terminal.

Spawns ``python -m pi_runtime.cli --demo`` (and, as a baseline, a bare Textual app showing
one line) in a pty and reads its output until a marker is on screen: for pi the header's
version (first frame), the model name in the footer (``demo-model``: from the first frame
on, the launcher shows the model it can know without building the session), and the
header's model ref (``demo/demo-model``: written once the session is built and attached);
for the baseline its text. Each run uses a fresh temp agent
dir; the process is then stopped. Prints min/median over the runs.

Run: ``.venv/bin/python bench/tui_first_paint.py [--runs 5]``.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARE = "from textual.app import App\nfrom textual.widgets import Static\n" \
       "class A(App):\n    def compose(self):\n        yield Static('bare-textual-ready')\nA().run()\n"


def time_to_marker(argv: list[str], marker: bytes, env: dict[str, str], timeout: float = 15.0) -> float | None:
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        os.execvpe(argv[0], argv, env)
    start = time.perf_counter()
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = b""
    found = None
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if marker in seen:
                found = time.perf_counter() - start
                break
    finally:
        os.kill(pid, signal.SIGTERM)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    rows = []
    for name, argv, marker in (
        ("pi --demo (first frame)", [python, "-m", "pi_runtime.cli", "--demo"], b"v0.1.0"),
        ("pi --demo (footer model)", [python, "-m", "pi_runtime.cli", "--demo"], b"demo-model"),
        ("pi --demo (session ready)", [python, "-m", "pi_runtime.cli", "--demo"], b"demo/demo-model"),
        ("bare Textual app", [python, "-c", BARE], b"bare-textual-ready"),
    ):
        times = []
        for _ in range(args.runs):
            env = dict(os.environ, TERM="xterm-256color", PI_CODING_AGENT_DIR=tempfile.mkdtemp(prefix="pi-paint-"))
            t = time_to_marker(argv, marker, env)
            if t is not None:
                times.append(t)
        if times:
            rows.append(f"{name:<26} min {min(times):.3f}s  median {statistics.median(times):.3f}s  (n={len(times)})")
        else:
            rows.append(f"{name:<26} marker never appeared")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
