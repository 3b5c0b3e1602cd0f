"""``pi --mode rpc`` driven as a subprocess over real pipes, against the loopback server."""

from __future__ import annotations

import fcntl
import importlib.util
import json
import signal
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from e2e_support import MODEL, error_reply, stalled_reply, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.waiting import wait_until


@pytest.fixture
def rpc(env):
    clients: list[RpcClient] = []

    def start(*args: str) -> RpcClient:
        client = RpcClient(env, "--model", MODEL, *args)
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.kill()


def user_texts(request) -> list[str]:
    out = []
    for message in request.json()["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return out


def assert_session_file_valid(path: str) -> list[dict]:
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "", "the file ends with a complete line"
    records = [json.loads(line) for line in lines[:-1]]
    assert records[0]["type"] == "session"
    ids = {r["id"] for r in records[1:]}
    assert all(r["parentId"] is None or r["parentId"] in ids for r in records[1:])
    return records


def test_state_model_thinking_queue_modes_and_discovery(rpc, env):
    agent = Path(env["PI_CODING_AGENT_DIR"])
    (agent / "prompts").mkdir()
    (agent / "prompts" / "fix-tests.md").write_text("---\ndescription: Fix failing tests\n---\nFix the tests $@\n")
    (agent / "skills" / "demo-skill").mkdir(parents=True)
    (agent / "skills" / "demo-skill" / "SKILL.md").write_text(
        "---\nname: demo-skill\ndescription: A skill for the test\n---\nDo the thing.\n")
    c = rpc("--no-session")

    state = c.ok({"type": "get_state"})
    assert state["model"]["id"] == "loop-model" and state["isStreaming"] is False
    assert "sessionFile" not in state and state["messageCount"] == 0  # not saved: Pi leaves the key out

    models = c.ok({"type": "get_available_models"})["models"]
    assert {m["id"] for m in models} == {"loop-model", "loop-reasoner"}
    chosen = c.ok({"type": "set_model", "provider": "loop", "modelId": "loop-reasoner"})
    assert chosen["id"] == "loop-reasoner"
    assert all(type(price) is int for price in chosen["cost"].values())  # 0, as Pi writes it, not 0.0
    bad = c.request({"type": "set_model", "provider": "loop", "modelId": "nope"})
    assert bad["success"] is False and bad["error"] == "Model not found: loop/nope"

    assert c.ok({"type": "get_available_thinking_levels"}) == {"levels": ["off", "minimal", "low", "medium", "high"]}
    assert c.ok({"type": "set_thinking_level", "level": "high"}) is None
    c.wait_event("thinking_level_changed", level="high")
    assert c.ok({"type": "get_state"})["thinkingLevel"] == "high"
    assert c.ok({"type": "cycle_thinking_level"}) == {"level": "off"}
    assert c.request({"type": "set_thinking_level", "level": "bogus"})["success"] is False

    cycled = c.ok({"type": "cycle_model"})
    assert cycled["model"]["id"] == "loop-model" and cycled["isScoped"] is False
    assert c.ok({"type": "get_available_thinking_levels"}) == {"levels": ["off"]}
    assert c.ok({"type": "cycle_thinking_level"}) is None

    c.ok({"type": "set_steering_mode", "mode": "all"})
    c.ok({"type": "set_follow_up_mode", "mode": "all"})
    assert c.request({"type": "set_steering_mode", "mode": "sometimes"})["success"] is False
    c.ok({"type": "set_auto_compaction", "enabled": False})
    c.ok({"type": "set_auto_retry", "enabled": False})
    c.ok({"type": "abort_retry"})
    state = c.ok({"type": "get_state"})
    assert (state["steeringMode"], state["followUpMode"], state["autoCompactionEnabled"]) == ("all", "all", False)

    commands = {cmd["name"]: cmd for cmd in c.ok({"type": "get_commands"})["commands"]}
    assert commands["fix-tests"]["source"] == "prompt"
    assert commands["fix-tests"]["description"] == "Fix failing tests"
    assert commands["skill:demo-skill"]["source"] == "skill"
    assert commands["skill:demo-skill"]["sourceInfo"]["path"].endswith("SKILL.md")

    # Framing: CRLF accepted; U+2028/U+2029 inside strings are not separators.
    c.send_raw(b'{"id":"crlf","type":"get_state"}\r\n')
    assert c.wait(lambda r: r.get("id") == "crlf")["success"] is True
    name = "split\u2028here\u2029too"
    c.send_raw(json.dumps({"id": "sep", "type": "set_session_name", "name": name}, ensure_ascii=False).encode() + b"\n")
    assert c.wait(lambda r: r.get("id") == "sep")["success"] is True
    assert c.ok({"type": "get_state"})["sessionName"] == name
    assert c.wait_event("session_info_changed")["name"] == name

    # Bad input: malformed JSON, no type, unknown command, bad arguments.
    mark = c.mark()
    c.send_raw(b'{"type": "get_state",\n')
    parse = c.wait(lambda r: r.get("command") == "parse", start=mark)
    assert parse["success"] is False and parse["error"].startswith("Failed to parse command") and "id" not in parse
    c.send_raw(b'[1, 2]\n')
    assert c.wait(lambda r: r.get("command") == "parse", start=mark + 1)["success"] is False
    unknown = c.request({"type": "make_coffee"})
    assert unknown == {"id": unknown["id"], "type": "response", "command": "make_coffee", "success": False,
                       "error": "Unknown command: make_coffee"}
    assert c.request({"type": "prompt"})["success"] is False  # no message
    assert c.ok({"type": "get_last_assistant_text"}) == {}  # as Pi: no field, not null
    assert c.close() == 0


def test_scoped_models_start_and_cycle(env):
    c = RpcClient(env, "--models", "loop-reasoner:high,loop/loop-model", "--no-session")
    try:
        state = c.ok({"type": "get_state"})
        # As Pi 1.6: the saved default (loop-model) is in the scope, so the session starts on it.
        assert (state["model"]["id"], state["thinkingLevel"]) == ("loop-model", "off")
        cycled = c.ok({"type": "cycle_model"})
        assert cycled["model"]["id"] == "loop-reasoner" and cycled["isScoped"] is True
        assert cycled["thinkingLevel"] == "high"
        assert c.ok({"type": "cycle_model"})["model"]["id"] == "loop-model"
        assert c.close() == 0
    finally:
        c.kill()


def test_prompt_steer_and_follow_up_during_a_tool_call(rpc, loopback):
    loopback.push(tool_reply("bash", {"command": "sleep 1; echo slept"}),
                  text_reply("Changed course."), text_reply("Follow-up done."))
    c = rpc()
    assert c.ok({"type": "prompt", "message": "start working"}) == {"disposition": "started"}
    c.wait_event("tool_execution_start", toolName="bash")
    busy = c.request({"type": "prompt", "message": "no behaviour given"})
    assert busy["success"] is False and "streamingBehavior" in busy["error"]
    state = c.ok({"type": "get_state"})  # answered while the tool runs
    assert state["isStreaming"] is True
    assert c.ok({"type": "steer", "message": "change course"}) == {"disposition": "queued"}
    assert c.ok({"type": "prompt", "message": "and then this", "streamingBehavior": "followUp"}) == {
        "disposition": "queued"}
    queue = c.wait(lambda r: r.get("type") == "queue_update" and r["followUp"] == ["and then this"])
    assert queue["steering"] == ["change course"]
    settled = c.wait_event("agent_settled")
    assert settled["aborted"] is False
    assert len(loopback.requests) == 3
    assert user_texts(loopback.requests[1]) == ["start working", "change course"]
    assert user_texts(loopback.requests[2]) == ["start working", "change course", "and then this"]
    second = loopback.requests[1].json()["messages"]
    assert [m["role"] for m in second[-3:]] == ["assistant", "tool", "user"]  # steer lands after the tool result
    assert "slept" in second[-2]["content"] if isinstance(second[-2]["content"], str) else json.dumps(second[-2])
    roles = [m["role"] for m in c.ok({"type": "get_messages"})["messages"] if m["role"] != "system"]
    assert roles == ["user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]
    assert c.ok({"type": "get_last_assistant_text"}) == {"text": "Follow-up done."}
    state = c.ok({"type": "get_state"})
    assert state["pendingMessageCount"] == 0
    path = state["sessionFile"]
    assert c.close() == 0
    records = assert_session_file_valid(path)
    assert sum(1 for r in records if r["type"] == "message" and r["message"]["role"] != "system") == 7


def test_abort_and_auto_retry(rpc, loopback):
    c = rpc("--no-session")
    loopback.push(stalled_reply("Thinking about"))
    c.ok({"type": "prompt", "message": "take forever"})
    c.wait(lambda r: r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta")
    mark = c.mark()
    c.ok({"type": "abort"})
    records = c.records[mark:]
    settled = [i for i, r in enumerate(records) if r.get("type") == "agent_settled"]
    response = [i for i, r in enumerate(records) if r.get("command") == "abort"]
    assert settled and settled[0] < response[0], "abort answers once the session is idle"
    assert records[settled[0]]["aborted"] is True
    last = c.ok({"type": "get_messages"})["messages"][-1]
    assert last["stopReason"] == "aborted"

    loopback.push(error_reply(503, "overloaded"), error_reply(503, "overloaded"), text_reply("Recovered."))
    mark = c.mark()
    c.ok({"type": "prompt", "message": "try again"})
    end = c.wait_event("auto_retry_end", since=mark)
    assert end["success"] is True and end["attempt"] == 2
    starts = [r for r in c.events(mark) if r["type"] == "auto_retry_start"]
    assert [s["attempt"] for s in starts] == [1, 2] and all(s["maxAttempts"] == 2 for s in starts)
    assert "overloaded" in starts[0]["errorMessage"]
    ends = [r for r in c.events(mark) if r["type"] == "agent_end"]
    assert [e["willRetry"] for e in ends] == [True, True, False]
    assert c.wait_event("agent_settled", since=mark)["aborted"] is False
    assert c.ok({"type": "get_last_assistant_text"}) == {"text": "Recovered."}

    c.ok({"type": "set_auto_retry", "enabled": False})
    loopback.push(error_reply(503, "still overloaded"))
    mark = c.mark()
    c.ok({"type": "prompt", "message": "no retry now"})
    c.wait_event("agent_settled", since=mark)
    assert not [r for r in c.events(mark) if r["type"] == "auto_retry_start"]
    last = c.ok({"type": "get_messages"})["messages"][-1]
    assert last["stopReason"] == "error" and "still overloaded" in last["errorMessage"]
    assert c.close() == 0


def test_bash_streams_output_and_abort_bash_cancels(rpc):
    c = rpc("--no-session")
    data = c.ok({"id": "b1", "type": "bash", "command": "printf 'one\\n'; sleep 0.2; printf 'two\\n'"})
    assert data == {"output": "one\ntwo\n", "exitCode": 0, "cancelled": False, "truncated": False}  # as written (Pi)
    deltas = [r["delta"] for r in c.events() if r["type"] == "bash_execution_update" and r.get("id") == "b1"]
    assert "".join(deltas) == "one\ntwo\n"

    c.send({"id": "b2", "type": "bash", "command": "echo started; sleep 20"})
    c.wait(lambda r: r.get("type") == "bash_execution_update" and r.get("id") == "b2")
    assert c.ok({"type": "get_state"})["isStreaming"] is False  # answered while bash runs
    c.ok({"type": "abort_bash"})
    cancelled = c.wait(lambda r: r.get("id") == "b2" and r.get("type") == "response", timeout=10)
    assert cancelled["data"]["cancelled"] is True and "exitCode" not in cancelled["data"]
    messages = c.ok({"type": "get_messages"})["messages"]
    assert [m["role"] for m in messages] == ["bashExecution", "bashExecution"]
    assert messages[0]["command"].startswith("printf")
    assert c.close() == 0


def test_session_commands_fork_clone_switch_tree(rpc, loopback, tmp_path):
    loopback.push(text_reply("First answer."), text_reply("Second answer."))
    c = rpc()
    for message in ("first question", "second question"):
        mark = c.mark()
        c.ok({"type": "prompt", "message": message})
        c.wait_event("agent_settled", since=mark)
    original = c.ok({"type": "get_state"})

    entries = c.ok({"type": "get_entries"})
    conversation = [e for e in entries["entries"] if e["type"] == "message" and e["message"]["role"] != "system"]
    assert len(conversation) == 4 and entries["leafId"] == entries["entries"][-1]["id"]
    later = c.ok({"type": "get_entries", "since": entries["entries"][0]["id"]})
    assert later["entries"] == entries["entries"][1:]
    missing = c.request({"type": "get_entries", "since": "nope"})
    assert missing["success"] is False

    tree = c.ok({"type": "get_tree"})
    assert tree["leafId"] == entries["leafId"] and len(tree["tree"]) == 1
    node, depth = tree["tree"][0], 1
    while node["children"]:
        assert len(node["children"]) == 1
        node, depth = node["children"][0], depth + 1
    assert depth == len(entries["entries"]) and node["entry"]["id"] == entries["leafId"]

    forks = c.ok({"type": "get_fork_messages"})["messages"]
    assert [f["text"] for f in forks] == ["first question", "second question"]
    stats = c.ok({"type": "get_session_stats"})
    assert (stats["userMessages"], stats["assistantMessages"], stats["totalMessages"]) == (2, 2, 5)  # with the system message, as Pi
    assert stats["sessionFile"] == original["sessionFile"] and stats["tokens"]["total"] > 0
    out = tmp_path / "export.html"
    assert c.ok({"type": "export_html", "outputPath": str(out)}) == {"path": str(out)}
    from pi_runtime.kernel.export_html import decode_session_data

    exported = decode_session_data(out.read_text())["entries"]
    assert any("Second answer." in json.dumps(e) for e in exported)

    assert c.ok({"type": "fork", "entryId": forks[1]["entryId"]}) == {"text": "second question", "cancelled": False}
    forked = c.ok({"type": "get_state"})
    assert forked["sessionFile"] != original["sessionFile"]
    assert [m["role"] for m in c.ok({"type": "get_messages"})["messages"] if m["role"] != "system"] == [
        "user", "assistant"]
    assert c.request({"type": "fork", "entryId": "nope"})["success"] is False

    assert c.ok({"type": "clone"}) == {"cancelled": False}
    cloned = c.ok({"type": "get_state"})
    assert cloned["sessionFile"] not in (original["sessionFile"], forked["sessionFile"])
    # Pi's messageCount counts what get_messages gives, the system message included.
    cloned_messages = c.ok({"type": "get_messages"})["messages"]
    assert cloned["messageCount"] == len(cloned_messages) and len(cloned_messages) - count_system(cloned_messages) == 2

    assert c.ok({"type": "switch_session", "sessionPath": original["sessionFile"]}) == {"cancelled": False}
    back = c.ok({"type": "get_state"})
    back_messages = c.ok({"type": "get_messages"})["messages"]
    assert back["sessionId"] == original["sessionId"] and back["messageCount"] == len(back_messages)
    assert len(back_messages) - count_system(back_messages) == 4
    assert c.ok({"type": "get_last_assistant_text"}) == {"text": "Second answer."}
    assert c.request({"type": "switch_session", "sessionPath": str(tmp_path / "none.jsonl")})["success"] is False

    assert c.ok({"type": "new_session"}) == {"cancelled": False}
    fresh = c.ok({"type": "get_state"})
    assert fresh["sessionId"] != original["sessionId"] and fresh["messageCount"] == 0
    assert c.ok({"type": "clear_queue"}) == {"steering": [], "followUp": []}
    assert c.close() == 0
    assert_session_file_valid(original["sessionFile"])


@pytest.mark.skipif(importlib.util.find_spec("pi_runtime.compaction.compaction") is None,
                    reason="pi_runtime.compaction.compaction has not landed yet (compaction package in progress)")
def test_compact(rpc, loopback, env):
    settings_path = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["compaction"] = {"enabled": True, "keepRecentTokens": 1}
    settings_path.write_text(json.dumps(settings))
    loopback.push(text_reply("Answer one. " * 20), text_reply("Answer two. " * 20))
    # The summary (and, for a split turn, the turn-prefix summary) run in parallel.
    loopback.responder = lambda request: text_reply("## Goal\nSummary of the conversation.")
    c = rpc()
    for message in ("question one", "question two"):
        mark = c.mark()
        c.ok({"type": "prompt", "message": message})
        c.wait_event("agent_settled", since=mark)
    mark = c.mark()
    result = c.ok({"type": "compact", "customInstructions": "Keep it short"}, timeout=30)
    assert "Summary of the conversation." in result["summary"]
    assert result["firstKeptEntryId"] and result["tokensBefore"] > 0
    assert c.wait_event("compaction_start", since=mark)["reason"] == "manual"
    assert c.wait_event("compaction_end", since=mark)["result"]["summary"] == result["summary"]
    assert len(loopback.requests) >= 3
    assert "Keep it short" in json.dumps(loopback.requests[2].json())
    assert c.ok({"type": "get_state"})["messageCount"] < 4  # the context was rebuilt from the summary
    assert c.close() == 0


def test_end_of_stdin_aborts_and_exits_zero(rpc, loopback):
    loopback.push(text_reply("Saved first."), stalled_reply("Never finishing"))
    c = rpc()
    c.ok({"type": "prompt", "message": "first"})
    c.wait_event("agent_settled")
    mark = c.mark()
    c.ok({"type": "prompt", "message": "stall"})
    c.wait(lambda r: r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta",
           start=mark)
    path = c.ok({"type": "get_state"})["sessionFile"]
    started = time.monotonic()
    assert c.close() == 0
    assert time.monotonic() - started < 10
    assert c.wait_event("agent_settled", since=mark)["aborted"] is True
    records = assert_session_file_valid(path)
    assert records[-1]["message"]["stopReason"] == "aborted"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signals_exit_with_128_plus_signal_and_keep_the_session(rpc, loopback, sig, code):
    loopback.push(text_reply("Saved first."), stalled_reply("Interrupted"))
    c = rpc()
    c.ok({"type": "prompt", "message": "first"})
    c.wait_event("agent_settled")
    path = c.ok({"type": "get_state"})["sessionFile"]
    mark = c.mark()
    c.ok({"type": "prompt", "message": "stall"})
    c.wait(lambda r: r.get("type") == "message_update", start=mark)
    c.proc.send_signal(sig)
    assert c.proc.wait(15) == code
    records = assert_session_file_valid(path)
    roles = [r["message"]["role"] for r in records if r["type"] == "message" and r["message"]["role"] != "system"]
    assert roles[:2] == ["user", "assistant"]


def unread_bytes(fd: int) -> int:
    """How many bytes wait in the pipe ``fd`` for its reader."""
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4), "little")


def stalled_pipe(fd: int, samples: int = 3) -> Callable[[], bool]:
    """A check for :func:`wait_until`: the pipe holds more than half its size and the writer has
    added nothing for ``samples`` polls in a row (how full "full" is depends on the writes' sizes)."""
    half = fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) // 2
    seen: list[int] = []

    def check() -> bool:
        seen.append(unread_bytes(fd))
        last = seen[-samples:]
        return len(last) == samples and last[0] > half and len(set(last)) == 1

    return check


