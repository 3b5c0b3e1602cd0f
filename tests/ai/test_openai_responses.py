"""openai-responses provider against a real HTTP server on 127.0.0.1 (LoopbackServer)."""

from __future__ import annotations

import asyncio
import json
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
    UserMessage,
)
from pi_runtime.testing.loopback import Reply

KEY = "sk-resp-secret-9876543210"
PNG = "iVBORw0KGgo="


def make_model(server, **overrides: Any) -> Model:
    values: dict[str, Any] = dict(
        id="gpt-5-test", api="openai-responses", provider="openai", base_url=server.url + "/v1",
        cost=ModelCost(input=1.25, output=10.0, cache_read=0.125), max_tokens=8000,
    )
    values.update(overrides)
    return Model.model_validate(values)


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def sse(events: list[dict[str, Any]], **kwargs: Any) -> Reply:
    """Responses SSE: each event carries both an ``event:`` line and its type in the data."""
    return Reply.sse(events, event_names=[e.get("type") for e in events], **kwargs)


def created() -> dict[str, Any]:
    return ev("response.created", response={"id": "resp_1", "status": "in_progress"})


def completed(status: str = "completed", usage: dict | None = None, **extra: Any) -> dict[str, Any]:
    response = {"id": "resp_1", "status": status,
                "usage": usage or {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}}
    response.update(extra)
    return ev(f"response.{'completed' if status == 'completed' else status}", response=response)


