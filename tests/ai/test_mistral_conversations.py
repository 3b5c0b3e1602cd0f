"""mistral-conversations against a real HTTP server on 127.0.0.1 speaking Mistral's SSE."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.errors import classify_error
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
    UserMessage,
)
from pi_runtime.testing.loopback import Reply

KEY = "mistral-secret-key-0123456789"
TOOL = Tool(name="bash", description="Run a command", parameters={
    "type": "object", "required": ["command"], "properties": {"command": {"type": "string"}}})


def make_model(server, **overrides: Any) -> Model:
    values: dict[str, Any] = dict(id="mistral-test", api="mistral-conversations", provider="mistral",
                                  base_url=server.url, max_tokens=4000,
                                  cost=ModelCost(input=2.0, output=6.0, cache_read=0.2))
    values.update(overrides)
    return Model.model_validate(values)


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, usage: dict | None = None) -> dict:
    data: dict[str, Any] = {"id": "cmpl-1", "model": "mistral-test",
                            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    if usage:
        data["usage"] = usage
    return data


USAGE = {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}


async def run(model: Model, context: Context | None = None, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    s = stream(model, context or Context(messages=[UserMessage(content="hi")]), StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


async def test_text_stream_and_request(loopback):
    loopback.push(Reply.sse([chunk({"role": "assistant", "content": "Hel"}), chunk({"content": ""}),
                             chunk({"content": "lo"}), chunk(finish="stop", usage=USAGE), "[DONE]"]))
    events, message = await run(make_model(loopback), Context(system_prompt="Be brief.", messages=[
        UserMessage(content=[TextContent(text="hi")])]), session_id="sess-1", temperature=0.3)

    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert (message.text(), message.stop_reason, message.raw_stop_reason) == ("Hello", "stop", "stop")
    assert message.response_id == "cmpl-1"
    request = loopback.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["x-affinity"] == "sess-1"
    assert request.headers["user-agent"].startswith("pi/")
    # Pi's keys in Pi's order, compact JSON.
    assert request.body == json.dumps({
        "model": "mistral-test", "stream": True,
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "temperature": 0.3, "max_tokens": 4000, "prompt_cache_key": "sess-1"}, separators=(",", ":")).encode()


async def test_tool_call_then_replay_with_result(loopback):
    call = {"id": "AbC123xyz", "function": {"name": "bash", "arguments": '{"command":'}, "index": 0}
    more = {"function": {"name": "bash", "arguments": '"ls"}'}, "index": 0}
    loopback.push(Reply.sse([chunk({"role": "assistant", "content": "Let me look."}),
                             chunk({"tool_calls": [call]}), chunk({"tool_calls": [more]}),
                             chunk(finish="tool_calls", usage=USAGE), "[DONE]"]))
    events, message = await run(make_model(loopback), Context(messages=[UserMessage(content="list")], tools=[TOOL]))

    assert types(events) == ["start", "text_start", "text_delta", "text_end", "toolcall_start", "toolcall_delta",
                             "toolcall_delta", "toolcall_end", "done"]
    assert message.stop_reason == "toolUse"
    assert message.content[1] == ToolCall(id="AbC123xyz", name="bash", arguments={"command": "ls"})
    tools = loopback.requests[0].json()["tools"]
    assert tools == [{"type": "function", "function": {"name": "bash", "description": "Run a command",
                                                       "parameters": TOOL.parameters, "strict": False}}]

    loopback.push(Reply.sse([chunk({"content": "done"}), chunk(finish="stop"), "[DONE]"]))
    history = [UserMessage(content="list"), message,
               ToolResultMessage(tool_call_id="AbC123xyz", tool_name="bash", content=[TextContent(text="a\nb\n")])]
    await run(make_model(loopback), Context(messages=history, tools=[TOOL]))
    sent = loopback.requests[1].json()["messages"]
    assert sent[1] == {"role": "assistant", "prefix": False, "content": [{"type": "text", "text": "Let me look."}],
                       "tool_calls": [{"id": "AbC123xyz", "type": "function",
                                       "function": {"name": "bash", "arguments": '{"command":"ls"}'}, "index": 0}]}
    assert sent[2] == {"role": "tool", "name": "bash", "content": [{"type": "text", "text": "a\nb"}],
                       "tool_call_id": "AbC123xyz"}
    assert list(sent[2]) == ["role", "name", "content", "tool_call_id"]


async def test_foreign_tool_call_ids_become_nine_characters(loopback):
    foreign = AssistantMessage(api="openai-responses", provider="openai", model="gpt", stop_reason="toolUse",
                               content=[ToolCall(id="call_abc|fc_123", name="bash", arguments={"command": "ls"}),
                                        ToolCall(id="call-abc|fc-123", name="bash", arguments={"command": "pwd"})])
    history = [UserMessage(content="go"), foreign,
               ToolResultMessage(tool_call_id="call_abc|fc_123", tool_name="bash", content=[], is_error=True),
               ToolResultMessage(tool_call_id="call-abc|fc-123", tool_name="bash",
                                 content=[ImageContent(data="AAAA", mime_type="image/png")])]
    loopback.push(Reply.sse([chunk({"content": "ok"}), chunk(finish="stop"), "[DONE]"]))
    await run(make_model(loopback), Context(messages=history))
    sent = loopback.requests[0].json()["messages"]
    ids = [c["id"] for c in sent[1]["tool_calls"]]
    # Both strip to the same letters: the second gets another hash (Pi's collision rule).
    assert all(len(i) == 9 and i.isalnum() for i in ids) and ids[0] != ids[1]
    assert [sent[2]["tool_call_id"], sent[3]["tool_call_id"]] == ids
    assert sent[2]["content"] == [{"type": "text", "text": "[tool error] (no tool output)"}]
    # A text-only model gets a placeholder for the tool's image.
    assert sent[3]["content"] == [{"type": "text", "text": "(tool image omitted: model does not support images)"}]


async def test_thinking_chunks_and_reasoning_modes(loopback):
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "Let me "}, {"type": "text", "text": "see."}]}
    loopback.push(Reply.sse([chunk({"role": "assistant", "content": [thinking]}),
                             chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": " Ok."}]}]}),
                             chunk({"content": [{"type": "text", "text": "Four."}]}),
                             chunk(finish="stop", usage=USAGE), "[DONE]"]))
    events, message = await run(make_model(loopback, reasoning=True), reasoning="high")
    assert types(events) == ["start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
                             "text_start", "text_delta", "text_end", "done"]
    assert message.content == [ThinkingContent(thinking="Let me see. Ok."), TextContent(text="Four.")]
    assert loopback.requests[0].json()["prompt_mode"] == "reasoning"

    # A thinkingLevelMap names the efforts: reasoning_effort instead of prompt_mode; off maps too.
    mapped = make_model(loopback, reasoning=True, thinkingLevelMap={"off": "none", "high": "high", "low": None})
    for level, effort in (("high", "high"), ("off", "none"), ("medium", "high")):
        loopback.push(Reply.sse([chunk({"content": "x"}), chunk(finish="stop"), "[DONE]"]))
        await run(mapped, reasoning=level)
        body = loopback.requests[-1].json()
        assert body.get("reasoning_effort") == effort and "prompt_mode" not in body

    # Replayed thinking goes back as a thinking chunk.
    loopback.push(Reply.sse([chunk({"content": "x"}), chunk(finish="stop"), "[DONE]"]))
    await run(make_model(loopback, reasoning=True), Context(messages=[UserMessage(content="q"), message,
                                                                       UserMessage(content="again")]))
    replay = loopback.requests[-1].json()["messages"][1]
    assert replay["content"] == [{"type": "thinking", "thinking": [{"type": "text", "text": "Let me see. Ok."}]},
                                 {"type": "text", "text": "Four."}]


async def test_usage_with_cached_tokens_and_cost(loopback):
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
             "prompt_tokens_details": {"cached_tokens": 600}}
    loopback.push(Reply.sse([chunk({"content": "x"}), chunk(finish="stop", usage=usage), "[DONE]"]))
    _, message = await run(make_model(loopback))
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.cache_write, u.total_tokens) == (400, 100, 600, 0, 1100)
    assert u.cost.input == pytest.approx(400 * 2.0 / 1e6)
    assert u.cost.cache_read == pytest.approx(600 * 0.2 / 1e6)
    assert u.cost.total == pytest.approx((400 * 2 + 100 * 6 + 600 * 0.2) / 1e6)


async def test_length_and_in_stream_error(loopback):
    loopback.push(Reply.sse([chunk({"content": "cut"}), chunk(finish="model_length"), "[DONE]"]))
    _, message = await run(make_model(loopback))
    assert (message.stop_reason, message.raw_stop_reason) == ("length", "model_length")

    loopback.push(Reply.sse([chunk({"content": "half"}), chunk(finish="error"), "[DONE]"]))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error" and message.text() == "half"
    assert message.error_message == "Provider stopped with: error (server error)"
    assert classify_error(message) == "retryable"

    loopback.push(Reply.sse([chunk({"content": "x"}), "[DONE]"]))
    _, message = await run(make_model(loopback))
    assert message.error_message == "Mistral stream ended without a finish reason"


async def test_error_bodies_keep_their_text_and_classify(loopback):
    body = {"object": "error", "message": "Invalid model: nope", "type": "invalid_model", "param": None, "code": "1500"}
    loopback.push(Reply.json(400, body))
    _, message = await run(make_model(loopback))
    assert message.error_message == f"Mistral API error (400): {json.dumps(body)}"
    assert classify_error(message) == "fatal"

    loopback.push(Reply.json(429, {"message": "Requests rate limit exceeded"}, headers={"retry-after": "3"}))
    _, message = await run(make_model(loopback))
    assert message.error_message.startswith("Mistral API error (429): ")
    assert "retry after 3s" in message.error_message
    assert classify_error(message) == "retryable"

    loopback.push(Reply(status=500, pieces=[b""]))
    _, message = await run(make_model(loopback))
    assert message.error_message == "Mistral API error (500): Internal Server Error"
    assert classify_error(message) == "retryable"

    loopback.push(Reply.json(400, {"message": "x" * 5000}))
    _, message = await run(make_model(loopback))
    assert message.error_message.endswith("... [truncated 1015 chars]")


async def test_cut_stream_and_bad_event(loopback):
    loopback.push(Reply.sse([chunk({"content": "abc"})], drop=True))
    _, message = await run(make_model(loopback))
    assert (message.stop_reason, message.text()) == ("error", "abc")
    assert classify_error(message) == "retryable"

    loopback.push(Reply.sse([chunk({"content": "abc"}), {"no": "choices"}]))
    _, message = await run(make_model(loopback))
    assert message.error_message == "Invalid Mistral streaming event"


async def test_abort_while_the_server_stalls(loopback):
    loopback.push(Reply.sse([chunk({"content": "wait"})], stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), Context(messages=[UserMessage(content="hi")]),
               StreamOptions(api_key=KEY, signal=controller.signal))

    async def consume() -> list[Any]:
        seen = []
        async for event in s:
            seen.append(event)
            if event.type == "text_delta":
                controller.abort()
        return seen

    events = await asyncio.wait_for(consume(), timeout=10)  # guards against a hang only
    message = await s.result()
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    assert (message.stop_reason, message.error_message, message.text()) == ("aborted", "Request was aborted", "wait")


async def test_missing_key_names_the_variable(monkeypatch, loopback):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    _, message = await run(make_model(loopback), api_key=None)
    assert message.stop_reason == "error" and "MISTRAL_API_KEY" in message.error_message
    assert loopback.requests == []
