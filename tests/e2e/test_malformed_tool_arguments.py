"""A finished tool call whose argument text is not JSON is refused, not guessed at, as in Pi 1.6.

pi used to close a cut-off argument string and run the tool with what it guessed: a ``write``
whose content stopped half way wrote the half. Now the call keeps empty arguments and Pi's
``argumentsError`` (stored in the session), the tool is not run, and the model gets the reason
with the text it sent, so it can try again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2e_support import chunk, run_pi, session_files, text_reply

from pi_runtime.testing.loopback import Reply


def raw_tool_reply(name: str, arguments: str) -> Reply:
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return Reply.sse([chunk({"tool_calls": [call]}), chunk(finish="tool_calls"), "[DONE]"])


def messages(env: dict[str, str]) -> list[dict[str, Any]]:
    (path,) = session_files(env)
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e["message"] for e in entries if e["type"] == "message"]


def test_a_write_with_cut_off_arguments_writes_nothing_and_tells_the_model(env, loopback):
    loopback.push(raw_tool_reply("write", '{"path": "out.txt", "content": "hello wor'), text_reply("sorry"))
    result = run_pi(["-p", "write the file"], env)
    assert result.returncode == 0, result.stderr
    assert not (Path(env["PI_TEST_PROJECT"]) / "out.txt").exists()
    stored = messages(env)
    call = next(m for m in stored if m["role"] == "assistant")["content"][0]
    assert call["arguments"] == {}
    assert call["argumentsError"].endswith('Received arguments:\n{"path": "out.txt", "content": "hello wor')
    tool_result = next(m for m in stored if m["role"] == "toolResult")
    assert tool_result["isError"]
    assert tool_result["content"][0]["text"] == f'Invalid arguments for tool "write": {call["argumentsError"]}'
    sent = json.loads(loopback.requests[1].body)
    assert "Received arguments" in sent["messages"][-1]["content"]


def test_a_regex_backslash_and_a_raw_newline_in_arguments_are_mended(env, loopback):
    # What small models write all the time: "\d" (not a JSON escape) and a literal line break.
    loopback.push(raw_tool_reply("write", '{"path": "pattern.txt", "content": "\\d+\nnext"}'), text_reply("done"))
    result = run_pi(["-p", "write the pattern"], env)
    assert result.returncode == 0, result.stderr
    assert (Path(env["PI_TEST_PROJECT"]) / "pattern.txt").read_text() == "\\d+\nnext"
    call = next(m for m in messages(env) if m["role"] == "assistant")["content"][0]
    assert "argumentsError" not in call