def test_a_client_that_stops_reading_loses_no_events(loopback, env):
    import subprocess

    from e2e_support import PI

    text = "".join(f"word{i} " for i in range(3000))  # ~3,000 updates, far more than a pipe buffer holds
    loopback.push(text_reply(text, size=8))
    proc = subprocess.Popen([PI, "--mode", "rpc", "--no-session", "--model", MODEL], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=env["PI_TEST_PROJECT"])
    try:
        proc.stdin.write(b'{"id":"p","type":"prompt","message":"long answer please"}\n'
                         b'{"id":"s","type":"get_state"}\n')
        proc.stdin.flush()
        # Not reading: pi fills the pipe to us and must then wait for us, not drop.
        assert wait_until(stalled_pipe(proc.stdout.fileno()), timeout=20, interval=0.1), "pi never filled the pipe"
        lines = []
        while not lines or b'"agent_settled"' not in lines[-1]:
            line = proc.stdout.readline()
            assert line, "stdout ended before agent_settled"
            lines.append(line)
        proc.stdin.close()
        out = b"".join(lines) + proc.stdout.read()
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    records = [json.loads(line) for line in out.split(b"\n") if line]
    deltas = "".join(r["assistantMessageEvent"]["delta"] for r in records
                     if r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta")
    ended = [r for r in records if r.get("type") == "message_end" and r["message"]["role"] == "assistant"]
    assert ended, "the run finished before the shutdown"
    assert deltas == text
    assert {r.get("id") for r in records if r.get("type") == "response"} == {"p", "s"}


def count_system(messages):
    return sum(1 for m in messages if m["role"] == "system")
