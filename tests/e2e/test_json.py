"""``pi --mode json``: the exact event sequence of a tool-call run, as a subprocess."""

from __future__ import annotations

import json

from e2e_support import MODEL, run_pi, text_reply, tool_reply


def collapse(types: list[str]) -> list[str]:
    """Streaming updates repeat a variable number of times; keep one of each run."""
    out: list[str] = []
    for t in types:
        if t in ("message_update", "tool_execution_update") and out and out[-1] == t:
            continue
        out.append(t)
    return out


def test_tool_call_run_event_sequence(loopback, env):
    loopback.push(tool_reply("bash", {"command": "echo from-the-tool"}, text="Running it."),
                  text_reply("The tool said from-the-tool."))
    result = run_pi(["--mode", "json", "--model", MODEL, "run the tool"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("\n")
    records = [json.loads(line) for line in result.stdout.split("\n") if line]
    header = records[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == env["PI_TEST_PROJECT"]
    types = collapse([r["type"] for r in records[1:]])
    assert types == [
        "agent_start",
        "turn_start",
        "message_start", "message_end",                       # the declared system prompt (Pi 1.6)
        "message_start", "message_end",                       # the user prompt
        "message_start", "message_update", "message_end",     # assistant: text + tool call
        "tool_execution_start", "tool_execution_update", "tool_execution_end",
        "message_start", "message_end",                       # the tool result
        "turn_end",
        "turn_start",
        "message_start", "message_update", "message_end",     # the final answer
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    updates = [r for r in records if r["type"] == "message_update"]
    # Delta-only: usage and the stream event, never a message snapshot or a partial.
    assert all(set(u) == {"type", "usage", "assistantMessageEvent"} for u in updates)
    assert all("partial" not in u["assistantMessageEvent"] for u in updates)
    deltas = "".join(u["assistantMessageEvent"].get("delta", "") for u in updates
                     if u["assistantMessageEvent"]["type"] == "text_delta")
    assert deltas == "Running it.The tool said from-the-tool."
    start = next(r for r in records if r["type"] == "toolcall_start" or (
        r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "toolcall_start"))
    assert start["assistantMessageEvent"]["toolName"] == "bash"
    end = next(r for r in records if r["type"] == "tool_execution_end")
    assert end["toolName"] == "bash" and end["isError"] is False and end["durationMs"] >= 0
    assert "from-the-tool" in end["result"]["content"][0]["text"]
    assert records[-2]["willRetry"] is False
    assert records[-1] == {"type": "agent_settled", "aborted": False}
    # The tool output went back to the model.
    second = loopback.requests[1].json()["messages"]
    assert second[-1]["role"] == "tool" and "from-the-tool" in json.dumps(second[-1])
