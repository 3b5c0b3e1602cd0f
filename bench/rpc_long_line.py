"""Time from sending one long RPC line to its response, for lines of growing size.

Each case starts ``pi --mode rpc --no-session`` once, waits for a ``get_state`` answer (so
start-up is not counted), then sends ``{"id":"big","type":"get_state","pad":"xxx…"}`` of the
given size and times the response. Framing and parsing should grow linearly with the size:
twice the bytes, about twice the time.

Run: ``.venv/bin/python bench/rpc_long_line.py [--sizes 1,10,50]`` (sizes in MB). Prints a
table; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def _pi() -> str:
    beside = Path(sys.executable).parent / "pi"
    return str(beside) if beside.exists() else "pi"


def time_line(size_mb: float) -> float:
    with tempfile.TemporaryDirectory() as agent:
        env = {**os.environ, "PI_CODING_AGENT_DIR": agent}
        proc = subprocess.Popen([_pi(), "--mode", "rpc", "--no-session"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(b'{"id":"warm","type":"get_state"}\n')
            proc.stdin.flush()
            proc.stdout.readline()
            head = b'{"id":"big","type":"get_state","pad":"'
            line = head + b"x" * int(size_mb * 1_000_000 - len(head) - 3) + b'"}\n'
            started = time.perf_counter()
            # Write from a thread: pi answers only after the whole line is in.
            writer = threading.Thread(target=lambda: (proc.stdin.write(line), proc.stdin.flush()))
            writer.start()
            answer = proc.stdout.readline()
            elapsed = time.perf_counter() - started
            writer.join()
            assert b'"id":"big"' in answer, answer[:200]
            return elapsed
        finally:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,50", help="line sizes in MB, comma separated")
    sizes = [float(s) for s in parser.parse_args().sizes.split(",")]
    print(f"{'line':>8}  {'response after':>14}  {'per MB':>8}")
    for size in sizes:
        seconds = time_line(size)
        print(f"{size:>6g}MB  {seconds:>12.2f} s  {seconds / size * 1000:>5.0f} ms")


if __name__ == "__main__":
    main()
