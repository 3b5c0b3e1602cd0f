"""Esc/abort while a tool runs: the session file gets the entries Pi 1.6 writes.

Pi's loop does not stop at an abort during tool execution: it finishes the turn with the
tools' (aborted) results and starts the next one, whose model call ends at once, so the
file gains an empty ``aborted`` assistant message after the tool result. A Pi-compatible
reader of the tree sees the same shape from both. (Checked side by side against Pi 1.6 over
RPC on the same loopback server: prompt → bash ``sleep 5`` → abort.)
"""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import MODEL, tool_reply
from rpc_client import RpcClient


def test_abort_during_a_tool_appends_an_empty_aborted_assistant_entry(env, loopback):
    loopback.push(tool_reply("bash", {"command": "sleep 5"}, text="Running."))
    client = RpcClient(env, "--model", MODEL)
    try:
        client.ok({"type": "prompt", "message": "run it"})
        client.wait_event("tool_execution_start", toolName="bash")
        mark = client.mark()
        client.ok({"type": "abort"})
        assert client.wait_event("agent_settled", since=mark)["aborted"] is True
        session_file = client.ok({"type": "get_state"})["sessionFile"]
        kinds = [r["type"] for r in client.events(mark)]
        assert client.close() == 0
    finally:
        client.kill()

    # Pi's events after the aborted tool: the turn ends, a new one starts and ends with the empty reply.
    after_tool = kinds[kinds.index("tool_execution_end"):]
    assert after_tool[:9] == ["tool_execution_end", "message_start", "message_end", "turn_end", "turn_start",
                              "message_start", "message_end", "turn_end", "agent_end"]

    entries = [json.loads(line) for line in Path(session_file).read_text(encoding="utf-8").splitlines()]
    messages = [e for e in entries if e["type"] == "message"]
    roles = [m["message"]["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]
    result, closing = messages[-2], messages[-1]
    assert result["message"]["isError"] is True
    assert result["message"]["content"] == [{"type": "text", "text": "Command aborted"}]
    assert closing["parentId"] == result["id"]
    aborted = closing["message"]
    assert set(aborted) == {"role", "content", "api", "provider", "model", "usage", "stopReason", "errorMessage",
                            "timestamp", "durationMs", "thinkingLevel"}  # Pi's fields, no more, no fewer
    assert {k: aborted[k] for k in ("content", "api", "provider", "model", "stopReason", "errorMessage",
                                    "durationMs", "thinkingLevel")} == {
        "content": [], "api": "openai-completions", "provider": "loop", "model": "loop-model",
        "stopReason": "aborted", "errorMessage": "This operation was aborted", "durationMs": 0, "thinkingLevel": "off",
    }
    assert isinstance(result["message"]["durationMs"], int)  # how long the tool ran before the abort
    assert aborted["usage"] == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    assert len(loopback.requests) == 1  # the closing turn sends nothing
