"""The anthropic-messages provider against a real HTTP server speaking the Messages SSE format."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_runtime.testing.loopback import LoopbackServer, Reply, sse_bytes

KEY = "sk-ant-test-secret-0123456789"


def make_model(server: LoopbackServer, **kwargs: Any) -> Model:
    fields: dict[str, Any] = dict(
        id="claude-test-1",
        api="anthropic-messages",
        provider="anthropic",
        base_url=server.url,
        reasoning=True,
        input=["text", "image"],
        cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
        max_tokens=32000,
    )
    fields.update(kwargs)
    return Model(**fields)


def ctx(text: str = "hi", **kwargs: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kwargs)


def reply(events: list[dict[str, Any]], **kwargs: Any) -> Reply:
    """An SSE reply with ``event:`` names taken from each payload's type, as Anthropic sends."""
    return Reply.sse(events, event_names=[e["type"] for e in events], **kwargs)


def message_start(input_tokens: int = 10, **usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01ABC",
            "type": "message",
            "role": "assistant",
            "model": "claude-test-1-20250101",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
        },
    }


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, d: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": d}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_end(stop_reason: str = "end_turn", output_tokens: int = 20) -> list[dict[str, Any]]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
         "usage": {"output_tokens": output_tokens}},
        {"type": "message_stop"},
    ]


def text_events(chunks: list[str], index: int = 0) -> list[dict[str, Any]]:
    return (
        [block_start(index, {"type": "text", "text": ""})]
        + [delta(index, {"type": "text_delta", "text": c}) for c in chunks]
        + [block_stop(index)]
    )


