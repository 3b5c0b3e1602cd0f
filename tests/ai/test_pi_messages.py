"""pi-messages (Pi's own API) against a real HTTP server on 127.0.0.1 speaking its SSE events."""

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
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    UserMessage,
)
from pi_runtime.testing.loopback import Reply

KEY = "radius-secret-key-0123456789"
USAGE = {"input": 20, "output": 5, "cacheRead": 10, "cacheWrite": 0, "totalTokens": 35,
         "cost": {"input": 0.0002, "output": 0.0005, "cacheRead": 0.00001, "cacheWrite": 0, "total": 0.00071}}


def make_model(server, **overrides: Any) -> Model:
    values: dict[str, Any] = dict(id="claude-x", api="pi-messages", provider="radius", base_url=server.url + "/v1")
    values.update(overrides)
    return Model.model_validate(values)


async def run(model: Model, context: Context | None = None, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    s = stream(model, context or Context(messages=[UserMessage(content="hi", timestamp=1)]), StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def text_events(text: str = "Hello") -> list[dict[str, Any]]:
    return [{"type": "start"}, {"type": "text_start", "contentIndex": 0},
            {"type": "text_delta", "contentIndex": 0, "delta": text[:2]},
            {"type": "text_delta", "contentIndex": 0, "delta": text[2:]},
            {"type": "text_end", "contentIndex": 0, "content": text, "contentSignature": "sig-1"},
            {"type": "done", "reason": "stop", "usage": USAGE, "responseId": "r1", "responseModel": "claude-x-2"}]


async def test_text_usage_and_the_request(loopback):
    loopback.push(Reply.sse(text_events()))
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content=[TextContent(text="hi")], timestamp=7)],
                      tools=[Tool(name="bash", description="Run", constrained_sampling={"type": "json_schema",
                                                                                        "strict": "prefer"})])
    events, msg = await run(make_model(loopback), context, session_id="s-1", reasoning="high", temperature=0.5)

    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.content == [TextContent(text="Hello", text_signature="sig-1")]
    assert (msg.stop_reason, msg.response_id, msg.response_model) == ("stop", "r1", "claude-x-2")
    # The server's usage and cost are kept as sent (it priced the request).
    assert msg.usage.to_wire() == {**USAGE, "cost": {**USAGE["cost"], "cacheWrite": 0.0}}
    request = loopback.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.headers["authorization"] == f"Bearer {KEY}" and request.headers["accept"] == "text/event-stream"
    assert request.body == json.dumps({"model": "claude-x", "context": {
        "systemPrompt": "Be brief.", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}],
                                                   "timestamp": 7}],
        "tools": [{"name": "bash", "description": "Run", "parameters": {"type": "object", "properties": {}},
                   "constrainedSampling": {"type": "json_schema", "strict": "prefer"}}]},
        "options": {"temperature": 0.5, "reasoning": "high", "sessionId": "s-1"}}, separators=(",", ":")).encode()


async def test_a_transcript_with_system_messages_goes_as_it_is(loopback):
    system = SystemMessage(content="", sections={"preamble": "Be brief."}, timestamp=3,
                           tools_added=[{"name": "bash", "description": "Run", "parameters": {"type": "object"}}])
    earlier = AssistantMessage(content=[TextContent(text="ok")], api="pi-messages", provider="radius",
                               model="claude-x", stop_reason="stop", timestamp=5)
    loopback.push(Reply.sse(text_events()))
    await run(make_model(loopback), Context(system_prompt="Be brief.", tools=[Tool(name="declared by the transcript")],
                                            messages=[system, UserMessage(content="hi", timestamp=4), earlier]))
    context = loopback.requests[0].json()["context"]
    assert list(context) == ["messages"]
    assert context["messages"][0] == {"role": "system", "content": "", "sections": {"preamble": "Be brief."},
                                      "timestamp": 3, "toolsAdded": [{"name": "bash", "description": "Run",
                                                                      "parameters": {"type": "object"}}]}
    # Whole-number costs are written as JSON.stringify writes them.
    assert '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}' in loopback.requests[0].body.decode()

    # An extension's forced prompt leads instead, with the declared tools (Pi's projection).
    loopback.push(Reply.sse(text_events()))
    await run(make_model(loopback), Context(system_prompt="Forced.", messages=[system, UserMessage(content="hi")]))
    head = loopback.requests[1].json()["context"]["messages"][0]
    assert head == {"role": "system", "content": "Forced.", "toolsAdded": system.to_wire()["toolsAdded"],
                    "timestamp": 3}


