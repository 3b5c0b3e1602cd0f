"""The HTTP client providers use (``_fasthttp``) next to httpx, which pi used to fall back to.

Figures (medians; a loopback server in a child process, so this process's CPU is the client's):
  import        seconds to import each client in a fresh interpreter (asyncio already loaded)
  first byte    seconds from sending a POST to its first SSE event (keep-alive connection)
  20k stream    wall and client CPU seconds for a 20,000-event SSE response, decoded to events

The httpx row streams through ``httpx.AsyncClient.stream`` and the same SSE decoder, as pi's
httpx path did; it is skipped when httpx is not installed (it is no dependency of pi).

Run: ``.venv/bin/python bench/http_clients.py [--runs N]``. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers._http import post_sse
from pi_runtime.ai.sse import SSEDecoder
from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply

EVENTS = 20_000
HEADERS = {"content-type": "application/json"}


def _chunk(text: str | None = None, finish: str | None = None) -> dict[str, object]:
    delta = {"content": text} if text is not None else {}
    return {"id": "c", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _responder(request: RecordedRequest) -> Reply:
    size = EVENTS if (request.json() or {}).get("big") else 3
    return Reply.sse([*[_chunk(f"w{i} ") for i in range(size)], _chunk(finish="stop"), "[DONE]"])


def _serve(port_out: Any, stop: Any) -> None:
    with LoopbackServer(_responder) as server:
        port_out.put(server.port)
        stop.wait()


def _import_seconds(module: str) -> float:
    code = f"import asyncio, time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out)


Client = Callable[[str, dict[str, Any]], AsyncIterator[Any]]


def fast_client() -> Client:
    def send(url: str, body: dict[str, Any]) -> AsyncIterator[Any]:
        return post_sse(url, HEADERS, body, StreamOptions())

    return send


def httpx_client() -> Client:
    import httpx

    client = httpx.AsyncClient(timeout=httpx.Timeout(600.0, connect=30.0))

    async def send(url: str, body: dict[str, Any]) -> AsyncIterator[Any]:
        payload = json.dumps(body, separators=(",", ":")).encode()
        async with client.stream("POST", url, headers=HEADERS, content=payload) as response:
            decoder = SSEDecoder()
            async for chunk in response.aiter_raw():
                for event in decoder.feed(chunk):
                    yield event
            for event in decoder.flush():
                yield event

    return send


async def _measure(make: Callable[[], Client], url: str, runs: int) -> tuple[float, float, float, int]:
    send = make()
    firsts = []
    for _ in range(20 * runs):
        start = time.perf_counter()
        async for _event in send(url, {"q": 1}):
            firsts.append(time.perf_counter() - start)
            break
    walls, cpus, count = [], [], 0
    for _ in range(runs):
        start, cpu, count = time.perf_counter(), time.process_time(), 0
        async for _event in send(url, {"big": True}):
            count += 1
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    # The first request also opens the connection.
    return statistics.median(firsts[1:]), statistics.median(walls), statistics.median(cpus), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    ports: Any = mp.Queue()
    stop = mp.Event()
    proc = mp.Process(target=_serve, args=(ports, stop), daemon=True)
    proc.start()
    url = f"http://127.0.0.1:{ports.get(timeout=10)}/v1/chat/completions"
    clients: list[tuple[str, str, Callable[[], Client]]] = [("_fasthttp", "pi_runtime.ai.providers._fasthttp", fast_client)]
    try:
        import httpx  # noqa: F401 - only to know whether the comparison can run
    except ImportError:
        print("httpx is not installed: only the lean client is measured")
    else:
        clients.append(("httpx", "httpx", httpx_client))
    rows = []
    try:
        for name, module, make in clients:
            imports = statistics.median(_import_seconds(module) for _ in range(runs))
            first, wall, cpu, count = asyncio.run(_measure(make, url, runs))
            rows.append([name, f"{imports * 1000:.1f} ms", f"{first * 1000:.2f} ms",
                         f"{wall:.3f} s / {cpu:.3f} s CPU ({count} events)"])
    finally:
        stop.set()
        proc.join(5)
    header = ["client", "import", "first byte", "20k stream (wall / CPU)"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