async def run(model: Model, context: Context, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    s = stream(model, context, StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


# --------------------------------------------------------------------------- streaming


async def test_text_in_many_small_chunks_split_across_network_reads(loopback: LoopbackServer) -> None:
    chunks = ["Hé", "llo", ", ", "wo", "rld", "! ", "Ünï", "cødé", " ok"]
    events = [message_start()] + text_events(chunks) + message_end()
    raw = b"".join(sse_bytes(e, e["type"]) for e in events)
    # 5-byte network chunks cut lines, events and multi-byte characters at arbitrary points.
    loopback.push(Reply(pieces=[raw[i:i + 5] for i in range(0, len(raw), 5)]))

    got, msg = await run(make_model(loopback), ctx())

    assert types(got) == ["start", "text_start"] + ["text_delta"] * len(chunks) + ["text_end", "done"]
    assert [e.delta for e in got if e.type == "text_delta"] == chunks
    assert got[-2].content == "".join(chunks)
    assert got[-1].reason == "stop"
    assert msg.content == [TextContent(text="Héllo, world! Ünïcødé ok")]
    assert msg.stop_reason == "stop"
    assert msg.error_message is None
    assert msg.response_id == "msg_01ABC"
    assert msg.response_model == "claude-test-1-20250101"
    assert (msg.api, msg.provider, msg.model) == ("anthropic-messages", "anthropic", "claude-test-1")


async def test_thinking_with_signature_deltas_and_a_redacted_block(loopback: LoopbackServer) -> None:
    events = [
        message_start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
        delta(0, {"type": "thinking_delta", "thinking": "think."}),
        delta(0, {"type": "signature_delta", "signature": "SIG-part1"}),
        delta(0, {"type": "signature_delta", "signature": "-part2"}),
        block_stop(0),
        block_start(1, {"type": "redacted_thinking", "data": "ENCRYPTED=="}),
        block_stop(1),
        *text_events(["Answer", "."], index=2),
        *message_end(),
    ]
    loopback.push(reply(events))

    got, msg = await run(make_model(loopback), ctx(), reasoning="medium")

    assert types(got) == [
        "start",
        "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
        "thinking_start", "thinking_end",
        "text_start", "text_delta", "text_delta", "text_end",
        "done",
    ]
    assert [e.content_index for e in got if e.type.startswith("thinking")] == [0, 0, 0, 0, 1, 1]
    assert got[4].content == "Let me think."
    assert msg.content[0] == ThinkingContent(thinking="Let me think.", thinking_signature="SIG-part1-part2")
    assert msg.content[1] == ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="ENCRYPTED==",
                                             redacted=True)
    assert msg.content[2] == TextContent(text="Answer.")
    assert msg.stop_reason == "stop"


async def test_two_tool_calls_with_arguments_split_mid_token(loopback: LoopbackServer) -> None:
    first = ['{"pa', 'th": "/tmp/a', '.txt", "lim', 'it": 1', "0}"]
    second = ["", '{"command"', ': "ls -', 'la", "flag": tr', "ue}"]
    events = [
        message_start(),
        *text_events(["Reading."]),
        block_start(1, {"type": "tool_use", "id": "toolu_01", "name": "read", "input": {}}),
        *[delta(1, {"type": "input_json_delta", "partial_json": p}) for p in first],
        block_stop(1),
        block_start(2, {"type": "tool_use", "id": "toolu_02", "name": "bash", "input": {}}),
        *[delta(2, {"type": "input_json_delta", "partial_json": p}) for p in second],
        block_stop(2),
        *message_end("tool_use"),
    ]
    loopback.push(reply(events))

    s = stream(make_model(loopback), ctx(), StreamOptions(api_key=KEY))
    seen: list[tuple[str, int, dict[str, Any]]] = []
    got = []
    async for event in s:
        got.append(event)
        if event.type == "toolcall_delta":
            # `partial` is live; snapshot the arguments as they were at this event.
            seen.append((event.delta, event.content_index, dict(event.partial.content[event.content_index].arguments)))
    msg = await s.result()

    assert [e.type for e in got if e.type.startswith("toolcall")] == (
        ["toolcall_start"] + ["toolcall_delta"] * 5 + ["toolcall_end"]
    ) * 2
    assert [d for d, i, _ in seen if i == 1] == first
    assert seen[1] == ('th": "/tmp/a', 1, {"path": "/tmp/a"})
    assert seen[3][2] == {"path": "/tmp/a.txt", "limit": 1}
    ends = [e for e in got if e.type == "toolcall_end"]
    assert [e.tool_call for e in ends] == [
        ToolCall(id="toolu_01", name="read", arguments={"path": "/tmp/a.txt", "limit": 10}),
        ToolCall(id="toolu_02", name="bash", arguments={"command": "ls -la", "flag": True}),
    ]
    assert ends[0].to_wire()["toolCall"]["arguments"] == {"path": "/tmp/a.txt", "limit": 10}
    assert msg.tool_calls() == [e.tool_call for e in ends]
    assert msg.content[0] == TextContent(text="Reading.")
    assert msg.stop_reason == "toolUse"
    assert got[-1].type == "done" and got[-1].reason == "toolUse"


async def test_usage_with_cache_read_and_write_and_cost(loopback: LoopbackServer) -> None:
    events = [
        message_start(100, cache_read_input_tokens=2000, cache_creation_input_tokens=500),
        *text_events(["ok"]),
        *message_end(output_tokens=42),
    ]
    loopback.push(reply(events))

    _, msg = await run(make_model(loopback), ctx())

    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.cache_write) == (100, 42, 2000, 500)
    assert u.total_tokens == 2642
    assert u.cost.input == pytest.approx(100 * 3.0 / 1e6)
    assert u.cost.output == pytest.approx(42 * 15.0 / 1e6)
    assert u.cost.cache_read == pytest.approx(2000 * 0.3 / 1e6)
    assert u.cost.cache_write == pytest.approx(500 * 3.75 / 1e6)
    assert u.cost.total == pytest.approx(0.0003 + 0.00063 + 0.0006 + 0.001875)


@pytest.mark.parametrize(
    ("wire", "expected"),
    [("max_tokens", "length"), ("stop_sequence", "stop"), ("end_turn", "stop")],
)
async def test_stop_reasons(loopback: LoopbackServer, wire: str, expected: str) -> None:
    loopback.push(reply([message_start(), *text_events(["x"]), *message_end(wire)]))
    got, msg = await run(make_model(loopback), ctx())
    assert msg.stop_reason == expected
    assert got[-1].type == "done" and got[-1].reason == expected


