"""Messages holding tool arguments nested past Python's depth limit (Pi writes
them) can be turned back into Pi's JSON and measured, not only read."""

from __future__ import annotations

from pi_runtime import deep_json
from pi_runtime.ai.types import parse_message
from pi_runtime.compaction.estimate import estimate_message_tokens

DEEP = '{"x":' + "[" * 3000 + "]" * 3000 + "}"
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def call(arguments):
    return {"role": "assistant", "api": "x", "provider": "p", "model": "m", "usage": USAGE, "stopReason": "toolUse",
            "timestamp": 2, "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": arguments}]}


def test_a_deep_message_goes_back_to_the_same_json():
    message = parse_message(call(deep_json.loads(DEEP)))
    wire = message.to_wire()
    assert deep_json.dumps(wire["content"][0]["arguments"], separators=(",", ":")) == DEEP
    assert wire["stopReason"] == "toolUse" and wire["usage"]["totalTokens"] == 2


def test_a_deep_tool_call_is_measured_for_the_context():
    assert estimate_message_tokens(call(deep_json.loads(DEEP))) == -(-(len("bash") + len(DEEP)) // 4)


def test_request_bodies_encode_like_json_dumps_at_any_depth():
    # msgspec writes the body; what it refuses (past its depth, a 70-bit integer, a key that is
    # not a string) comes out as json.dumps writes it, and the deep arguments survive.
    for value in ({"messages": [call(deep_json.loads(DEEP))]}, {"n": 2**70}, {True: 1, 3: "é"}):
        assert deep_json.encode(value) == deep_json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    assert deep_json.encode({"t": "é\n"}) == '{"t":"é\\n"}'.encode()
