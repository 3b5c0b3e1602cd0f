"""azure-openai-responses against a real HTTP server on 127.0.0.1 speaking the Responses SSE."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from responses_events import completed, created, ev, function_call, message, reasoning, sse

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.errors import classify_error
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers.azure_openai_responses import base_url
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
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

KEY = "azure-secret-key-0123456789"
STRICT_TOOL = Tool(name="bash", description="Run a command", constrained_sampling={"type": "json_schema",
                                                                                   "strict": "prefer"},
                   parameters={"type": "object", "required": ["command"],
                               "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}})


@pytest.fixture(autouse=True)
def _no_azure_environment(monkeypatch):
    for name in ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME", "AZURE_OPENAI_API_VERSION",
                 "AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def make_model(server, **overrides: Any) -> Model:
    values: dict[str, Any] = dict(id="gpt-test", api="azure-openai-responses", provider="azure",
                                  base_url=server.url + "/openai/v1", max_tokens=8000,
                                  cost=ModelCost(input=1.25, output=10.0, cache_read=0.125))
    values.update(overrides)
    return Model.model_validate(values)


async def run(model: Model, context: Context | None = None, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    s = stream(model, context or Context(messages=[UserMessage(content="hi")]), StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


async def test_text_and_the_request_pi_sends(loopback):
    loopback.push(sse([created(), *message("Hello there"), completed()]))
    events, msg = await run(make_model(loopback), Context(system_prompt="Be brief.", messages=[
        UserMessage(content=[TextContent(text="hi")])]), session_id="sess-1")

    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert msg.content == [TextContent(text="Hello there", text_signature='{"v":1,"id":"msg_1"}')]
    assert (msg.stop_reason, msg.raw_stop_reason, msg.response_id) == ("stop", "completed", "resp_1")
    request = loopback.requests[0]
    assert (request.method, request.path) == ("POST", "/openai/v1/responses?api-version=v1")
    assert request.headers["api-key"] == KEY and "authorization" not in request.headers
    assert request.headers["accept"] == "application/json"
    assert request.body == json.dumps({
        "model": "gpt-test",
        "input": [{"role": "system", "content": "Be brief."},
                  {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "stream": True, "prompt_cache_key": "sess-1", "store": False, "max_output_tokens": 8000,
    }, separators=(",", ":")).encode()


async def test_deployment_map_and_api_version_from_the_environment(loopback, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "other=x, gpt-test = prod-gpt ,bad")
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2025-04-01-preview")
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", loopback.url + "/custom/")
    loopback.push(sse([created(), *message("ok"), completed()]))
    await run(make_model(loopback, base_url="http://unused.invalid"))
    request = loopback.requests[0]
    assert request.path == "/custom/responses?api-version=2025-04-01-preview"
    assert request.json()["model"] == "prod-gpt"


def test_base_url_resolution():
    model = Model(id="m", api="azure-openai-responses", provider="azure", base_url="https://res.openai.azure.com")
    assert base_url(model, StreamOptions()) == "https://res.openai.azure.com/openai/v1"
    model.base_url = "https://res.cognitiveservices.azure.com/openai/v1/responses?api-version=x"
    assert base_url(model, StreamOptions()) == "https://res.cognitiveservices.azure.com/openai/v1"
    named = StreamOptions(extra={"azure_resource_name": "mine"})
    assert base_url(model, named) == "https://mine.openai.azure.com/openai/v1"
    model.base_url = ""
    with pytest.raises(ValueError, match="AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME"):
        base_url(model, StreamOptions())


async def test_missing_base_url_and_key_are_one_line_errors(loopback):
    _, msg = await run(make_model(loopback, base_url=""))
    assert msg.stop_reason == "error" and "AZURE_OPENAI_BASE_URL" in msg.error_message
    _, msg = await run(make_model(loopback), api_key=None)
    assert "AZURE_OPENAI_API_KEY" in msg.error_message
    assert loopback.requests == []


async def test_tool_call_strict_tools_and_replay(loopback):
    loopback.push(sse([created(), *function_call("bash", '{"command":"ls -la"}'), completed()]))
    events, msg = await run(make_model(loopback), Context(messages=[UserMessage(content="list")],
                                                          tools=[STRICT_TOOL]))
    assert types(events) == ["start", "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end", "done"]
    assert msg.stop_reason == "toolUse"
    assert msg.content == [ToolCall(id="call_1|fc_1", name="bash", arguments={"command": "ls -la"})]
    tool = loopback.requests[0].json()["tools"][0]
    assert tool == {"type": "function", "name": "bash", "description": "Run a command", "strict": True,
                    "parameters": {"type": "object", "required": ["command", "timeout"], "properties": {
                        "command": {"type": "string"}, "timeout": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
                        "additionalProperties": False}}
    assert STRICT_TOOL.parameters["required"] == ["command"]  # the declaration itself is left alone

    loopback.push(sse([created("resp_2"), *message("done", item_id="msg_2"), completed()]))
    history = [UserMessage(content="list"), msg,
               ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="bash", content=[TextContent(text="a\n")])]
    await run(make_model(loopback), Context(messages=history, tools=[STRICT_TOOL]))
    items = loopback.requests[1].json()["input"]
    assert items[1:] == [
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash", "arguments": '{"command":"ls -la"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "a\n"},
    ]


async def test_reasoning_with_encrypted_content_only_at_the_end(loopback):
    late = {"type": "reasoning", "id": "rs_1", "encrypted_content": "LATE=="}
    loopback.push(sse([created(), *reasoning(["First.", "Second."], encrypted=None),
                       *message("Four.", item_id="msg_2", index=1),
                       completed(usage={"input_tokens": 50, "output_tokens": 40, "total_tokens": 90,
                                        "output_tokens_details": {"reasoning_tokens": 30}}, output=[late])]))
    events, msg = await run(make_model(loopback, reasoning=True), reasoning="high")
    assert types(events)[:6] == ["start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_delta",
                                 "thinking_delta"]
    thinking = msg.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "First.\n\nSecond."
    assert json.loads(thinking.thinking_signature)["encrypted_content"] == "LATE=="
    assert msg.usage.reasoning == 30
    body = loopback.requests[0].json()
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["input"][0] == {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}

    # Off on a reasoning model: effort "none" (or the map's), and the reasoning item is replayed.
    loopback.push(sse([created(), *message("ok"), completed()]))
    history = [UserMessage(content="q"), msg, UserMessage(content="again")]
    await run(make_model(loopback, reasoning=True), Context(system_prompt="S", messages=history), reasoning="off")
    body = loopback.requests[1].json()
    assert body["reasoning"] == {"effort": "none"} and "include" not in body
    assert body["input"][0] == {"role": "developer", "content": "S"}
    assert body["input"][2]["encrypted_content"] == "LATE=="
    assert body["input"][3]["id"] == "msg_2"


async def test_usage_and_cost(loopback):
    usage = {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100,
             "input_tokens_details": {"cached_tokens": 600}}
    loopback.push(sse([created(), *message("x"), completed(usage=usage)]))
    _, msg = await run(make_model(loopback))
    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.total_tokens) == (400, 100, 600, 1100)
    assert u.cost.total == pytest.approx((400 * 1.25 + 100 * 10 + 600 * 0.125) / 1e6)


async def test_incomplete_responses(loopback):
    loopback.push(sse([created(), *message("cut"), completed("incomplete",
                                                             incomplete_details={"reason": "max_output_tokens"})]))
    _, msg = await run(make_model(loopback))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("length", "incomplete.max_output_tokens")

    loopback.push(sse([created(), *message("bad"), completed("incomplete",
                                                             incomplete_details={"reason": "content_filter"})]))
    _, msg = await run(make_model(loopback))
    assert (msg.stop_reason, msg.error_message) == ("error", "Response incomplete: content_filter")


async def test_error_events_in_the_stream(loopback):
    loopback.push(sse([created(), *message("part"), ev("error", code="server_error", message="The server had an error")]))
    _, msg = await run(make_model(loopback))
    assert msg.error_message == "Error Code server_error: The server had an error" and msg.text() == "part"
    assert classify_error(msg) == "retryable"

    failed = ev("response.failed", response={"id": "r", "status": "failed",
                                              "error": {"code": "rate_limit_exceeded", "message": "Slow down"}})
    loopback.push(sse([created(), failed]))
    _, msg = await run(make_model(loopback))
    assert (msg.error_message, msg.raw_stop_reason) == ("rate_limit_exceeded: Slow down", "failed")


async def test_http_errors_are_one_line(loopback):
    content_filter = {"error": {"code": "content_filter", "status": 400, "message": "The response was filtered\ndue "
                                "to the prompt triggering Azure OpenAI's content management policy.",
                                "innererror": {"code": "ResponsibleAIPolicyViolation"}}}
    loopback.push(Reply.json(400, content_filter))
    _, msg = await run(make_model(loopback))
    assert msg.error_message.startswith('Azure OpenAI API error (400): {"code":"content_filter"')
    assert "\n" not in msg.error_message
    assert classify_error(msg) == "fatal"

    loopback.push(Reply.json(429, {"error": {"code": "429", "message": "Rate limit is exceeded."}},
                             headers={"retry-after": "2"}))
    _, msg = await run(make_model(loopback))
    assert msg.error_message.startswith("Azure OpenAI API error (429): ") and "retry after 2s" in msg.error_message
    assert classify_error(msg) == "retryable"

    loopback.push(Reply(status=500, pieces=[b""]))
    _, msg = await run(make_model(loopback))
    assert msg.error_message == "Azure OpenAI API error (500): 500 status code (no body)"
    assert classify_error(msg) == "retryable"


async def test_cut_stream(loopback):
    loopback.push(sse([created(), *message("abcdefgh")[:2]], drop=True))
    _, msg = await run(make_model(loopback))
    assert (msg.stop_reason, msg.text()) == ("error", "abcd")
    assert classify_error(msg) == "retryable"

    loopback.push(sse([created(), *message("abcd")]))
    _, msg = await run(make_model(loopback))
    assert msg.error_message == "OpenAI Responses stream ended before a terminal response event"


async def test_abort(loopback):
    loopback.push(sse([created(), *message("waiting")[:2]], stall=True))
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
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    assert (msg.stop_reason, msg.error_message, msg.text()) == ("aborted", "Request was aborted", "wait")