async def test_refusal_ends_as_an_error_keeping_the_text(loopback: LoopbackServer) -> None:
    loopback.push(reply([message_start(), *text_events(["I can"]), *message_end("refusal")]))
    got, msg = await run(make_model(loopback), ctx())
    assert got[-1].type == "error" and got[-1].reason == "error"
    assert msg.stop_reason == "error"
    assert msg.error_message == "The model refused to complete the request"  # Pi's words
    assert msg.text() == "I can"


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    ("status", "body", "headers", "expected"),
    [
        # Pi's words (its Anthropic SDK's): the status, then the body as it came.
        (400, {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too large"}},
         {}, '400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}'),
        (401, {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {KEY}"}},
         {}, '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key [redacted]"}}'),
        (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "Rate limited"}},
         {"retry-after": "7"}, '429 {"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}} '
                               "(retry after 7s)"),
        (500, {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}},
         {}, '500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}'),
    ],
)
async def test_http_errors(
    loopback: LoopbackServer, status: int, body: dict[str, Any], headers: dict[str, str], expected: str
) -> None:
    loopback.push(Reply.json(status, body, headers))
    got, msg = await run(make_model(loopback), ctx())
    assert types(got) == ["error"]  # no start: the server refused the request (as Pi)
    assert got[-1].reason == "error"
    assert msg.stop_reason == "error"
    assert msg.error_message == expected
    assert KEY not in json.dumps(msg.to_wire())
    assert msg.content == []


async def test_in_stream_error_event_keeps_partial_content(loopback: LoopbackServer) -> None:
    events = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "Partial"}),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    loopback.push(reply(events))
    got, msg = await run(make_model(loopback), ctx())
    assert types(got) == ["start", "text_start", "text_delta", "text_end", "error"]
    assert msg.stop_reason == "error"
    assert msg.error_message == "overloaded_error: Overloaded"
    assert msg.content == [TextContent(text="Partial")]


async def test_connection_dropped_mid_stream_keeps_partial(loopback: LoopbackServer) -> None:
    events = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        delta(0, {"type": "text_delta", "text": "Half an ans"}),
    ]
    loopback.push(reply(events, drop=True))
    got, msg = await run(make_model(loopback), ctx())
    assert got[-1].type == "error" and got[-1].reason == "error"
    assert "text_end" in types(got)
    assert msg.stop_reason == "error"
    assert msg.error_message
    assert msg.content == [TextContent(text="Half an ans")]


async def test_stream_that_ends_without_message_stop_is_an_error(loopback: LoopbackServer) -> None:
    loopback.push(reply([message_start(), *text_events(["cut"])]))
    _, msg = await run(make_model(loopback), ctx())
    assert msg.stop_reason == "error"
    assert msg.error_message == "Anthropic stream ended without a stop reason"  # Pi's words
    assert msg.text() == "cut"


async def test_malformed_data_line_is_a_clear_error(loopback: LoopbackServer) -> None:
    good = [message_start(), block_start(0, {"type": "text", "text": ""}),
            delta(0, {"type": "text_delta", "text": "So far"})]
    pieces = [sse_bytes(e, e["type"]) for e in good]
    pieces.append(b'event: content_block_delta\ndata: {"type": "content_block_delta", "ind\n\n')
    pieces += [sse_bytes(e, e["type"]) for e in message_end()]
    loopback.push(Reply(pieces=pieces))
    got, msg = await run(make_model(loopback), ctx())
    assert got[-1].type == "error"
    assert msg.stop_reason == "error"
    assert msg.error_message.startswith("Malformed JSON in the Anthropic stream")
    assert msg.text() == "So far"


