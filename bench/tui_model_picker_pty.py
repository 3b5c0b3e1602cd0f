"""Benchmark: the model picker over the whole catalogue, seen from a terminal (pi and Pi 1.6 in one run).

Every provider variable holds a placeholder, so both programs offer Pi 1.6's 1,688 chat models
(issue #33 counts them this way). Each program runs on a 120x40 pseudo-terminal answering its
start-up queries (``side_by_side.PtyTerminal``) on the same loopback model. Once its start-up has
settled, the bench presses Ctrl+L (both programs' "select model" key) and then types a search
one character at a time, and for each key measures from the write to the last byte the program
writes before it stays quiet for ``--quiet`` seconds: the moment the screen is complete again.
That measure needs no knowledge of either program's screen, so it is the same for both.

Figures: the picker's open (first, and a second open after Esc) and each search keystroke,
medians over ``--runs`` fresh starts, each with the CPU time the program used meanwhile (all its
threads, from /proc: steadier than wall time on a busy machine; for keystrokes, the mean over the
query's keys, since /proc counts in 10 ms ticks). The goal (issue #33): under 50 ms
for each.

Run: ``.venv/bin/python bench/tui_model_picker_pty.py [--runs 3] [--query claude] [--only pi|Pi]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from side_by_side import Program, PtyTerminal, RemoteServer, compile_bytecode, load, loop_home, programs

from pi_runtime.ai.env_keys import ENV_KEYS

CTRL_L = b"\x0c"
ESC = b"\x1b"


def with_every_key(program: Program) -> Program:
    """``program`` started through ``env`` with a placeholder in every provider variable."""
    keys = sorted({name for names in ENV_KEYS.values() for name in names})
    return Program(program.name, ["env", *(f"{name}=placeholder" for name in keys), *program.argv],
                   program.path_prefix, program.version_mark)


def until_quiet(term: PtyTerminal, sent: float, quiet: float, limit: float = 10.0) -> float:
    """Seconds from ``sent`` to the last output before ``quiet`` seconds of silence.

    Every key measured changes the screen, so the wait for its first output is up to ``limit``: a
    program slower than ``quiet`` to start answering must not count as having answered at once.
    """
    deadline = time.perf_counter() + limit
    if not term.pump(limit):
        return limit
    last = time.perf_counter()
    while time.perf_counter() < deadline:
        if not term.pump(quiet):
            break
        last = time.perf_counter()
    return last - sent


def one_run(program: Program, server: RemoteServer, query: str, quiet: float) -> dict[str, list[float]] | None:
    term = PtyTerminal(with_every_key(program), loop_home(server.url))
    try:
        if term.wait_for(program.version_mark, 30) is None or term.wait_for(b"m1", 30) is None:
            return None
        term.settle(0.5)
        figures: dict[str, list[float]] = {}

        def timed(name: str, keys: list[bytes]) -> None:
            # /proc counts CPU in clock ticks (10 ms): a mean over several keys says more than each key's.
            cpu = term.cpu_seconds()
            figures.setdefault(name, []).extend(until_quiet(term, term.type(key), quiet) for key in keys)
            figures.setdefault(f"{name} CPU", []).append((term.cpu_seconds() - cpu) / len(keys))

        timed("open (first)", [CTRL_L])
        timed("keystroke", [char.encode() for char in query])
        term.type(ESC)
        term.settle(0.3)
        timed("open (again)", [CTRL_L])
        return figures
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--query", default="claude")
    parser.add_argument("--quiet", type=float, default=0.15, help="silence that ends a measurement (seconds)")
    parser.add_argument("--only", choices=("pi", "Pi"))
    parser.add_argument("--reference", default=None)
    args = parser.parse_args()
    compile_bytecode()
    print(load())
    with RemoteServer() as server:
        for program in programs(args.reference, args.only):
            merged: dict[str, list[float]] = {}
            for _ in range(args.runs):
                figures = one_run(program, server, args.query, args.quiet)
                if figures is None:
                    print(f"{program.name}: did not start")
                    continue
                for name, values in figures.items():
                    merged.setdefault(name, []).extend(values)
            for name, values in merged.items():
                print(f"{program.name:7s} {name:17s} median {statistics.median(values) * 1000:5.0f} ms  "
                      f"max {max(values) * 1000:5.0f} ms  (n={len(values)})")
    print(load())


if __name__ == "__main__":
    main()