def message_events(text: str, item_id: str = "msg_1", size: int = 4) -> list[dict[str, Any]]:
    out = [ev("response.output_item.added", output_index=0,
              item={"type": "message", "id": item_id, "role": "assistant", "content": []}),
           ev("response.content_part.added", item_id=item_id, output_index=0, content_index=0,
              part={"type": "output_text", "text": ""})]
    out += [ev("response.output_text.delta", item_id=item_id, output_index=0, content_index=0,
               delta=text[i:i + size]) for i in range(0, len(text), size)]
    out.append(ev("response.output_item.done", output_index=0,
                  item={"type": "message", "id": item_id, "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}))
    return out


async def run(model: Model, context: Context | None = None, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    s = stream(model, context or Context(messages=[UserMessage(content="hi")]), StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


async def test_text_deltas(loopback):
    text = "Streaming in many small pieces, four characters each."
    loopback.push(sse([created(), *message_events(text), completed()]))
    events, message = await run(make_model(loopback))

    n = len(range(0, len(text), 4))
    assert types(events) == ["start", "text_start", *["text_delta"] * n, "text_end", "done"]
    assert message.content == [TextContent(text=text, text_signature='{"v":1,"id":"msg_1"}')]
    assert message.stop_reason == "stop"
    assert message.response_id == "resp_1"
    request = loopback.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/responses")
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_reasoning_summary_then_text(loopback):
    reasoning_item = {"type": "reasoning", "id": "rs_1", "encrypted_content": "ENC==",
                      "summary": [{"type": "summary_text", "text": "First."},
                                  {"type": "summary_text", "text": "Second."}]}
    loopback.push(sse([
        created(),
        ev("response.output_item.added", output_index=0, item={"type": "reasoning", "id": "rs_1", "summary": []}),
        ev("response.reasoning_summary_part.added", item_id="rs_1", output_index=0, summary_index=0),
        ev("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=0, delta="Fir"),
        ev("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=0, delta="st."),
        ev("response.reasoning_summary_part.done", item_id="rs_1", output_index=0, summary_index=0),
        ev("response.reasoning_summary_part.added", item_id="rs_1", output_index=0, summary_index=1),
        ev("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=1,
           delta="Second."),
        ev("response.output_item.done", output_index=0, item=reasoning_item),
        *message_events("Done.", item_id="msg_2"),
        completed(usage={"input_tokens": 50, "output_tokens": 40, "total_tokens": 90,
                         "output_tokens_details": {"reasoning_tokens": 30}}),
    ]))
    events, message = await run(make_model(loopback, reasoning=True), reasoning="high")

    assert types(events)[:7] == ["start", "thinking_start", "thinking_delta", "thinking_delta",
                                 "thinking_delta", "thinking_delta", "thinking_end"]
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "First.\n\nSecond."
    assert json.loads(thinking.thinking_signature) == reasoning_item
    assert message.content[1] == TextContent(text="Done.", text_signature='{"v":1,"id":"msg_2"}')
    assert message.usage.output == 40 and message.usage.to_wire()["reasoning"] == 30
    body = loopback.requests[0].json()
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


async def test_two_function_calls_with_arguments_split_mid_token(loopback):
    def call(index: int, item_id: str, call_id: str, name: str, pieces: list[str]) -> list[dict[str, Any]]:
        item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name, "arguments": ""}
        out = [ev("response.output_item.added", output_index=index, item=item)]
        out += [ev("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=p)
                for p in pieces]
        out.append(ev("response.function_call_arguments.done", item_id=item_id, output_index=index,
                      arguments="".join(pieces)))
        out.append(ev("response.output_item.done", output_index=index, item={**item, "arguments": "".join(pieces)}))
        return out

    loopback.push(sse([
        created(),
        *call(0, "fc_1", "call_a", "read", ['{"pa', 'th": "READ', 'ME.md"}']),
        *call(1, "fc_2", "call_b", "bash", ['{"command"', ': "git st', 'atus"}']),
        completed(),
    ]))
    events, message = await run(make_model(loopback))

    assert types(events) == ["start",
                             "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_delta", "toolcall_end",
                             "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_delta", "toolcall_end",
                             "done"]
    assert message.stop_reason == "toolUse"
    assert message.content == [
        ToolCall(id="call_a|fc_1", name="read", arguments={"path": "README.md"}),
        ToolCall(id="call_b|fc_2", name="bash", arguments={"command": "git status"}),
    ]
    assert events[5].tool_call.arguments == {"path": "README.md"}


async def test_arguments_only_in_done_event(loopback):
    item = {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "ls", "arguments": ""}
    loopback.push(sse([created(), ev("response.output_item.added", output_index=0, item=item),
                       ev("response.output_item.done", output_index=0, item={**item, "arguments": '{"path":"."}'}),
                       completed()]))
    _, message = await run(make_model(loopback))
    assert message.content == [ToolCall(id="call_9|fc_9", name="ls", arguments={"path": "."})]


async def test_usage_with_cached_tokens_and_cost(loopback):
    usage = {"input_tokens": 2000, "input_tokens_details": {"cached_tokens": 1500},
             "output_tokens": 100, "total_tokens": 2100}
    loopback.push(sse([created(), *message_events("ok"), completed(usage=usage)]))
    model = make_model(loopback)
    _, message = await run(model)
    u = message.usage
    assert (u.input, u.cache_read, u.output, u.cache_write, u.total_tokens) == (500, 1500, 100, 0, 2100)
    assert u.cost.input == pytest.approx(500 * 1.25 / 1e6)
    assert u.cost.cache_read == pytest.approx(1500 * 0.125 / 1e6)
    assert u.cost.output == pytest.approx(100 * 10.0 / 1e6)
    assert u.cost.total == pytest.approx(u.cost.input + u.cost.cache_read + u.cost.output)


async def test_incomplete_is_length(loopback):
    loopback.push(sse([created(), *message_events("cut sh"),
                       completed("incomplete", incomplete_details={"reason": "max_output_tokens"})]))
    events, message = await run(make_model(loopback))
    assert events[-1].type == "done" and message.stop_reason == "length"
    assert message.text() == "cut sh"


async def test_failed_response_is_error(loopback):
    loopback.push(sse([created(), *message_events("part"),
                       completed("failed", error={"code": "server_error", "message": "The model crashed"})]))
    events, message = await run(make_model(loopback))
    assert events[-1].type == "error"
    assert message.stop_reason == "error"
    assert "The model crashed" in message.error_message and "server_error" in message.error_message
    assert message.text() == "part"


async def test_error_event(loopback):
    loopback.push(sse([created(), ev("error", code="rate_limit_exceeded", message="Slow down", param=None)]))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert "Slow down" in message.error_message and "rate_limit_exceeded" in message.error_message


async def test_stream_ending_without_completion_is_an_error(loopback):
    loopback.push(sse([created(), *message_events("half")]))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert message.error_message == "OpenAI Responses stream ended before a terminal response event"
    assert message.text() == "half"


@pytest.mark.parametrize("status", [400, 401, 500])
async def test_http_errors(loopback, status):
    loopback.push(Reply.json(status, {"error": {"message": f"bad thing {status}"}}))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    # Pi's words: the API named, the status, the error object as it came.
    assert message.error_message == f'OpenAI API error ({status}): {{"message":"bad thing {status}"}}'


async def test_429_retry_after(loopback):
    loopback.push(Reply.json(429, {"error": {"message": "Too many"}}, headers={"retry-after-ms": "1500"}))
    _, message = await run(make_model(loopback))
    assert "Too many" in message.error_message and "retry after 1.5s" in message.error_message


async def test_connection_dropped_and_malformed_line(loopback):
    loopback.push(sse([created(), *message_events("abcdefgh")[:3]], drop=True))
    _, message = await run(make_model(loopback))
    assert (message.stop_reason, message.text()) == ("error", "abcd")

    loopback.push(Reply.sse([created(), *message_events("wxyz")[:3], "not json at all", completed()]))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert "Malformed" in message.error_message and "not json at all" in message.error_message
    assert message.text() == "wxyz"


async def test_abort_on_stalled_server(loopback):
    loopback.push(sse([created(), *message_events("waiting")[:3]], stall=True))
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

    events = await asyncio.wait_for(consume(), timeout=5)  # guard against a hang only
    message = await s.result()
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    assert (message.stop_reason, message.error_message, message.text()) == ("aborted", "Request was aborted", "wait")


async def test_missing_key(monkeypatch, loopback):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _, message = await run(make_model(loopback, base_url="https://api.openai.com/v1"), api_key=None)
    assert message.stop_reason == "error" and "OPENAI_API_KEY" in message.error_message
    assert loopback.requests == []


# --------------------------------------------------------------------------- request body


async def test_request_body_replays_history(loopback):
    model = make_model(loopback, reasoning=True, input=["text", "image"])
    reasoning_item = {"type": "reasoning", "id": "rs_7", "encrypted_content": "ENC", "summary": []}
    own = AssistantMessage(api=model.api, provider=model.provider, model=model.id, stop_reason="toolUse", content=[
        ThinkingContent(thinking="", thinking_signature=json.dumps(reasoning_item)),
        TextContent(text="Checking.", text_signature="msg_7"),
        ToolCall(id="call_7|fc_7", name="read", arguments={"path": "x.png"}),
    ])
    foreign = AssistantMessage(api="anthropic-messages", provider="anthropic", model="claude", stop_reason="toolUse",
                               content=[ToolCall(id="toolu_1", name="read", arguments={"path": "y"})])
    tool = Tool(name="read", description="Read", parameters={"type": "object", "properties": {}})
    context = Context(system_prompt="Be brief.", tools=[tool], messages=[
        UserMessage(content=[TextContent(text="look"), ImageContent(data=PNG, mime_type="image/png")]),
        own,
        ToolResultMessage(tool_call_id="call_7|fc_7", tool_name="read",
                          content=[TextContent(text="an image"), ImageContent(data=PNG, mime_type="image/png")]),
        foreign,
        ToolResultMessage(tool_call_id="toolu_1", tool_name="read", content=[TextContent(text="y data")]),
        UserMessage(content="next"),
    ])
    loopback.push(sse([created(), *message_events("ok"), completed()]))
    _, message = await run(model, context, reasoning="low", max_tokens=777, temperature=0.5, session_id="sess-x")
    assert message.stop_reason == "stop", message.error_message
    body = loopback.requests[0].json()

    url = f"data:image/png;base64,{PNG}"
    assert body["model"] == "gpt-5-test"
    assert (body["stream"], body["store"]) == (True, False)
    assert body["max_output_tokens"] == 777
    assert body["temperature"] == 0.5
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["prompt_cache_key"] == "sess-x"
    # No strict mode unless the model's compat says the server has one (Pi's default): no "strict" field.
    assert body["tools"] == [{"type": "function", "name": "read", "description": "Read",
                              "parameters": {"type": "object", "properties": {}}}]
    assert body["input"] == [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "input_text", "text": "look"},
                                     {"type": "input_image", "detail": "auto", "image_url": url}]},
        reasoning_item,
        {"type": "message", "role": "assistant", "status": "completed", "id": "msg_7",
         "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
        {"type": "function_call", "call_id": "call_7", "id": "fc_7", "name": "read", "arguments": '{"path":"x.png"}'},
        {"type": "function_call_output", "call_id": "call_7",
         "output": [{"type": "input_text", "text": "an image"},
                    {"type": "input_image", "detail": "auto", "image_url": url}]},
        {"type": "function_call", "call_id": "toolu_1", "name": "read", "arguments": '{"path":"y"}'},
        {"type": "function_call_output", "call_id": "toolu_1", "output": "y data"},
        {"role": "user", "content": [{"type": "input_text", "text": "next"}]},
    ]


async def test_compat_switches(loopback):
    model = make_model(loopback, compat={"supportsDeveloperRole": False, "supportsMaxOutputTokens": False,
                                         "promptCacheKeyMode": "disabled", "sessionAffinityFormat": "openai"})
    loopback.push(sse([created(), *message_events("ok"), completed()]))
    await run(make_model(loopback, reasoning=True, compat=model.compat),
              Context(system_prompt="S", messages=[UserMessage(content="q")]), session_id="s1")
    request = loopback.requests[0]
    body = request.json()
    assert body["input"][0] == {"role": "system", "content": "S"}
    assert "max_output_tokens" not in body and "prompt_cache_key" not in body
    assert body["reasoning"] == {"effort": "none"}  # thinking off, said explicitly (Pi)
    assert (request.headers["session-id"], request.headers["x-client-request-id"]) == ("s1", "s1")