async def test_stalled_server_then_abort_ends_quickly(loopback: LoopbackServer) -> None:
    events = [message_start(), block_start(0, {"type": "text", "text": ""}),
              delta(0, {"type": "text_delta", "text": "Before the stall"})]
    loopback.push(reply(events, stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), ctx(), StreamOptions(api_key=KEY, signal=controller.signal))
    got = []
    started = None
    async for event in s:
        got.append(event)
        if event.type == "text_delta":
            asyncio.get_running_loop().call_later(0.05, controller.abort)
            started = time.monotonic()
    elapsed = time.monotonic() - started
    msg = await s.result()
    assert elapsed < 60  # a stalled server would otherwise hold the request for the 600 s timeout (room for load)
    assert got[-1].type == "error" and got[-1].reason == "aborted"
    assert msg.stop_reason == "aborted"
    assert msg.content == [TextContent(text="Before the stall")]


async def test_missing_api_key_names_the_env_var(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    got, msg = await run(make_model(loopback), ctx(), api_key=None)
    assert got[-1].type == "error"
    assert msg.stop_reason == "error"
    assert "ANTHROPIC_API_KEY" in msg.error_message
    assert loopback.requests == []


async def test_unknown_thinking_level_is_an_error_without_a_request(loopback: LoopbackServer) -> None:
    _, msg = await run(make_model(loopback), ctx(), reasoning="extreme")
    assert msg.stop_reason == "error"
    assert "extreme" in msg.error_message
    assert loopback.requests == []


# --------------------------------------------------------------------------- request


def ok_reply() -> Reply:
    return reply([message_start(), *text_events(["ok"]), *message_end()])


async def test_request_body_field_by_field(loopback: LoopbackServer) -> None:
    model = make_model(loopback, headers={"x-model-header": "m"})
    earlier = AssistantMessage(
        api="anthropic-messages", provider="anthropic", model="claude-test-1",
        content=[
            ThinkingContent(thinking="Plan.", thinking_signature="SIG1"),
            ThinkingContent(thinking="", thinking_signature="REDACTED", redacted=True),
            TextContent(text="Looking."),
            ToolCall(id="toolu_1", name="read", arguments={"path": "a.py"}),
            ToolCall(id="call|weird.id", name="bash", arguments={"command": "ls"}),
        ],
        stop_reason="toolUse", usage=Usage(),
    )
    context = Context(
        system_prompt="You are terse.",
        messages=[
            UserMessage(content=[TextContent(text="Look"), ImageContent(data="iVBORw0=", mime_type="image/png")]),
            earlier,
            ToolResultMessage(tool_call_id="toolu_1", tool_name="read",
                              content=[TextContent(text="print(1)"), ImageContent(data="R0lG", mime_type="image/gif")]),
            ToolResultMessage(tool_call_id="call|weird.id", tool_name="bash",
                              content=[TextContent(text="boom")], is_error=True),
            UserMessage(content="Thanks, continue"),
        ],
        tools=[Tool(name="read", description="Read a file",
                    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})],
    )
    loopback.push(ok_reply())

    _, msg = await run(model, context, reasoning="high", temperature=0.3, headers={"x-extra": "1"})
    assert msg.stop_reason == "stop"

    req = loopback.requests[0]
    assert (req.method, req.path) == ("POST", "/v1/messages?beta=true")  # the SDK's beta endpoint, as Pi
    assert req.headers["x-api-key"] == KEY
    assert "authorization" not in req.headers
    assert req.headers["anthropic-version"] == "2023-06-01"
    # Tools stream eagerly (eager_input_streaming): no fine-grained-tool-streaming beta (Pi 1.6).
    assert req.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert req.headers["anthropic-dangerous-direct-browser-access"] == "true"
    assert req.headers["content-type"] == "application/json"
    assert req.headers["x-model-header"] == "m"
    assert req.headers["x-extra"] == "1"

    body = req.json()
    assert set(body) == {"model", "max_tokens", "messages", "stream", "system", "tools", "thinking"}
    assert body["model"] == "claude-test-1"
    assert body["stream"] is True
    assert body["max_tokens"] == 32000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384, "display": "summarized"}
    assert "temperature" not in body  # thinking on: the API only takes its default
    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"] == [{
        "name": "read", "description": "Read a file", "eager_input_streaming": True,
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "cache_control": {"type": "ephemeral"},
    }]
    assert body["messages"] == [
        {"role": "user", "content": [
            {"type": "text", "text": "Look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0="}},
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Plan.", "signature": "SIG1"},
            {"type": "redacted_thinking", "data": "REDACTED"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py"}},
            {"type": "tool_use", "id": "call_weird_id", "name": "bash", "input": {"command": "ls"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "print(1)"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"}},
            ], "is_error": False},
            {"type": "tool_result", "tool_use_id": "call_weird_id", "content": "boom", "is_error": True},
        ]},
        {"role": "user", "content": [
            {"type": "text", "text": "Thanks, continue", "cache_control": {"type": "ephemeral"}},
        ]},
    ]


