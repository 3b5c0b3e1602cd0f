"""Benchmark: a 20,000-token answer streamed through the openai-completions provider.

The LoopbackServer serves 20,000 SSE chunks of ~4 characters each, with no delays, as one
chunked HTTP response; the client consumes it through ``pi_runtime.ai.stream.stream`` and
counts events. Two set-ups:

- in-process: the server runs in a thread of this process, so the CPU figure includes the
  server's work too;
- separate process: the server runs in a child process (multiprocessing), so the CPU figure
  of this process is the client's alone (HTTP parsing, SSE decoding, JSON, builder, events).

Run: ``.venv/bin/python bench/stream_20k.py [--tokens N] [--runs R]``. Prints figures only;
the goal is client CPU under 0.5 s for 20k tokens.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import Context, Model, UserMessage
from pi_runtime.testing.loopback import LoopbackServer, Reply

WORDS = ["the ", "fox ", "runs", " up ", "and ", "down", " hi ", "ok, "]


def answer_reply(tokens: int) -> Reply:
    events: list[object] = []
    for i in range(tokens):
        events.append({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench",
                       "choices": [{"index": 0, "delta": {"content": WORDS[i % len(WORDS)]},
                                    "finish_reason": None}]})
    events.append({"id": "chatcmpl-bench", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events.append({"id": "chatcmpl-bench", "choices": [],
                   "usage": {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": tokens + 10}})
    events.append("[DONE]")
    return Reply.sse(events)


def bench_model(url: str) -> Model:
    return Model(id="bench", api="openai-completions", provider="bench-local", base_url=url + "/v1")


async def consume(url: str) -> tuple[float, float, int, int]:
    """One request; returns (wall s, process CPU s, events, characters of text)."""
    context = Context(messages=[UserMessage(content="write a lot")])
    t0, c0 = time.perf_counter(), time.process_time()
    s = stream(bench_model(url), context, StreamOptions())
    count = 0
    async for _ in s:
        count += 1
    message = await s.result()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if message.stop_reason != "stop":
        raise SystemExit(f"benchmark stream failed: {message.error_message}")
    return wall, cpu, count, len(message.text())


async def run_series(url: str, runs: int) -> list[tuple[float, float, int, int]]:
    await consume(url)  # warm-up: imports, HTTP client, connection
    return [await consume(url) for _ in range(runs)]


def report(label: str, results: list[tuple[float, float, int, int]]) -> None:
    walls = [r[0] for r in results]
    cpus = [r[1] for r in results]
    events, chars = results[0][2], results[0][3]
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(f"{label}")
    print(f"  events per run      {events}  ({chars} characters of text)")
    print(f"  wall time           median {wall:.3f} s   (min {min(walls):.3f})")
    print(f"  process CPU time    median {cpu:.3f} s   (min {min(cpus):.3f})")
    print(f"  events/s            {events / wall:,.0f}")


def serve_in_child(tokens: int, count: int, port_queue: mp.Queue[int], stop: mp.Event) -> None:
    server = LoopbackServer().start()
    for _ in range(count):
        server.push(answer_reply(tokens))
    port_queue.put(server.port)
    stop.wait(300)
    server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"openai-completions, {args.tokens} SSE chunks of ~4 chars, {args.runs} runs after a warm-up\n")

    with LoopbackServer() as server:
        for _ in range(args.runs + 1):
            server.push(answer_reply(args.tokens))
        report("server in-process (thread; CPU includes the server)",
               asyncio.run(run_series(server.url, args.runs)))

    ctx = mp.get_context("spawn")
    port_queue: mp.Queue[int] = ctx.Queue()
    stop = ctx.Event()
    child = ctx.Process(target=serve_in_child, args=(args.tokens, args.runs + 1, port_queue, stop), daemon=True)
    child.start()
    try:
        port = port_queue.get(timeout=60)
        report("\nserver in a separate process (CPU = client only)",
               asyncio.run(run_series(f"http://127.0.0.1:{port}", args.runs)))
    finally:
        stop.set()
        child.join(10)
    print("\ngoal: client CPU < 0.5 s for 20k tokens")


if __name__ == "__main__":
    main()
