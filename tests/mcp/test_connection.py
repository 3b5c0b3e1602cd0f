"""One connection to a real server (mcp-server-time): a dropped server is shown and reconnected,
a tool list change is picked up, closing leaves no process behind, and a reconnect opens a new
connection even while one is being opened."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from pathlib import Path

import pytest

from pi_runtime.mcp.config import McpServerEntry
from pi_runtime.mcp.connection import McpConnection, McpConnectionError
from pi_runtime.mcp.manager import McpManager
from pi_runtime.testing.mcp_servers import processes_with_env, server_executable, wait_until
from pi_runtime.testing.waiting import eventually

MARKER = "PI_MCP_TEST_MARKER"


def time_entry(marker: str) -> McpServerEntry:
    command = server_executable("mcp-server-time")
    if command is None:
        pytest.skip("mcp-server-time is not installed")
    return McpServerEntry("time", {"command": command, "env": {MARKER: marker}}, "test", "global")


async def test_a_dropped_server_is_shown_then_reconnected_on_the_next_call(tmp_path):
    marker = uuid.uuid4().hex
    states: list[str] = []
    connection = McpConnection(time_entry(marker), str(tmp_path), on_change=lambda c: states.append(c.state))
    try:
        client = await connection.client()
        assert [t["name"] for t in connection.tools] == ["get_current_time", "convert_time"]
        result = await client.call_tool("get_current_time", {"timezone": "UTC"})
        assert '"timezone": "UTC"' in result.content[0].text
        [pid] = processes_with_env(MARKER, marker)
        os.kill(pid, signal.SIGKILL)
        assert wait_until(lambda: not processes_with_env(MARKER, marker), 5)

        async def call(c):
            return await c.call_tool("get_current_time", {"timezone": "UTC"})

        with pytest.raises(McpConnectionError):
            await connection.request(call)
        assert connection.state == "disconnected"
        result = await connection.request(call)  # reconnects: a new server process
        assert connection.state == "connected" and not result.is_error
        assert len(processes_with_env(MARKER, marker)) == 1
        assert states[:2] == ["connecting", "connected"] and "disconnected" in states
    finally:
        await connection.close()
    assert processes_with_env(MARKER, marker) == []
    assert connection.state == "closed"


async def test_a_server_that_cannot_start_fails_with_the_reason(tmp_path):
    entry = McpServerEntry("gone", {"command": "/nonexistent/server"}, "test", "global")
    connection = McpConnection(entry, str(tmp_path))
    with pytest.raises(McpConnectionError, match="No such file or directory"):
        await connection.client()
    assert connection.state == "failed"
    await connection.close()


async def test_stderr_of_a_server_that_dies_during_start_is_in_the_error(tmp_path):
    entry = McpServerEntry("noisy", {"command": "sh", "args": ["-c", "echo 'missing API key' >&2; exit 3"]}, "test", "global")
    connection = McpConnection(entry, str(tmp_path))
    with pytest.raises(McpConnectionError):
        await connection.client()
    assert connection.error is not None and "missing API key" in connection.error
    await connection.close()


async def test_a_reconnect_during_the_start_up_connect_opens_a_new_connection(tmp_path):
    """``/mcp logout`` right after start-up reconnects while the session's first connect (made with
    the credentials being deleted) is still under way: the reconnect must not just join that one."""
    server = Path(__file__).parent / "servers" / "hostile_server.py"
    gate, starts = tmp_path / "gate", tmp_path / "starts"
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"slow": {
        "command": sys.executable, "args": [str(server), "--gate", str(gate), "--starts-file", str(starts)]}}}))
    manager = McpManager.load(str(tmp_path), agent, project_trusted=False)
    try:
        manager.start()
        assert await eventually(starts.exists), "the first server never started"
        reconnect = asyncio.ensure_future(manager.reconnect("slow"))
        gate.touch()  # the first connect completes only now, after the reconnect was asked for
        connection = await reconnect
        assert connection.state == "connected"
        assert len(starts.read_text().split()) == 2  # a second server: the reconnect opened its own
    finally:
        await manager.close()


async def test_closing_during_a_connect_stops_the_server_without_waiting_for_the_handshake(tmp_path):
    """pi's shutdown gives the MCP servers a few seconds: a connect still under way (a slow server,
    the SDK still loading) is cut short and its process group stopped, not waited for."""
    marker = uuid.uuid4().hex
    server = Path(__file__).parent / "servers" / "hostile_server.py"
    starts = tmp_path / "starts"
    entry = McpServerEntry("slow", {
        "command": sys.executable, "args": [str(server), "--gate", str(tmp_path / "never"), "--starts-file", str(starts)],
        "env": {MARKER: marker}, "timeout": 60}, "test", "global")
    connection = McpConnection(entry, str(tmp_path))
    connecting = asyncio.ensure_future(connection.client())
    assert await eventually(starts.exists), "the server never started"
    closing = asyncio.ensure_future(connection.close())
    # The handshake never ends on its own (the gate stays shut, the request timeout is a minute).
    assert await eventually(closing.done, timeout=20), "close() waited for the connect"
    with pytest.raises(McpConnectionError, match="shut down"):
        await connecting
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)
    assert connection.state == "closed"