async def test_thinking_off_sends_temperature_and_options_max_tokens(loopback: LoopbackServer) -> None:
    loopback.push(ok_reply())
    await run(make_model(loopback), ctx(), reasoning="off", temperature=0.3, max_tokens=1234)
    req = loopback.requests[0]
    body = req.json()
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 1234
    assert body["thinking"] == {"type": "disabled"}  # a reasoning model told not to think (Pi)
    assert "system" not in body and "tools" not in body
    assert "anthropic-beta" not in req.headers
    # No system prompt: the cache breakpoint still marks the last user turn.
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}
    ]


async def test_thinking_budget_comes_on_top_of_the_output_limit(loopback: LoopbackServer) -> None:
    # Pi 1.6: the budget is added to the caller's limit (never past the model's), and always leaves
    # 1024 tokens of the limit for the answer.
    loopback.push(ok_reply(), ok_reply(), ok_reply())
    await run(make_model(loopback), ctx(), reasoning="high", max_tokens=4000)
    await run(make_model(loopback, max_tokens=1500), ctx(), reasoning="low")
    await run(make_model(loopback), ctx(), reasoning="minimal", max_tokens=1000)
    first, second, third = (r.json() for r in loopback.requests)
    assert (first["max_tokens"], first["thinking"]["budget_tokens"]) == (4000 + 16384, 16384)
    assert (second["max_tokens"], second["thinking"]["budget_tokens"]) == (1500, 476)
    assert (third["max_tokens"], third["thinking"]["budget_tokens"]) == (1000 + 1024, 1000)
    for body in (first, second, third):
        assert body["max_tokens"] - body["thinking"]["budget_tokens"] >= 1000


async def test_reasoning_ignored_for_non_reasoning_model(loopback: LoopbackServer) -> None:
    loopback.push(ok_reply(), ok_reply())
    await run(make_model(loopback, reasoning=False), ctx(), reasoning="high", temperature=0.5)
    await run(make_model(loopback, reasoning=False), ctx(), temperature=0.5)
    asked, plain = (r.json() for r in loopback.requests)
    assert "thinking" not in asked and "thinking" not in plain
    # As in Pi, a thinking level asked of a model that does not reason still leaves the temperature out
    # (the session never asks: it clamps the level to off for such a model).
    assert "temperature" not in asked and plain["temperature"] == 0.5


