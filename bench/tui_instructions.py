"""Instructions the app executes up to the first answer on screen (callgrind), phase by phase.

``tui_first_answer.py`` times the same moment beside Pi, but its figures move by tens of percent
with the machine's load; the count of instructions does not (within ~2 %: the background
threads' interleaving varies). Use it to compare two trees. The app runs as in that bench (a
120x40 pseudo-terminal, its start-up queries answered, a loopback model that answers at once),
under ``valgrind --tool=callgrind``; ``callgrind_control --dump`` takes the counters at three
moments, so the figures are:

  to the first frame    start-up, imports, the first screen drawn (the header's version shown)
  to the request        session opened, "hi" typed and sent, the HTTP client ready, the request out
  to the answer         the stream read and the answer drawn

all threads together (``--threads`` splits each phase by thread: the main one, Textual's input and
output, the session's build, the HTTP client's import, the Markdown warm-up). The keys are typed as soon as the first frame shows, as the timing bench
types them; under valgrind the app is ~50x slower, so work that would overlap the typing runs
first here, which changes the order of the phases' work but not what they add up to.

Run: ``.venv/bin/python bench/tui_instructions.py [--tree PATH] [--runs N] [--threads]`` (``--tree``: a
checkout whose ``pi_runtime`` and ``pi_tui`` are measured instead, first on ``PYTHONPATH``).
Needs valgrind. ~1-2 minutes a run. Asserts nothing.
"""

from __future__ import annotations

import argparse
import compileall
import fcntl
import os
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tui_first_answer import KEYS, Server, agent_dir, answers, in_raw_mode, stop  # noqa: E402

from pi_runtime import __version__  # noqa: E402
from pi_runtime.testing.loopback import LoopbackServer  # noqa: E402

PHASES = ("to the first frame", "to the request", "to the answer")


def dump_totals(folder: Path, by_thread: dict[tuple[int, int], int] | None = None) -> list[int]:
    """The instructions of each dump part so far, in order (part 1 first), all threads together;
    ``by_thread`` gets each (part, thread)'s own."""
    parts: dict[int, int] = {}
    for path in folder.glob("cg.out*"):
        text = path.read_text(errors="replace")
        part, total = re.search(r"^part: (\d+)", text, re.M), re.search(r"^totals: (\d+)", text, re.M)
        thread = re.search(r"^thread: (\d+)", text, re.M)
        if part and total:
            parts[int(part.group(1))] = parts.get(int(part.group(1)), 0) + int(total.group(1))
            if by_thread is not None and thread:
                by_thread[int(part.group(1)), int(thread.group(1))] = int(total.group(1))
    return [parts[k] for k in sorted(parts)]


def dump(pid: int, folder: Path, expected: int, timeout: float = 60.0) -> None:
    """Ask callgrind for a dump and wait until it is written."""
    subprocess.run(["callgrind_control", "--dump", str(pid)], capture_output=True, timeout=timeout)
    deadline = time.perf_counter() + timeout
    while len(dump_totals(folder)) < expected and time.perf_counter() < deadline:
        time.sleep(0.05)


def one_run(tree: Path, server: Server, marker: str, timeout: float, show_threads: bool) -> list[int] | str:
    """Instructions of each phase, or what went wrong."""
    server.marker = marker
    server.requested_at.clear()
    assert server.loop is not None
    root = agent_dir(server.loop.url)
    out = Path(tempfile.mkdtemp(prefix="pi-tui-instructions-"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
    env.update(TERM="xterm-256color", HOME=str(root), PI_CODING_AGENT_DIR=str(root / "agent"), PI_OFFLINE="1",
               PYTHONPATH=str(tree))
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.out", "--dump-instr=no",
            "--separate-threads=yes",
            sys.executable, "-m", "pi_runtime.cli"]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(root / "project")
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    start, window, pending, moment = time.perf_counter(), b"", list(KEYS), 0
    needle, frame = marker.encode(), f"v{__version__}".encode()
    try:
        while time.perf_counter() - start < timeout:
            if moment == 0 and in_raw_mode(fd) and frame in window:
                dump(pid, out, 1)
                moment = 1
            if moment >= 1 and pending:
                os.write(fd, pending.pop(0))
            if moment == 1 and server.requested_at:
                dump(pid, out, 2)
                moment = 2
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return "the program exited"
            if not chunk:
                return "the program exited"
            reply = answers(chunk)
            if reply:
                os.write(fd, reply)
            window = (window + chunk)[-100_000:]
            if moment == 2 and needle in window:
                dump(pid, out, 3)
                by_thread: dict[tuple[int, int], int] = {}
                totals = dump_totals(out, by_thread)
                if show_threads:
                    for index, name in enumerate(PHASES, start=1):
                        split = [f"{by_thread[key] / 1e6:.1f}" for key in sorted(by_thread) if key[0] == index
                                 and by_thread[key] >= 1e6]
                        print(f"  {name}, by thread (M, thread 1 is the main one): {', '.join(split)}")
                return totals[:3]  # callgrind zeroes its counters at each dump: a part is a phase
        return f"no answer within {timeout:.0f} s (moment {moment})"
    finally:
        stop(pid)
        os.close(fd)
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", default=str(ROOT), help="a checkout whose pi_runtime and pi_tui are measured")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--threads", action="store_true", help="also print each phase's instructions by thread")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return
    tree = Path(args.tree).resolve()
    for package in ("pi_runtime", "pi_tui"):
        compileall.compile_dir(str(tree / package), quiet=1)
    print(f"pi_runtime and pi_tui from {tree}")
    server = Server()
    results: list[list[int]] = []
    with LoopbackServer(server.reply) as loop:
        server.loop = loop
        for run in range(args.runs):
            outcome = one_run(tree, server, f"Pong{run:02d}x{os.getpid()}", args.timeout, args.threads)
            if isinstance(outcome, str):
                print(f"run {run + 1}: {outcome}")
            else:
                results.append(outcome)
    if not results:
        return
    for index, name in enumerate(PHASES):
        values = [r[index] for r in results]
        print(f"{name:<22} {statistics.median(values) / 1e6:8.1f} M instructions"
              + (f"  (runs: {', '.join(f'{v / 1e6:.1f}' for v in values)})" if len(values) > 1 else ""))
    print(f"{'total':<22} {statistics.median(sum(r) for r in results) / 1e6:8.1f} M")


if __name__ == "__main__":
    main()
