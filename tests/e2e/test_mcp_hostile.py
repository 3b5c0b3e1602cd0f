"""MCP never wedges a session: the installed ``pi`` against misbehaving stdio servers
(``tests/mcp/servers/hostile_server.py``, raw JSON-RPC) and the loopback model.

Every wait here is on a condition (an RPC event, a file, a process gone); the deadlines are
generous for a loaded machine, the asserted figures are what the fix is about."""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from e2e_support import MODEL, run_pi, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.mcp_servers import processes_with_env, wait_until

SERVER = str(Path(__file__).resolve().parents[1] / "mcp" / "servers" / "hostile_server.py")
MARKER = "PI_MCP_HOSTILE_MARKER"


def hostile(env: dict[str, str], *flags: str, name: str = "h", **extra: Any) -> str:
    """Write an ``mcp.json`` with one hostile server (given ``flags``); returns its marker."""
    marker = uuid.uuid4().hex
    server = {"command": sys.executable, "args": [SERVER, *flags], "env": {MARKER: marker}, **extra}
    path = Path(env["PI_CODING_AGENT_DIR"], "mcp.json")
    path.write_text(json.dumps({"mcpServers": {name: server}}), encoding="utf-8")
    return marker


def test_an_abort_while_the_first_prompt_waits_for_a_server_runs_nothing(loopback, env, tmp_path):
    pid_file = tmp_path / "server.pid"
    marker = hostile(env, "--start-delay", "30", "--pid-file", str(pid_file))
    loopback.push(tool_reply("mcp__h__tool_0", {}), text_reply("done"))
    client = RpcClient(env, "--model", MODEL)
    try:
        start = client.mark()
        client.ok({"type": "prompt", "message": "use the tool"})
        assert wait_until(pid_file.exists, 30), client.stderr_now()  # the server is up, still initializing
        began = time.monotonic()
        client.ok({"type": "abort"}, timeout=10)
        settled = client.wait_event("agent_settled", start, timeout=10)
        assert time.monotonic() - began < 3
        assert settled["aborted"] is True
        assert loopback.requests == []
        assert not [e for e in client.events(start) if e["type"] == "tool_execution_start"]
        # The prompt is kept in the session as an aborted turn, as an abort before the first token is.
        messages = [m for m in client.ok({"type": "get_messages"})["messages"] if m["role"] != "system"]
        assert [m["role"] for m in messages] == ["user", "assistant"]
        assert messages[1]["stopReason"] == "aborted"
        assert client.close(timeout=20) == 0
    finally:
        client.kill()
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)