async def test_history_from_another_model_and_text_only_model(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env-9876")
    other = AssistantMessage(
        api="openai-responses", provider="openai", model="gpt-x",
        content=[ThinkingContent(thinking="Hidden plan", thinking_signature="enc"), TextContent(text="Hi!")],
        stop_reason="stop",
    )
    context = Context(messages=[
        UserMessage(content=[TextContent(text="see"), ImageContent(data="AAAA", mime_type="image/png")]),
        other,
        UserMessage(content="next"),
    ])
    loopback.push(ok_reply())
    await run(make_model(loopback, input=["text"]), context, api_key=None)
    req = loopback.requests[0]
    assert req.headers["x-api-key"] == "sk-from-env-9876"
    msgs = req.json()["messages"]
    assert msgs[0]["content"] == [
        {"type": "text", "text": "see"},
        {"type": "text", "text": "(image omitted: model does not support images)"},
    ]
    # Another model's signature is no use to this one: no thinking block is replayed.
    assert msgs[1]["role"] == "assistant"
    assert {b["type"] for b in msgs[1]["content"]} == {"text"}
    assert msgs[1]["content"][-1] == {"type": "text", "text": "Hi!"}


async def test_key_from_the_environment_never_appears_in_errors(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-secret-5555")
    body = {"type": "error", "error": {"type": "authentication_error", "message": "bad key sk-ant-env-secret-5555"}}
    loopback.push(Reply.json(401, body))
    _, msg = await run(make_model(loopback), ctx(), api_key=None)
    assert loopback.requests[0].headers["x-api-key"] == "sk-ant-env-secret-5555"
    assert msg.error_message == '401 {"type":"error","error":{"type":"authentication_error","message":"bad key [redacted]"}}'


async def test_a_claude_subscription_token_goes_out_as_claude_code(loopback: LoopbackServer) -> None:
    # Pi 1.6 (api/anthropic-messages.js): bearer token, Claude Code's user agent and betas, its
    # identity as a first system block (both blocks cached), tool names in Claude Code's spelling.
    token = "sk-ant-oat01-token-7777"
    earlier = AssistantMessage(api="anthropic-messages", provider="anthropic", model="claude-test-1",
                               content=[ToolCall(id="toolu_1", name="read", arguments={"path": "a"})],
                               stop_reason="toolUse", usage=Usage())
    context = Context(system_prompt="Be brief.", messages=[
        UserMessage(content="hi"), earlier,
        ToolResultMessage(tool_call_id="toolu_1", tool_name="read", content=[TextContent(text="x")]),
    ], tools=[Tool(name="read", description="Read", parameters={"type": "object"}),
              Tool(name="my_tool", description="Mine", parameters={"type": "object"})])
    loopback.push(reply([message_start(),
                         block_start(0, {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}),
                         delta(0, {"type": "input_json_delta", "partial_json": '{"path": "b"}'}),
                         block_stop(0), *message_end("tool_use")]))
    _, msg = await run(make_model(loopback), context, api_key=token)
    req = loopback.requests[0]
    assert req.headers["authorization"] == f"Bearer {token}"
    assert "x-api-key" not in req.headers
    assert req.headers["anthropic-beta"] == "claude-code-20250219,oauth-2025-04-20"  # eager tool streaming instead
    assert req.headers["user-agent"] == "claude-cli/2.1.322"
    assert req.headers["x-app"] == "cli"
    assert req.headers["anthropic-dangerous-direct-browser-access"] == "true"
    body = req.json()
    assert body["system"] == [
        {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.",
         "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}},
    ]
    assert [t["name"] for t in body["tools"]] == ["Read", "my_tool"]
    assert body["messages"][1]["content"][0]["name"] == "Read"
    assert msg.content[0] == ToolCall(id="toolu_2", name="read", arguments={"path": "b"})


async def test_an_api_key_and_copilot_tokens_get_no_claude_code_identity(loopback: LoopbackServer) -> None:
    tools = [Tool(name="read", description="Read", parameters={"type": "object"})]
    loopback.push(ok_reply(), ok_reply())
    await run(make_model(loopback), ctx(tools=tools), api_key="sk-ant-api03-plain")
    await run(make_model(loopback, provider="github-copilot"), ctx(tools=tools), api_key="tid=1;sk-ant-oat-lookalike")
    plain, copilot = loopback.requests
    assert plain.headers["x-api-key"] == "sk-ant-api03-plain" and "x-app" not in plain.headers
    assert plain.json()["tools"][0]["name"] == "read"
    assert copilot.headers["authorization"] == "Bearer tid=1;sk-ant-oat-lookalike"
    assert "x-api-key" not in copilot.headers and "x-app" not in copilot.headers
    assert "claude-code" not in copilot.headers.get("anthropic-beta", "")
    assert copilot.json()["tools"][0]["name"] == "read"
    # stream() adds Copilot's per-request headers: the user started this one.
    assert copilot.headers["x-initiator"] == "user"
    assert copilot.headers["openai-intent"] == "conversation-edits"
