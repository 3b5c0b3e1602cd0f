"""What MCP costs at start-up: ``pi -p`` without servers, with one stdio server, and the SDK import.

Cases (median wall time and largest peak RSS of a few runs, against a loopback model server):
  no mcp.json            the floor every run pays (nothing MCP is imported)
  mcp-server-time        one stdio server from PyPI: the first prompt waits for it to connect
  mcp SDK import         ``import`` of the SDK parts pi uses, in a fresh interpreter

Run: ``.venv/bin/python bench/mcp_startup.py [--runs N]``. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_bench import bench_home, measure, responder

from pi_runtime.testing.loopback import LoopbackServer
from pi_runtime.testing.mcp_servers import server_executable


def sdk_import_seconds() -> float:
    code = ("import time; t = time.perf_counter(); from pi_runtime.mcp.connection import _load_sdk; _load_sdk(); "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    pi = [str(Path(sys.executable).parent / "pi")]
    time_server = server_executable("mcp-server-time")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(responder) as server:
        agent, project, env = bench_home(tmp, server.url)
        args = [*pi, "-p", "say hi", "--no-session", "--model", "bench/bench-model"]
        cases: list[tuple[str, dict | None]] = [("no mcp.json", None)]
        if time_server:
            cases.append(("mcp-server-time (stdio)", {"mcpServers": {"time": {"command": time_server}}}))
        for label, config in cases:
            path = agent / "mcp.json"
            if config is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(json.dumps(config))
            walls, peak = [], 0
            for _ in range(runs):
                wall, rss, _code, _cpu = measure(args, env, str(project))
                walls.append(wall)
                peak = max(peak, rss)
            rows.append([f'pi -p "say hi", {label}', f"{statistics.median(walls):6.3f} s  {peak:4d} MB"])
    imports = [sdk_import_seconds() for _ in range(runs)]
    rows.append(["mcp SDK import (fresh interpreter)", f"{statistics.median(imports):6.3f} s"])
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label.ljust(width)}  {value}")


if __name__ == "__main__":
    main()
