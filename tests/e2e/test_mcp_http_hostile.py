"""MCP over HTTP against a server that misbehaves (issue #34), with the installed ``pi``.

The SDK printed its tracebacks on stderr (a body that is not JSON), a flood of 100,000 progress
notifications took pi 40 s where Pi took 5 (each reached the SDK's session, two tasks apiece),
and the file a large result is saved to stayed in the temporary folder after pi exited.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import MODEL, Reply, chunk, run_pi, text_reply, usage

from pi_runtime.testing.hostile_mcp_http import FLOOD, HostileHttpMcp


@pytest.fixture
def hostile_http(env: dict[str, str]) -> Iterator[HostileHttpMcp]:
    with HostileHttpMcp() as server:
        config = {"mcpServers": {"h": {"url": server.url, "exposure": "direct"}}}
        Path(env["PI_CODING_AGENT_DIR"], "mcp.json").write_text(json.dumps(config), encoding="utf-8")
        yield server


def call(name: str) -> Reply:
    calls = [{"index": 0, "id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}]
    return Reply.sse([chunk({"tool_calls": calls}), chunk(finish="tool_calls"), usage(), "[DONE]"])


def tool_result_text(request: Any) -> str:
    [message] = [m for m in request.json()["messages"] if m["role"] == "tool"]
    content = message["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_a_body_that_is_not_json_is_the_tool_calls_error_and_nothing_on_stderr(loopback, env, hostile_http):
    loopback.push(call("mcp__h__not_json"), text_reply("Done."))
    result = run_pi(["-p", "use it", "--model", MODEL], env, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "Done.\n", "")
    assert hostile_http.calls == ["not_json"]
    assert "Failed to parse JSON response" in tool_result_text(loopback.requests[1])


def test_a_notification_flood_is_cut_to_the_budget_before_the_sdk(loopback, env, hostile_http):
    loopback.push(call("mcp__h__flood"), text_reply("Done."))
    result = run_pi(["-p", "flood", "--model", MODEL, "--mode", "json"], env, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")
    updates = [line for line in result.stdout.splitlines() if '"type":"tool_execution_update"' in line]
    assert 0 < len(updates) < FLOOD // 20  # most of the 100,000 were dropped, not dispatched one by one
    assert tool_result_text(loopback.requests[1]) == "flooded"


def test_a_large_result_file_is_removed_when_pi_exits(loopback, env, hostile_http, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    loopback.push(call("mcp__h__big"), text_reply("Done."))
    result = run_pi(["-p", "big", "--model", MODEL], {**env, "TMPDIR": str(scratch)}, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    text = tool_result_text(loopback.requests[1])
    assert str(scratch / "pi-mcp-") in text  # the model was told where the whole result was
    assert list(scratch.glob("pi-mcp-*")) == []  # and it is gone with pi (Pi leaves it there)
