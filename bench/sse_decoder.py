"""Benchmark: the SSE decoder alone, on the shapes providers meet.

- ``tokens``: 20,000 one-line ``data:`` events (an OpenAI-style token chunk each), one event
  per network chunk, which is how servers stream answers (the fast path);
- ``packed``: the same stream cut into 16 KiB chunks (a proxy that buffers), so events and
  lines straddle chunk ends;
- ``huge``: one event of ``--huge-mb`` MB of data fed in 16 KiB chunks (an image or a giant
  tool argument in one event); must grow linearly with the size.

Run: ``.venv/bin/python bench/sse_decoder.py [--huge-mb 50] [--runs 5]``. Prints the best CPU
time of each case.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_runtime.ai.sse import SSEDecoder


def token_chunks(count: int) -> list[bytes]:
    chunks = []
    for i in range(count):
        event = {"id": "chatcmpl-bench", "object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": {"content": f"w{i % 97} "}, "finish_reason": None}]}
        chunks.append(b"data: " + json.dumps(event).encode() + b"\n\n")
    return chunks


def repack(chunks: list[bytes], size: int) -> list[bytes]:
    whole = b"".join(chunks)
    return [whole[i:i + size] for i in range(0, len(whole), size)]


def huge_chunks(megabytes: int, size: int = 16384) -> list[bytes]:
    body = b"data: " + b"x" * (megabytes * 1_000_000) + b"\n\n"
    return [body[i:i + size] for i in range(0, len(body), size)]


def run(chunks: list[bytes]) -> tuple[float, int]:
    decoder = SSEDecoder(max_event_size=1 << 30) if "max_event_size" in SSEDecoder.__init__.__code__.co_varnames \
        else SSEDecoder()
    start = time.process_time()
    count = 0
    for chunk in chunks:
        count += len(decoder.feed(chunk))
    count += len(decoder.flush())
    return time.process_time() - start, count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--huge-mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tokens = token_chunks(20_000)
    cases = {"tokens (20k events, 1 per chunk)": tokens, "packed (20k events, 16 KiB chunks)": repack(tokens, 16384)}
    for name, chunks in cases.items():
        best = min(run(chunks)[0] for _ in range(args.runs))
        print(f"{name}: {best * 1000:.1f} ms CPU")
    chunks = huge_chunks(args.huge_mb)
    seconds, count = run(chunks)
    print(f"huge ({args.huge_mb} MB event, 16 KiB chunks): {seconds:.2f} s CPU, {count} event(s)")


if __name__ == "__main__":
    main()
