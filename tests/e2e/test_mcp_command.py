"""``/mcp`` outside the app, through the installed ``pi``: print mode prints the servers' status
and RPC mode runs it as a command; the model is never asked (mcp.md: "Outside the interactive
TUI, /mcp prints server status"). Real servers: ``mcp-server-time`` from PyPI."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from e2e_support import MODEL, run_pi
from rpc_client import RpcClient

from pi_runtime.testing.mcp_servers import processes_with_env, server_executable, wait_until

MARKER = "PI_MCP_COMMAND_TEST_MARKER"


def write_mcp(env: dict[str, str], servers: dict[str, Any]) -> None:
    folder = Path(env["PI_CODING_AGENT_DIR"])
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def time_server(marker: str) -> dict[str, Any]:
    found = server_executable("mcp-server-time")
    if found is None:
        pytest.skip("mcp-server-time is not installed (pip install -e '.[test]')")
    return {"command": found, "args": ["--local-timezone", "UTC"], "env": {MARKER: marker}}


def test_print_mode_mcp_prints_the_servers_and_asks_no_model(loopback, env):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": time_server(marker), "broken": {"command": "/nonexistent/mcp-server"}})
    result = run_pi(["-p", "/mcp", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    # Servers that need attention first, as in the app and `pi mcp list`.
    assert lines[0].startswith("broken: failed (")
    assert "time: connected, 2 tools (codemode, global)" in lines
    assert any(line.strip().startswith("tools: ") and "get_current_time" in line for line in lines)
    assert loopback.requests == []  # "/mcp" never went to the model
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)


def test_print_mode_mcp_without_servers_says_how_to_add_them(loopback, env):
    result = run_pi(["-p", "/mcp", "--model", MODEL], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("No MCP servers configured. Add them to ")
    assert "mcp.json" in result.stdout and loopback.requests == []


def test_print_mode_mcp_reconnect_of_an_unknown_server_is_an_error_on_stderr(loopback, env):
    write_mcp(env, {"time": time_server(uuid.uuid4().hex)})
    result = run_pi(["-p", "/mcp reconnect nosuch", "--model", MODEL], env, timeout=60)
    assert result.stdout == "" and 'No enabled MCP server "nosuch"' in result.stderr
    assert loopback.requests == []


def test_rpc_mode_runs_mcp_as_a_command(loopback, env):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": time_server(marker)})
    client = RpcClient(env, "--model", MODEL)
    try:
        start = client.mark()
        assert client.ok({"type": "prompt", "message": "/mcp"}, timeout=30) == {"disposition": "handled"}
        note = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "notify",
                           timeout=30, start=start)
        assert "time: connected, 2 tools" in note["message"] and note["notifyType"] == "info"
        start = client.mark()
        client.ok({"type": "prompt", "message": "/mcp reconnect time"}, timeout=30)
        note = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "notify",
                           timeout=30, start=start)
        assert note["message"] == "Reconnected time: 2 tools"
        commands = client.ok({"type": "get_commands"})["commands"]
        assert any(c["name"] == "mcp" for c in commands)
        assert loopback.requests == []
        assert client.close(timeout=20) == 0
    finally:
        client.kill()
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)


def test_rpc_mode_mcp_without_servers_is_answered_not_prompted(loopback, env):
    client = RpcClient(env, "--model", MODEL)
    try:
        response = client.request({"type": "prompt", "message": "/mcp"})
        # As Pi's built-in MCP extension answers it: a notification, and the prompt handled.
        assert response["success"] is True and response["data"] == {"disposition": "handled"}
        note = client.wait_event("extension_ui_request", method="notify")
        assert note["message"].startswith("No MCP servers configured") and note["notifyType"] == "info"
        assert loopback.requests == []
        assert client.close() == 0
    finally:
        client.kill()
