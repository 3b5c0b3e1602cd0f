"""Benchmark: open a 20,000-message session (~11 MB) and rebuild its context.

Generates the file once (in a temp folder unless a path is given), then, in a fresh
subprocess so the figures are not polluted by the generator, measures
``SessionManager.open`` + ``build_session_context()`` wall time and peak memory
(tracemalloc peak of Python allocations, and the process's max RSS).

Usage: python bench/session_open.py [--messages N] [--keep PATH]
Goal: under 0.3 s and 150 MB (Pi 1.6: ~0.43 s / 135 MB for the same open).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(path: Path, messages: int) -> None:
    """Write a linear Pi-format session: user → assistant(tool call) → toolResult → assistant.

    Its recorded folder is the file's own: opened from a folder that does not exist, pi (as Pi)
    first asks where to run it, and an app bench would wait on that question."""
    from pi_runtime.session.paths import iso_now, new_session_id

    lines = [{"type": "session", "version": 3, "id": new_session_id(), "timestamp": iso_now(), "cwd": str(path.parent)}]
    parent = None
    base_ms = 1_750_000_000_000
    filler = "lorem ipsum dolor sit amet " * 12
    usage = {"input": 1000, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1050,
             "cost": {"input": 0.003, "output": 0.00075, "cacheRead": 0, "cacheWrite": 0, "total": 0.00375}}
    for i in range(messages):
        phase = i % 4
        if phase == 0:
            message = {"role": "user", "content": f"Request {i}: {filler}", "timestamp": base_ms + i}
        elif phase == 1:
            message = {"role": "assistant", "content": [
                {"type": "text", "text": f"Reading file {i}."},
                {"type": "toolCall", "id": f"call_{i}", "name": "read", "arguments": {"path": f"src/f{i}.py"}}],
                "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                "usage": usage, "stopReason": "toolUse", "timestamp": base_ms + i}
        elif phase == 2:
            message = {"role": "toolResult", "toolCallId": f"call_{i - 1}", "toolName": "read",
                       "content": [{"type": "text", "text": filler}], "isError": False, "timestamp": base_ms + i}
        else:
            message = {"role": "assistant", "content": [{"type": "text", "text": f"Done {i}. {filler[:120]}"}],
                       "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                       "usage": usage, "stopReason": "stop", "timestamp": base_ms + i}
        entry_id = f"{i:08x}"
        lines.append({"type": "message", "id": entry_id, "parentId": parent,
                      "timestamp": "2025-06-01T10:00:00.000Z", "message": message})
        parent = entry_id
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")


TIMED = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[2])
from pi_runtime.session import SessionManager  # imports are not part of the open
t0 = time.perf_counter()
m = SessionManager.open(sys.argv[1])
t1 = time.perf_counter()
ctx = m.build_session_context()
t2 = time.perf_counter()
n = len(ctx.messages)
t3 = time.perf_counter()
print(json.dumps({"open": t1 - t0, "context": t2 - t1, "validate": t3 - t2, "messages": n,
                  "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

TRACED = r"""
import json, sys, tracemalloc
sys.path.insert(0, sys.argv[2])
from pi_runtime.session import SessionManager
tracemalloc.start()
m = SessionManager.open(sys.argv[1])
ctx = m.build_session_context()
before_validate = tracemalloc.get_traced_memory()[1]
n = len(ctx.messages)
print(json.dumps({"peak_context_mb": before_validate / 2**20,
                  "peak_validated_mb": tracemalloc.get_traced_memory()[1] / 2**20}))
"""


def _run(code: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", code, str(path), str(ROOT)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the generated session here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "bench.jsonl"
        generate(path, args.messages)
        size_mb = path.stat().st_size / 2**20
        runs = [_run(TIMED, path) for _ in range(args.repeat)]
        r = min(runs, key=lambda x: x["open"] + x["context"])
        t = _run(TRACED, path)
    print(f"session: {args.messages} messages, {size_mb:.1f} MB")
    print(f"best of {args.repeat} runs, each in a fresh process:")
    print(f"open (read + parse + index):  {r['open'] * 1000:7.1f} ms")
    print(f"build_session_context():      {r['context'] * 1000:7.1f} ms   ({r['messages']} messages on the path)")
    print(f"  open + context:             {(r['open'] + r['context']) * 1000:7.1f} ms   (goal < 300 ms)")
    print(f"validate all into objects:    {r['validate'] * 1000:7.1f} ms   (first read of ctx.messages)")
    print(f"  open + context + validate:  {(r['open'] + r['context'] + r['validate']) * 1000:7.1f} ms")
    print(f"process max RSS (validated):  {r['max_rss_mb']:7.1f} MB   (goal < 150 MB)")
    print(f"peak Python allocations:      {t['peak_context_mb']:7.1f} MB after open + context, "
          f"{t['peak_validated_mb']:.1f} MB validated (tracemalloc)")

if __name__ == "__main__":
    main()
