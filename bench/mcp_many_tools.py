"""MCP with many tools: how long until the prompt goes out, and how long an abort takes.

A stdio server (``tests/mcp/servers/hostile_server.py``, raw JSON-RPC, starts in milliseconds)
offers N tools; against a loopback model server, for N = 1,000, 3,000 and 10,000:

  request   ``pi -p``: seconds from start until the model request arrives (every tool declared)
  wall      ``pi -p``: seconds until pi exited
  abort     ``pi --mode rpc``: prompt, wait for the request (the model then stalls), abort:
            seconds until the abort's response, and until ``agent_settled``
  eof gone  seconds from closing RPC stdin until pi exited and the server process is gone

The per-tool cost should stay flat from 1k to 3k (linear); registering tools one by one
rebuilt the system prompt per tool (quadratic: 10k took 38 s before the first request).

(The loopback server may print "Task was destroyed but it is pending" for the stalled reply it
was serving when it stopped; that is the bench's model server, not pi.)

Run: ``.venv/bin/python bench/mcp_many_tools.py [--runs N] [--sizes 1000,3000,10000]``.
Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from e2e_support import stalled_reply, text_reply  # noqa: E402
from rpc_client import RpcClient  # noqa: E402

from pi_runtime.testing.loopback import LoopbackServer  # noqa: E402
from pi_runtime.testing.mcp_servers import processes_with_env, wait_until  # noqa: E402

SERVER = ROOT / "tests" / "mcp" / "servers" / "hostile_server.py"
PI = str(Path(sys.executable).parent / "pi")


def setup(tmp: str, url: str, tools: int) -> dict[str, str]:
    agent, project = Path(tmp, "agent"), Path(tmp, "project")
    agent.mkdir()
    project.mkdir()
    models = {"providers": {"bench": {"baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "k",
                                      "models": [{"id": "bench-model"}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    server = {"command": sys.executable, "args": [str(SERVER), "--tools", str(tools)], "env": {"BENCH_MARK": tmp}}
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"many": server}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", HOME=tmp, PI_TEST_PROJECT=str(project))
    return env


def print_mode(tools: int) -> tuple[float, float]:
    """Seconds until the model request arrived, and until pi exited."""
    arrived: list[float] = []
    lock = threading.Lock()

    def responder(_request: Any) -> Any:
        with lock:
            arrived.append(time.monotonic())
        return text_reply("ok")

    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(responder) as server:
        env = setup(tmp, server.url, tools)
        began = time.monotonic()
        subprocess.run([PI, "-p", "hi", "--no-session", "--model", "bench/bench-model"], env=env,
                       cwd=env["PI_TEST_PROJECT"], capture_output=True, check=True, timeout=600)
        ended = time.monotonic()
        return arrived[0] - began, ended - began


def rpc_abort(tools: int) -> tuple[float, float, float]:
    """Seconds the abort's response and ``agent_settled`` took; seconds from EOF to pi and the server gone."""
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer() as server:
        env = setup(tmp, server.url, tools)
        server.push(stalled_reply())
        client = RpcClient(env, "--model", "bench/bench-model")
        try:
            start = client.mark()
            client.ok({"type": "prompt", "message": "hi"}, timeout=600)
            wait_until(lambda: bool(server.requests), 600)
            began = time.monotonic()
            client.ok({"type": "abort"}, timeout=600)
            answered = time.monotonic()
            client.wait_event("agent_settled", start, timeout=600)
            settled = time.monotonic()
            closing = time.monotonic()
            client.close(timeout=600)
            wait_until(lambda: not processes_with_env("BENCH_MARK", tmp), 60)
            gone = time.monotonic()
        finally:
            client.kill()
        return answered - began, settled - began, gone - closing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--sizes", default="1000,3000,10000")
    options = parser.parse_args()
    print(f"{'tools':>6}  {'request':>8}  {'wall':>7}  {'abort':>7}  {'settled':>8}  {'eof gone':>8}")
    requests: list[tuple[int, float]] = []
    for size in (int(s) for s in options.sizes.split(",")):
        printed = [print_mode(size) for _ in range(options.runs)]
        aborted = [rpc_abort(size) for _ in range(options.runs)]
        request = statistics.median(p[0] for p in printed)
        wall = statistics.median(p[1] for p in printed)
        abort, settled, gone = (statistics.median(a[i] for a in aborted) for i in range(3))
        requests.append((size, request))
        print(f"{size:>6}  {request:7.2f}s  {wall:6.2f}s  {abort:6.2f}s  {settled:7.2f}s  {gone:7.2f}s", flush=True)
    # Linear means a flat cost per tool: the slope between sizes, start-up taken out.
    for (small, t_small), (large, t_large) in zip(requests, requests[1:], strict=False):
        slope = (t_large - t_small) / (large - small) * 1000
        print(f"request time per 1,000 more tools, {small} -> {large}: {slope:.2f} s")

if __name__ == "__main__":
    main()
