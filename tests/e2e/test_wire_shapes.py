"""The shapes Pi 1.6 writes, through the installed ``pi``: session lines and JSON/RPC events a Pi
reader or an RPC client sees (user content as blocks, ``rawStopReason``, ``totalFromProvider``, tool
results as Pi's tools give them, retries and queues announced where Pi announces them)."""

from __future__ import annotations

import json

from e2e_support import MODEL, error_reply, run_pi, session_files, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.loopback import Reply

ASSISTANT_KEYS = ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp",
                  "responseId", "rawStopReason", "durationMs", "thinkingLevel"]


def session_messages(env):
    [path] = session_files(env)
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] != "system"], entries


def test_a_print_run_writes_pis_lines(loopback, env):
    loopback.push(tool_reply("bash", {"command": "echo shared"}), text_reply("done"))
    result = run_pi(["-p", "--model", MODEL, "hello there"], env)
    assert result.returncode == 0, result.stderr
    user, call, tool_result, answer = session_messages(env)[0]
    assert user["content"] == [{"type": "text", "text": "hello there"}]
    for message, raw in ((call, "tool_calls"), (answer, "stop")):
        assert list(message) == ASSISTANT_KEYS
        assert message["rawStopReason"] == raw
        assert list(message["usage"]) == ["input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens",
                                          "cost"]
        assert message["usage"]["cost"]["totalFromProvider"] is False
    assert tool_result["content"] == [{"type": "text", "text": "shared\n"}]  # as the command wrote it
    assert "details" not in tool_result


def test_json_events_of_a_failing_command_and_of_an_edit(loopback, env, tmp_path):
    project = tmp_path / "project"
    (project / "a.txt").write_text("hello world\nsecond line\n")
    loopback.push(tool_reply("bash", {"command": "echo out; exit 3"}),
                  tool_reply("edit", {"path": "a.txt", "edits": [{"oldText": "world", "newText": "there"}]},
                             call_id="call_2"),
                  text_reply("done"))
    result = run_pi(["--mode", "json", "--model", MODEL, "go"], env)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines() if line]
    user_start = next(r for r in records if r["type"] == "message_start" and r["message"]["role"] == "user")
    assert user_start["message"]["content"] == [{"type": "text", "text": "go"}]

    bash_updates = [r for r in records if r["type"] == "tool_execution_update" and r["toolCallId"] == "call_1"]
    assert bash_updates[0]["partialResult"] == {"content": []}  # Pi's first update: the command started
    assert bash_updates[-1]["partialResult"] == {"content": [{"type": "text", "text": "out\n"}], "details": {}}
    bash_end = next(r for r in records if r["type"] == "tool_execution_end" and r["toolCallId"] == "call_1")
    assert bash_end["isError"] is True
    # A failed command is a result the tool returned: no details, isError in the result as well.
    structured = bash_end["result"].pop("structuredContent")  # after the content, as in Pi 1.6
    assert bash_end["result"] == {"content": [{"type": "text", "text": "out\n\n\nCommand exited with code 3"}],
                                  "isError": True}
    assert (structured["output"], structured["exit_code"]) == ("out\n", 3)

    edit_end = next(r for r in records if r["type"] == "tool_execution_end" and r["toolCallId"] == "call_2")
    assert edit_end["result"]["details"] == {
        "diff": "-1 hello world\n+1 hello there\n 2 second line",
        "patch": "--- a.txt\n+++ a.txt\n@@ -1,2 +1,2 @@\n-hello world\n+hello there\n second line\n",
        "firstChangedLine": 1,
    }


def test_a_refused_request_starts_its_message_at_the_end_and_a_retry_announces_its_edit(loopback, env):
    loopback.push(error_reply(500, "boom"), error_reply(500, "boom again"), error_reply(500, "still"))
    result = run_pi(["--mode", "json", "--model", MODEL, "hi"], env)
    records = [json.loads(line) for line in result.stdout.splitlines() if line]
    starts = [r for r in records if r["type"] == "message_start" and r["message"]["role"] == "assistant"]
    # As Pi: no stream started, so the message starts as it ended (never "pending").
    assert starts and all(s["message"]["stopReason"] == "error" and "durationMs" in s["message"] for s in starts)
    edits = [r for r in records if r["type"] == "entry_appended"]
    assert edits and all(e["entry"]["type"] == "context_edit" and e["entry"]["replacement"] is None for e in edits)
    types = [r["type"] for r in records]
    assert types.index("auto_retry_start") < types.index("entry_appended") < types.index("agent_start", 2)
    messages, entries = session_messages(env)
    edit_lines = [e for e in entries if e["type"] == "context_edit"]
    assert [e["id"] for e in edit_lines] == [e["entry"]["id"] for e in edits]


def test_rpc_queue_messages_are_blocks_and_announced_after_the_turn_starts(loopback, env):
    first = Reply.sse([{"id": "c", "choices": [{"index": 0, "delta": {"content": "Work"}, "finish_reason": None}]},
                       *[{"id": "c", "choices": [{"index": 0, "delta": {"content": "ing"}, "finish_reason": None}]}] * 8,
                       {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}, "[DONE]"],
                      delay=0.15)
    loopback.push(first, text_reply("after steering"), text_reply("after the follow-up"))
    c = RpcClient(env, "--model", MODEL)
    c.send({"type": "prompt", "message": "start"})
    c.wait(lambda r: r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta")
    c.ok({"type": "steer", "message": "steered"})
    c.ok({"type": "follow_up", "message": "followed"})
    c.wait(lambda r: r.get("type") == "agent_settled")
    messages = c.ok({"type": "get_messages"})["messages"]
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users == [[{"type": "text", "text": t}] for t in ("start", "steered", "followed")]
    state = c.ok({"type": "get_state"})
    assert list(state)[0] == "model" and state["messageCount"] == len(messages)
    sequence = [(r["type"], (r.get("message") or {}).get("role")) for r in c.records if r.get("type") != "response"]
    for text in ("steered", "followed"):
        at = next(i for i, r in enumerate(c.records) if r.get("type") == "message_start"
                  and r["message"]["role"] == "user" and r["message"]["content"][0]["text"] == text)
        kinds = [r.get("type") for r in c.records[at - 2:at]]
        assert kinds == ["turn_start", "queue_update"], sequence
    assert c.close() == 0