async def test_tool_call_and_thinking(loopback):
    call = {"type": "toolCall", "id": "call_9", "name": "bash", "arguments": {"command": "ls"}}
    loopback.push(Reply.sse([
        {"type": "start"}, {"type": "thinking_start", "contentIndex": 0},
        {"type": "thinking_delta", "contentIndex": 0, "delta": "Hmm"},
        {"type": "thinking_end", "contentIndex": 0, "content": "Hmm.", "contentSignature": "th-sig"},
        {"type": "toolcall_start", "contentIndex": 1, "id": "call_9", "toolName": "bash"},
        {"type": "toolcall_delta", "contentIndex": 1, "delta": '{"command":'},
        {"type": "toolcall_delta", "contentIndex": 1, "delta": '"ls"}'},
        {"type": "toolcall_end", "contentIndex": 1, "toolCall": call},
        {"type": "done", "reason": "toolUse", "usage": USAGE, "responseId": "r2"}]))
    events, msg = await run(make_model(loopback))
    assert types(events) == ["start", "thinking_start", "thinking_delta", "thinking_end", "toolcall_start",
                             "toolcall_delta", "toolcall_delta", "toolcall_end", "done"]
    assert msg.content == [ThinkingContent(thinking="Hmm.", thinking_signature="th-sig"),
                           ToolCall(id="call_9", name="bash", arguments={"command": "ls"})]
    assert msg.stop_reason == "toolUse"


async def test_server_error_events_and_bad_indexes(loopback):
    loopback.push(Reply.sse([{"type": "start"}, {"type": "text_start", "contentIndex": 0},
                             {"type": "text_delta", "contentIndex": 0, "delta": "par"},
                             {"type": "error", "reason": "error", "usage": USAGE,
                              "errorMessage": "upstream overloaded"}]))
    _, msg = await run(make_model(loopback))
    assert (msg.stop_reason, msg.error_message, msg.text()) == ("error", "upstream overloaded", "par")
    assert classify_error(msg) == "retryable"

    loopback.push(Reply.sse([{"type": "start"}, {"type": "text_delta", "contentIndex": 3, "delta": "x"}]))
    _, msg = await run(make_model(loopback))
    assert msg.error_message == "Invalid contentIndex 3 in pi-messages text_delta event"

    loopback.push(Reply.sse([{"type": "start"}, {"type": "text_start", "contentIndex": 0}]))
    _, msg = await run(make_model(loopback))
    assert msg.error_message == "radius stream ended without a terminal event"


@pytest.mark.parametrize(("status", "text", "kind"), [(400, "Unknown model", "fatal"),
                                                     (429, "Rate limit reached", "retryable"),
                                                     (500, "Internal failure", "retryable")])
async def test_http_errors(loopback, status, text, kind):
    loopback.push(Reply.json(status, {"error": {"message": text, "code": "some_code"}}))
    _, msg = await run(make_model(loopback))
    phrase = {400: "Bad Request", 429: "Too Many Requests", 500: "Internal Server Error"}[status]
    assert msg.error_message == f"{status} {phrase}: {text} (some_code)"
    assert classify_error(msg) == kind


async def test_cut_stream_and_abort(loopback):
    loopback.push(Reply.sse(text_events()[:3], drop=True))
    _, msg = await run(make_model(loopback))
    assert (msg.stop_reason, msg.text()) == ("error", "He") and classify_error(msg) == "retryable"

    loopback.push(Reply.sse(text_events()[:3], stall=True))
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
    msg = await s.result()
    assert events[-1].type == "error" and (msg.stop_reason, msg.error_message) == ("aborted", "Request was aborted")


async def test_missing_key_names_the_variable(monkeypatch, loopback):
    monkeypatch.delenv("RADIUS_API_KEY", raising=False)
    _, msg = await run(make_model(loopback), api_key=None)
    assert "RADIUS_API_KEY" in msg.error_message and loopback.requests == []
