"""MCP end to end: the installed ``pi`` against real MCP servers from PyPI (``mcp-server-time``,
``mcp-server-git``) and an in-process streamable-HTTP server, with the loopback model scripting the
tool calls. Also proves that no server process outlives pi (``-p``, RPC EOF, SIGTERM, SIGKILL)."""

from __future__ import annotations

import json
import signal
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from e2e_support import MODEL, run_pi, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.mcp_servers import HttpMcpServer, processes_with_env, server_executable, wait_until

MARKER = "PI_MCP_TEST_MARKER"


def executable(name: str) -> str:
    found = server_executable(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def write_mcp(env: dict[str, str], servers: dict[str, Any], *, project: bool = False) -> Path:
    folder = Path(env["PI_TEST_PROJECT"], ".pi") if project else Path(env["PI_CODING_AGENT_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def time_server(marker: str, **extra: Any) -> dict[str, Any]:
    """The time server with ``direct`` exposure (tools declared to the model) unless ``extra`` says otherwise."""
    return {"command": executable("mcp-server-time"), "args": ["--local-timezone", "UTC"],
            "env": {MARKER: marker}, "exposure": "direct", **extra}


def wrapped_time_server(marker: str) -> dict[str, Any]:
    """The time server behind a shell wrapper that also leaves a child of its own running (as
    ``npx``/``uvx`` wrappers do): only stopping the whole process group ends that child."""
    script = f"sleep 300 </dev/null >/dev/null 2>&1 & exec {executable('mcp-server-time')}"
    return {"command": "sh", "args": ["-c", script], "env": {MARKER: marker}, "exposure": "direct"}


def declared_tools(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.json().get("tools", [])]


def tool_messages(request: Any) -> list[str]:
    out = []
    for message in request.json()["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return out


def test_print_mode_calls_a_stdio_server_tool_and_leaves_no_server_behind(loopback, env):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": time_server(marker), "quiet": time_server(marker, exposure="hidden")})
    loopback.push(tool_reply("mcp__time__get_current_time", {"timezone": "Europe/Paris"}), text_reply("It is late."))
    result = run_pi(["-p", "what time is it in Paris?", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is late.\n"
    first, second = loopback.requests
    # direct tools are declared; hidden tools never are.
    assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(declared_tools(first))
    assert not any(name.startswith("mcp__quiet__") for name in declared_tools(first))
    [answer] = tool_messages(second)
    assert json.loads(answer)["timezone"] == "Europe/Paris"
    assert "datetime" in json.loads(answer)
    assert processes_with_env(MARKER, marker) == []


def test_git_server_reports_on_a_real_repository(loopback, env, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "notes.txt").write_text("draft\n")
    write_mcp(env, {"git": {"command": executable("mcp-server-git"), "args": ["--repository", str(repo)],
                            "exposure": "direct"}})
    loopback.push(tool_reply("mcp__git__git_status", {"repo_path": str(repo)}), text_reply("One untracked file."))
    result = run_pi(["-p", "status?", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    [status] = tool_messages(loopback.requests[1])
    assert "notes.txt" in status


def test_streamable_http_server_tools_resources_headers_and_errors(loopback, env):
    env = {**env, "WEB_TOKEN": "s3cret"}
    with HttpMcpServer() as server:
        write_mcp(env, {"web": {"url": server.url, "headers": {"Authorization": "Bearer ${WEB_TOKEN}"},
                                "exposure": "direct"}})
        loopback.push(
            tool_reply("mcp__web__add", {"a": 2, "b": 40}, call_id="c1"),
            tool_reply("list_mcp_resources", {}, call_id="c2"),
            tool_reply("read_mcp_resource", {"server": "web", "uri": "note://hello"}, call_id="c3"),
            tool_reply("list_mcp_resource_templates", {"server": "web"}, call_id="c4"),
            tool_reply("mcp__web__explode", {}, call_id="c5"),
            text_reply("All done."),
        )
        result = run_pi(["-p", "use the web server", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "All done.\n"
    assert {"mcp__web__add", "list_mcp_resources", "read_mcp_resource"} <= set(declared_tools(loopback.requests[0]))
    added, listed, read, templates, exploded = tool_messages(loopback.requests[-1])
    assert added == "42"
    assert json.loads(listed)["resources"] == [
        {"server": "web", "uri": "note://hello", "name": "hello", "description": "A greeting", "mimeType": "text/plain"}]
    assert read == "Hello from a resource"
    assert json.loads(templates)["resourceTemplates"][0]["uriTemplate"] == "note://{name}/shout"
    assert "kaboom" in exploded
    last = loopback.requests[-1].json()["messages"]
    assert [m for m in last if m["role"] == "tool"][-1]["content"]  # the error reached the model
    assert server.headers and all(h.get("authorization") == "Bearer s3cret" for h in server.headers)


def test_print_mode_stops_the_whole_process_group_of_a_wrapped_server(loopback, env):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": wrapped_time_server(marker)})
    loopback.push(tool_reply("mcp__time__get_current_time", {"timezone": "UTC"}), text_reply("Noon."))
    result = run_pi(["-p", "time?", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert '"timezone": "UTC"' in tool_messages(loopback.requests[1])[0]
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10), processes_with_env(MARKER, marker)


def test_rpc_mode_uses_the_server_and_eof_stops_it(loopback, env):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": wrapped_time_server(marker)})
    loopback.push(tool_reply("mcp__time__convert_time",
                             {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
                  text_reply("Nine in the evening."))
    client = RpcClient(env, "--model", MODEL)
    try:
        start = client.mark()
        client.ok({"type": "prompt", "message": "noon UTC in Tokyo?"})
        end = client.wait_event("tool_execution_end", start, timeout=60, toolName="mcp__time__convert_time")
        assert end["isError"] is False
        assert "Asia/Tokyo" in end["result"]["content"][0]["text"]
        assert end["result"]["details"] == {"server": "time", "tool": "convert_time"}
        # What the server sent, as Pi puts it on the wire: no field the Python SDK fills in itself.
        assert set(end["result"]["structuredContent"]) == {"content", "structuredContent", "isError"}
        client.wait_event("agent_settled", start, timeout=30)
        assert processes_with_env(MARKER, marker)  # the server runs while the session does
        assert client.close(timeout=20) == 0
    finally:
        client.kill()
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_pi_leaves_no_server_behind(env, sig):
    marker = uuid.uuid4().hex
    # SIGTERM: pi stops the whole group, a wrapper's child included. SIGKILL: pi cannot act; the
    # server itself sees its stdin close and exits (a wrapper's detached child would survive).
    write_mcp(env, {"time": wrapped_time_server(marker) if sig == signal.SIGTERM else time_server(marker)})
    client = RpcClient(env, "--model", MODEL)
    try:
        assert wait_until(lambda: processes_with_env(MARKER, marker), 30), client.stderr_now()
        client.proc.send_signal(sig)
        code = client.proc.wait(20)
        assert code in (128 + sig, -sig)
    finally:
        client.kill()
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)


def test_a_failing_server_is_reported_once_and_the_prompt_still_runs(loopback, env):
    # A server with declared (direct) tools: the first prompt waits for it, so its failure is known.
    write_mcp(env, {"broken": {"command": "/nonexistent/mcp-server", "exposure": "direct"}})
    loopback.push(text_reply("Fine."))
    result = run_pi(["-p", "hi", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fine.\n"
    assert result.stderr.count('MCP server "broken" failed to connect') == 1, result.stderr


def test_no_mcp_and_untrusted_project_servers_are_not_started(loopback, env):
    marker = uuid.uuid4().hex
    write_mcp(env, {"time": time_server(marker)})
    loopback.push(text_reply("a"))
    result = run_pi(["-p", "hi", "--no-mcp", "--model", MODEL], env)
    assert result.returncode == 0, result.stderr
    assert not any(n.startswith("mcp__") for n in declared_tools(loopback.requests[0]))
    # -ne turns the built-in MCP support off too, unless -e builtin:mcp brings it back (as in Pi).
    loopback.push(text_reply("a"), text_reply("a"))
    assert run_pi(["-p", "hi", "-ne", "--model", MODEL], env, timeout=60).returncode == 0
    assert not any(n.startswith("mcp__") for n in declared_tools(loopback.requests[1]))
    assert run_pi(["-p", "hi", "-ne", "-e", "builtin:mcp", "--model", MODEL], env, timeout=60).returncode == 0
    assert "mcp__time__get_current_time" in declared_tools(loopback.requests[2])
    del loopback.requests[1:3]
    # A project .pi/mcp.json is read only after project trust is granted.
    Path(env["PI_CODING_AGENT_DIR"], "mcp.json").unlink()
    write_mcp(env, {"ptime": time_server(marker)}, project=True)
    loopback.push(text_reply("b"), text_reply("c"))
    result = run_pi(["-p", "hi", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert not any(n.startswith("mcp__") for n in declared_tools(loopback.requests[1]))
    result = run_pi(["-p", "hi", "--approve", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "mcp__ptime__get_current_time" in declared_tools(loopback.requests[2])


def test_tools_and_exclude_tools_filter_mcp_tools(loopback, env):
    write_mcp(env, {"time": time_server(uuid.uuid4().hex)})
    loopback.push(text_reply("a"), text_reply("b"))
    result = run_pi(["-p", "hi", "--tools", "read,mcp__time__convert*", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    names = declared_tools(loopback.requests[0])
    assert "read" in names and "bash" not in names
    assert [n for n in names if n.startswith("mcp__")] == ["mcp__time__convert_time"]
    result = run_pi(["-p", "hi", "--exclude-tools", "mcp__*", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    names = declared_tools(loopback.requests[1])
    assert "bash" in names and not any(n.startswith("mcp__") for n in names)
