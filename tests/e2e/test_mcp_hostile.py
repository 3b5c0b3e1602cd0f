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

from e2e_support import MODEL, Reply, chunk, run_pi, stalled_reply, text_reply, tool_reply, usage
from rpc_client import RpcClient

from pi_runtime.testing.mcp_servers import processes_with_env, wait_until

SERVER = str(Path(__file__).resolve().parents[1] / "mcp" / "servers" / "hostile_server.py")
MARKER = "PI_MCP_HOSTILE_MARKER"


def hostile(env: dict[str, str], *flags: str, name: str = "h", **extra: Any) -> str:
    """Write an ``mcp.json`` with one hostile server (given ``flags``); returns its marker."""
    marker = uuid.uuid4().hex
    server = {"command": sys.executable, "args": [SERVER, *flags], "env": {MARKER: marker}, "exposure": "direct",
              **extra}
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
        client.ok({"type": "abort"}, timeout=20)
        settled = client.wait_event("agent_settled", start, timeout=20)
        assert time.monotonic() - began < 15  # not the server's 30 s start (room for a loaded machine)
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


def calls_reply(*names: str) -> Reply:
    """One assistant message calling each of ``names`` (no arguments)."""
    calls = [{"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
             for i, name in enumerate(names)]
    return Reply.sse([chunk({"tool_calls": calls}), chunk(finish="tool_calls"), usage(), "[DONE]"])


def tool_texts(request: Any) -> dict[str, str]:
    """The tool results a request carries, by call id."""
    out = {}
    for message in request.json()["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out[message["tool_call_id"]] = content if isinstance(content, str) else "".join(
                p.get("text", "") for p in content)
    return out


def test_answers_the_sdk_cannot_parse_fail_at_once_and_malformed_tools_are_skipped(loopback, env):
    marker = hostile(env, "--tools", "2", "--malformed", "--hostile-names")
    loopback.push(calls_reply("mcp__h__huge", "mcp__h__surrogate", "mcp__h__bad_image", "mcp__h__no_content",
                              "mcp__h__flood", "mcp__h__tool_1"), text_reply("Done."))
    began = time.monotonic()
    result = run_pi(["-p", "use them", "--model", MODEL], env, timeout=90)
    took = time.monotonic() - began
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    # Before: the surrogate answer waited for the 60 s timeout and the 100 MB one never ended.
    assert took < 30, took
    texts = tool_texts(loopback.requests[1])
    assert texts["call_0"].endswith("the server sent a message of 100 MB, over pi's limit of 32 MB for one MCP message")
    assert "the server's answer is not valid JSON-RPC (Invalid JSON" in texts["call_1"]
    assert texts["call_2"].startswith('MCP server "h" sent a result for bad_image that is not valid MCP: content.0.')
    assert texts["call_3"].startswith('MCP server "h" sent a result for no_content that is not valid MCP: content: ')
    assert texts["call_4"] == "flooded"  # 100,000 progress notifications, most of them dropped
    assert texts["call_5"] == "ok 1"  # the malformed definitions did not take the good tools down
    declared = [t["function"]["name"] for t in loopback.requests[0].json()["tools"]]
    assert "mcp__h__tool_1" in declared and "mcp__h__bad_schema" not in declared
    assert ('MCP server "h": skipped 3 malformed tool definitions: #8 (name: Field required); '
            "#9 (name: Input should be a valid string); 'bad_schema' (inputSchema: Input should be a valid dictionary)"
            ) in result.stderr
    assert "Traceback" not in result.stderr and "Event loop is closed" not in result.stderr
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)


def test_mcp_list_shows_server_supplied_names_without_control_characters(env):
    hostile(env, "--tools", "2", "--hostile-names", exposure="codemode")
    result = run_pi(["mcp", "list"], env, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "h: connected, 7 tools (codemode, global)"
    assert lines[2] == "  tools: tool_0gnp.exe INJECTED, tool_1, huge, surrogate, bad_image, flood, no_content"
    assert len(lines) == 3
    assert not [c for c in result.stdout if (not c.isprintable() and c != "\n") or c == "\u202e"]


def test_ten_thousand_tools_the_prompt_goes_out_abort_settles_and_eof_stops_the_server(loopback, env):
    marker = hostile(env, "--tools", "10000")
    loopback.push(stalled_reply())
    client = RpcClient(env, "--model", MODEL)
    try:
        start = client.mark()
        began = time.monotonic()
        client.ok({"type": "prompt", "message": "hi"})
        # Before: no request within 60 s (the system prompt was rebuilt once per registered tool).
        assert wait_until(lambda: bool(loopback.requests), 30), client.stderr_now()
        assert time.monotonic() - began < 15
        assert len(loopback.requests[0].json()["tools"]) > 10_000
        aborting = time.monotonic()
        client.ok({"type": "abort"}, timeout=10)
        assert client.wait_event("agent_settled", start, timeout=10)["aborted"] is True
        assert time.monotonic() - aborting < 8  # before: 19.5 s (room for a loaded machine)
        assert processes_with_env(MARKER, marker)
        assert client.close(timeout=20) == 0
    finally:
        client.kill()
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)


def test_eof_during_a_notification_flood_exits_cleanly(loopback, env):
    marker = hostile(env)
    loopback.push(tool_reply("mcp__h__flood", {}), text_reply("x"))
    client = RpcClient(env, "--model", MODEL)
    try:
        start = client.mark()
        client.ok({"type": "prompt", "message": "flood"})
        client.wait_event("tool_execution_start", start, timeout=30)
        assert client.close(timeout=20) == 0
        stderr = client.proc.stderr.read().decode() if client.proc.stderr else ""
        # Before: the paused stdout pipe was closed by the garbage collector after the loop.
        assert "Event loop is closed" not in stderr and "Traceback" not in stderr, stderr
    finally:
        client.kill()
    assert wait_until(lambda: not processes_with_env(MARKER, marker), 10)
