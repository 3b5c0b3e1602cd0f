"""Benchmark: time to first paint in a 120x40 pseudo-terminal (pi and Pi 1.6 in one run).

Both programs start on the same loopback model (``side_by_side.loop_home``) on a terminal that
answers their start-up queries as an xterm would, and the bench reads their output until a marker
is on screen: the header's version (the first frame, both programs), for pi also the model in the
footer (``m1``: from the first frame on, the launcher shows the model it can know without building
the session) and the header's model ref (``loop/m1``: written once the session is built and
attached). A bare Textual app showing one line is the floor. Each run uses a fresh home; pi's
bytecode is compiled first. Prints min/median over the runs.

Run: ``.venv/bin/python bench/tui_first_paint.py [--runs 5] [--only pi|Pi]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from side_by_side import Program, PtyTerminal, compile_bytecode, load, loop_home, programs

from pi_runtime.testing.loopback import LoopbackServer

BARE = "from textual.app import App\nfrom textual.widgets import Static\n" \
       "class A(App):\n    def compose(self):\n        yield Static('bare-textual-ready')\nA().run()\n"


def time_to(program: Program, url: str, marker: bytes, timeout: float = 15.0) -> float | None:
    term = PtyTerminal(program, loop_home(url))
    try:
        seen = term.wait_for(marker, timeout)
        return seen - term.start if seen is not None else None
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=("pi", "Pi"))
    parser.add_argument("--reference", help="the real Pi's pi executable")
    args = parser.parse_args()
    compile_bytecode()
    print(load())
    cases: list[tuple[str, Program, bytes]] = []
    for program in programs(args.reference, args.only):
        cases.append((f"{program.name} (first frame)", program, program.version_mark))
        if program.name == "pi":
            cases.append(("pi (footer model)", program, b"m1"))
            cases.append(("pi (session attached)", program, b"loop/m1"))
    if not args.only:
        cases.append(("bare Textual app", Program("bare", [sys.executable, "-c", BARE]), b"bare-textual-ready"))
    with LoopbackServer() as server:
        for name, program, marker in cases:
            times = [t for t in (time_to(program, server.url, marker) for _ in range(args.runs)) if t is not None]
            if times:
                print(f"{name:<26} min {min(times):.3f}s  median {statistics.median(times):.3f}s  (n={len(times)})")
            else:
                print(f"{name:<26} marker never appeared")
    print(load())


if __name__ == "__main__":
    main()
