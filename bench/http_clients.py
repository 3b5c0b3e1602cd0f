"""The two HTTP clients side by side: the lean ``_fasthttp`` and httpx.

Figures (medians; a loopback server in a child process, so this process's CPU is the client's):
  import        seconds to import each client in a fresh interpreter (asyncio already loaded)
  first byte    seconds from ``post_sse`` to the first SSE event of a small reply (keep-alive)
  20k stream    wall and client CPU seconds for a 20,000-event SSE response
  pi -p         wall seconds of a whole ``pi -p`` run against the loopback server

Run: ``.venv/bin/python bench/http_clients.py [--runs N]``. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers._http import post_sse
from pi_runtime.testing.loopback import LoopbackServer, Reply

EVENTS = 20_000


def _chunk(text: str | None = None, finish: str | None = None) -> dict[str, object]:
    delta = {"content": text} if text is not None else {}
    return {"id": "c", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _responder(request: object) -> Reply:
    body = request.json() or {}  # type: ignore[attr-defined]  # a loopback RecordedRequest
    size = EVENTS if body.get("big") or "big" in json.dumps(body.get("messages", [])) else 3
    return Reply.sse([*[_chunk(f"w{i} ") for i in range(size)], _chunk(finish="stop"), "[DONE]"])


def _serve(port_out: object, stop: object) -> None:
    with LoopbackServer(_responder) as server:
        port_out.put(server.port)  # type: ignore[attr-defined]  # a multiprocessing.Queue
        stop.wait()  # type: ignore[attr-defined]  # a multiprocessing.Event


def _import_seconds(module: str) -> float:
    code = f"import asyncio, time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out)


async def _first_byte(url: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        async for _event in post_sse(url, {"content-type": "application/json"}, {"q": 1}, StreamOptions()):
            times.append(time.perf_counter() - start)
            break
    return statistics.median(times[1:] or times)  # the first request also opens the connection


async def _big_stream(url: str) -> tuple[float, float, int]:
    start, cpu = time.perf_counter(), time.process_time()
    count = 0
    async for _event in post_sse(url, {"content-type": "application/json"}, {"big": True}, StreamOptions()):
        count += 1
    return time.perf_counter() - start, time.process_time() - cpu, count


def _pi_wall(port: int, runs: int, client: str) -> float:
    pi = str(Path(sys.executable).parent / "pi")
    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp, "agent")
        agent.mkdir()
        models = {"providers": {"bench": {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions",
                                          "apiKey": "bench-key", "models": [{"id": "bench-model"}]}}}
        (agent / "models.json").write_text(json.dumps(models))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", HOME=tmp)
        if client == "httpx":
            env["PI_HTTP_CLIENT"] = "httpx"
        walls = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([pi, "-p", "say hi", "--no-session", "--model", "bench/bench-model"], env=env,
                           cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True, check=True)
            walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    ports: mp.Queue[int] = mp.Queue()
    stop = mp.Event()
    proc = mp.Process(target=_serve, args=(ports, stop), daemon=True)
    proc.start()
    port = ports.get(timeout=10)
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    rows = []
    try:
        for client in ("fast", "httpx"):
            if client == "httpx":
                os.environ["PI_HTTP_CLIENT"] = "httpx"
            else:
                os.environ.pop("PI_HTTP_CLIENT", None)
            module = "pi_runtime.ai.providers._fasthttp" if client == "fast" else "httpx"
            imports = statistics.median(_import_seconds(module) for _ in range(runs))
            first = asyncio.run(_first_byte(url, 20 * runs))
            streams = [asyncio.run(_big_stream(url)) for _ in range(runs)]
            wall = statistics.median(s[0] for s in streams)
            cpu = statistics.median(s[1] for s in streams)
            pi = _pi_wall(port, runs, client)
            rows.append([client, f"{imports * 1000:.1f} ms", f"{first * 1000:.2f} ms",
                         f"{wall:.3f} s / {cpu:.3f} s CPU ({streams[0][2]} events)", f"{pi:.3f} s"])
    finally:
        os.environ.pop("PI_HTTP_CLIENT", None)
        stop.set()
        proc.join(5)
    header = ["client", "import", "first byte", "20k stream (wall / CPU)", "pi -p wall"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
