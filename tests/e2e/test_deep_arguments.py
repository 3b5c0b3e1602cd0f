"""A live turn whose tool arguments nest 3,000 deep completes, as in Pi (issue 26).

The loopback server streams the arguments in pieces, so the partial JSON parser, the tool's
validation, the tool result, the session append, the JSON-mode writer and a resumed
request all meet the deep value. Python's ``json`` stops near 1,000 levels; pi ended such a
turn with ``RecursionError`` and exit 1.
"""

from __future__ import annotations

import json
from typing import Any

from e2e_support import chunk, run_pi, session_files, text_reply, tool_reply

from pi_runtime import deep_json
from pi_runtime.testing.loopback import Reply

DEPTH = 3000
# The deep value is a declared argument of the wrong type, so the call is refused (an undeclared
# one would be ignored, as Pi ignores it, and the command would run).
DEEP_ARGS = '{"command":"echo deep-ok","timeout":' + "[" * DEPTH + "]" * DEPTH + "}"


def deep_tool_reply() -> Reply:
    pieces = [DEEP_ARGS[i:i + 500] for i in range(0, len(DEEP_ARGS), 500)]
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "bash", "arguments": pieces[0]}}
    events: list[Any] = [chunk({"tool_calls": [first]})]
    events += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in pieces[1:]]
    return Reply.sse([*events, chunk(finish="tool_calls"), "[DONE]"])


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, list):
        value = value[0] if value else None
        depth += 1
    return depth


def stored_entries(env: dict[str, str]) -> list[dict[str, Any]]:
    (path,) = session_files(env)
    return [deep_json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_print_mode_completes_a_turn_with_deeply_nested_tool_arguments(env, loopback):
    loopback.push(deep_tool_reply(), text_reply("all done"))
    result = run_pi(["-p", "go"], env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "all done\n"
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    messages = [e["message"] for e in stored_entries(env) if e["type"] == "message"]
    call = next(m for m in messages if m["role"] == "assistant" and m["content"][0]["type"] == "toolCall")
    assert depth_of(call["content"][0]["arguments"]["timeout"]) == DEPTH
    # The refused arguments go back to the model, but not as 18 MB of indentation.
    tool_result = next(m for m in messages if m["role"] == "toolResult")
    assert tool_result["isError"] and len(json.dumps(tool_result)) < 100_000
    # The second request carried the deep call back to the model intact.
    sent = deep_json.loads(loopback.requests[1].body)
    sent_call = next(m for m in sent["messages"] if m.get("tool_calls"))
    assert depth_of(deep_json.loads(sent_call["tool_calls"][0]["function"]["arguments"])["timeout"]) == DEPTH

    # Resumed: the deep entry is read back and sent again.
    loopback.push(text_reply("resumed"))
    again = run_pi(["-c", "-p", "and now?"], env, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "resumed\n"


def test_json_mode_writes_every_event_of_the_deep_turn(env, loopback):
    loopback.push(deep_tool_reply(), text_reply("all done"))
    result = run_pi(["--mode", "json", "go"], env, timeout=120)
    assert result.returncode == 0, result.stderr
    events = [deep_json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert "tool_execution_end" in types and "agent_end" in types
    start = next(e for e in events if e["type"] == "tool_execution_start")
    assert depth_of(start["args"]["timeout"]) == DEPTH


RAISING_VALIDATOR = '''
from pydantic import BaseModel, model_validator


class Params(BaseModel):
    text: str = ""

    @model_validator(mode="before")
    @classmethod
    def explode(cls, data):
        raise TypeError("validator exploded")  # pydantic passes a TypeError through as it is


def extension(pi):
    async def run(call_id, params, signal, on_update, ctx):
        return "never runs"

    pi.register_tool(name="boom", description="Raises in validation", params=Params, execute=run)
'''


def test_an_extension_validator_that_raises_is_the_calls_error_not_the_runs(env, loopback, tmp_path):
    # It ended the run ("run failed" traceback) and pi -p printed nothing and exited 0.
    extension = tmp_path / "boom_ext.py"
    extension.write_text(RAISING_VALIDATOR)
    loopback.push(tool_reply("boom", {"text": "x"}), text_reply("recovered"))
    result = run_pi(["-p", "go", "-e", str(extension)], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "recovered\n" and "Traceback" not in result.stderr
    sent = loopback.requests[1].json()["messages"]
    tool_message = next(m for m in sent if m["role"] == "tool")
    assert 'Validation failed for tool "boom": TypeError: validator exploded' in str(tool_message["content"])
