"""MCP servers from extensions, end to end: the installed ``pi`` with extensions that call
``pi.register_mcp_server`` for PyPI's ``mcp-server-time``, the loopback model scripting the calls."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from e2e_support import MODEL, run_pi, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.mcp_servers import processes_with_env, server_executable, wait_until

MARKER = "PI_MCP_TEST_MARKER"


def time_config(marker: str, **extra: Any) -> dict[str, Any]:
    found = server_executable("mcp-server-time")
    if found is None:
        pytest.skip("mcp-server-time is not installed (pip install -e '.[test]')")
    return {"command": found, "args": ["--local-timezone", "UTC"], "env": {MARKER: marker}, **extra}


def write_extension(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(f"def extension(pi):\n{body}", encoding="utf-8")
    return str(path)


def registering(tmp_path: Path, name: str, server: str, config: dict[str, Any], more: str = "") -> str:
    return write_extension(tmp_path, name, f"    pi.register_mcp_server({server!r}, {config!r})\n{more}")


def write_mcp(env: dict[str, str], servers: dict[str, Any]) -> None:
    Path(env["PI_CODING_AGENT_DIR"], "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def declared(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.json().get("tools", [])]


def mcp_tools(request: Any) -> list[str]:
    return [name for name in declared(request) if name.startswith("mcp__") or "mcp_resource" in name]


def test_print_mode_calls_a_tool_of_a_server_an_extension_registered(loopback, env, tmp_path):
    marker = uuid.uuid4().hex
    ext = registering(tmp_path, "clock", "time", time_config(marker, exposure="direct"))
    bad = registering(tmp_path, "bad", "time machine", {"command": "x"})
    loopback.push(tool_reply("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"}), text_reply("Done."))
    result = run_pi(["-p", "time in Tokyo?", "--model", MODEL, "-e", ext, "-e", bad], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    assert "mcp__time__get_current_time" in declared(loopback.requests[0])  # no mcp.json anywhere
    answer = next(m for m in loopback.requests[1].json()["messages"] if m["role"] == "tool")["content"]
    assert json.loads(answer if isinstance(answer, str) else answer[0]["text"])["timezone"] == "Asia/Tokyo"
    # An invalid registration raised in the extension's load, named in its words.
    assert 'register_mcp_server: invalid server name "time machine"' in result.stderr
    assert processes_with_env(MARKER, marker) == []


def test_a_mcp_json_server_of_the_same_name_takes_precedence(loopback, env, tmp_path):
    from_file, from_extension = uuid.uuid4().hex, uuid.uuid4().hex
    write_mcp(env, {"time": time_config(from_file, exposure="hidden")})
    ext = registering(tmp_path, "shadowed", "time", time_config(from_extension, exposure="direct"))
    loopback.push(text_reply("No tools."))
    result = run_pi(["-p", "hi", "--model", MODEL, "-e", ext], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert mcp_tools(loopback.requests[0]) == []  # the file's hidden server, not the direct registration
    assert "extension error" not in result.stderr.lower() and "not connected" not in result.stderr


def test_unregistering_mid_session_stops_the_server_and_its_tools(loopback, env, tmp_path):
    marker = uuid.uuid4().hex
    ext = registering(tmp_path, "clock", "time", time_config(marker, exposure="direct"),
                      '    pi.register_command("drop-time", lambda args, ctx: pi.unregister_mcp_server("time"))\n')
    loopback.push(tool_reply("mcp__time__get_current_time", {"timezone": "UTC"}), text_reply("It is now."),
                  tool_reply("mcp__time__get_current_time", {"timezone": "UTC"}, call_id="call_2"),
                  text_reply("Gone."))
    client = RpcClient(env, "--model", MODEL, "-e", ext)
    try:
        start = client.mark()
        client.ok({"type": "prompt", "message": "time?"})
        end = client.wait_event("tool_execution_end", start, timeout=60, toolName="mcp__time__get_current_time")
        assert end["isError"] is False
        client.wait_event("agent_settled", start, timeout=30)
        assert processes_with_env(MARKER, marker)
        client.ok({"type": "prompt", "message": "/drop-time"})
        assert wait_until(lambda: not processes_with_env(MARKER, marker), 10), client.stderr_now()
        start = client.mark()
        client.ok({"type": "prompt", "message": "and now?"})
        end = client.wait_event("tool_execution_end", start, timeout=30)
        assert end["isError"] is True  # the model still asked; the tool is not there any more
        client.wait_event("agent_settled", start, timeout=30)
        assert mcp_tools(loopback.requests[-2]) == [] and mcp_tools(loopback.requests[-1]) == []
        assert client.close(timeout=20) == 0
    finally:
        client.kill()


def test_an_extension_that_owns_mcp_replaces_the_builtin_support(loopback, env, tmp_path):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": time_config(marker, exposure="direct")})
    ext = registering(tmp_path, "adapter", "clock", time_config(marker, exposure="direct"),
                      '    pi.register_command("mcp", lambda args, ctx: ctx.ui.notify("my own MCP"))\n')
    loopback.push(text_reply("Fine."))
    result = run_pi(["-p", "hi", "--model", MODEL, "-e", ext], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert mcp_tools(loopback.requests[0]) == []  # neither mcp.json's server nor the registration
    assert 'MCP server "clock" is not connected' in result.stderr
    assert processes_with_env(MARKER, marker) == []


def test_builtin_mcp_off_in_settings(loopback, env, tmp_path):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": time_config(marker, exposure="direct")})
    settings_file = Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    settings = json.loads(settings_file.read_text())
    settings_file.write_text(json.dumps({**settings, "extensions": ["-builtin:mcp"]}))
    loopback.push(text_reply("Fine."), text_reply("Again."))
    result = run_pi(["-p", "hi", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert mcp_tools(loopback.requests[0]) == []
    result = run_pi(["-p", "hi", "--model", MODEL, "-e", "builtin:mcp"], env, timeout=60)  # -e brings it back
    assert result.returncode == 0, result.stderr
    assert "mcp__time__get_current_time" in mcp_tools(loopback.requests[1])


def test_pi_mcp_list_does_not_load_extensions(env, tmp_path):
    folder = Path(env["PI_CODING_AGENT_DIR"], "extensions")
    folder.mkdir()
    (folder / "ghost.py").write_text(
        'def extension(pi):\n    pi.register_mcp_server("ghost", {"command": "ghost-server"})\n', encoding="utf-8")
    write_mcp(env, {})
    result = run_pi(["mcp", "list", "--json"], env, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "ghost" not in result.stdout
