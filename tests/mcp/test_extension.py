"""The built-in MCP extension in an SDK session: tools registered as servers connect, the first
prompt sees them, /reload (the runner's reload) stops the old servers and reads mcp.json again,
and disposing the session stops every server."""

from __future__ import annotations

import json
import uuid

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text, scripted_tool_call
from pi_runtime.frontend import mcp_manager_for
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_runtime.testing.mcp_servers import processes_with_env, server_executable, wait_until

MARKER = "PI_MCP_TEST_MARKER"


def write_servers(agent, servers: dict) -> None:
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def test_tools_appear_reload_rereads_mcp_json_and_dispose_stops_servers(tmp_path, monkeypatch):
    time_server = server_executable("mcp-server-time")
    if time_server is None:
        pytest.skip("mcp-server-time is not installed")
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    # The session's agent_dir wins over the process default (an SDK session in another dir).
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "elsewhere"))
    first, second = uuid.uuid4().hex, uuid.uuid4().hex
    write_servers(agent, {"time": {"command": time_server, "env": {MARKER: first}, "exposure": "direct"}})
    provider = ScriptedProvider(f"mcp-ext-{uuid.uuid4().hex[:6]}")
    provider.push(scripted_tool_call("mcp__time__get_current_time", {"timezone": "UTC"}), scripted_text("ok"))
    session = create_agent_session(cwd=str(project), agent_dir=str(agent), model=provider.model(),
                                   session_manager=SessionManager.in_memory(),
                                   settings=SettingsManager.in_memory(), mcp=True)
    runner = session.extension_runner
    assert runner is not None and [e.path for e in runner.extensions] == [
        "builtin:tool-search", "builtin:codemode", "builtin:mcp"]
    await runner.start()
    await session.prompt("time?")
    context, _options = provider.requests[0]
    assert "mcp__time__get_current_time" in [t.name for t in context.tools]
    assert '"timezone": "UTC"' in session.messages[-2].content[0].text
    manager = mcp_manager_for(session)
    assert manager is not None and manager.connections["time"].state == "connected"

    write_servers(agent, {"clock": {"command": time_server, "env": {MARKER: second}, "exposure": "direct"}})
    await runner.reload()
    assert wait_until(lambda: not processes_with_env(MARKER, first), 10)  # the old server is gone
    reloaded = mcp_manager_for(session)
    assert reloaded is not None and reloaded is not manager and list(reloaded.connections) == ["clock"]
    await reloaded.wait_connected(30)
    names = [t.name for t in session.agent.state.tools]
    assert "mcp__clock__get_current_time" in names and "mcp__time__get_current_time" not in names

    await session.dispose()
    assert wait_until(lambda: not processes_with_env(MARKER, second), 10)
