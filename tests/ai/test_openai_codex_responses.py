"""openai-codex-responses against a real server on 127.0.0.1: SSE (zstd bodies) and WebSocket."""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from typing import Any

import pytest
from responses_events import completed, created, ev, function_call, message, reasoning, sse

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.errors import classify_error
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    Model,
    ModelCost,
    TextContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)
from pi_runtime.testing.loopback import Reply


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


TOKEN = (_b64({"alg": "RS256"}) + "." +
         _b64({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_42"}, "exp": 9999999999}) + ".sig")
TOOL = Tool(name="bash", description="Run", parameters={"type": "object", "properties": {"c": {"type": "string"}}})


def make_model(server, **overrides: Any) -> Model:
    values: dict[str, Any] = dict(id="gpt-codex-test", api="openai-codex-responses", provider="openai-codex",
                                  base_url=server.url, max_tokens=8000,
                                  cost=ModelCost(input=1.0, output=10.0, cache_read=0.1))
    values.update(overrides)
    return Model.model_validate(values)


def session() -> str:
    return f"sess-{uuid.uuid4()}"


def ws_events(events: list[dict[str, Any]], **kwargs: Any) -> Reply:
    return Reply.ws(events, **kwargs)


async def run(model: Model, context: Context | None = None, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", TOKEN)
    s = stream(model, context or Context(messages=[UserMessage(content="hi")]), StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


async def test_sse_request_headers_and_zstd_body(loopback):
    sid = session()
    loopback.push(sse([created(), *message("Hello"), completed()]))
    events, msg = await run(make_model(loopback), Context(system_prompt="Be brief.", messages=[
        UserMessage(content=[TextContent(text="hi")])]), session_id=sid, transport="sse")

    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.text() == "Hello" and msg.stop_reason == "stop"
    request = loopback.requests[0]
    assert (request.method, request.path) == ("POST", "/codex/responses")
    expected = {"originator": "pi", "authorization": f"Bearer {TOKEN}", "chatgpt-account-id": "acct_42",
                "openai-beta": "responses=experimental", "accept": "text/event-stream",
                "content-type": "application/json", "session-id": sid, "x-client-request-id": sid,
                "content-encoding": "zstd"}
    assert {k: request.headers.get(k) for k in expected} == expected
    assert request.body[:4] == b"\x28\xb5\x2f\xfd"  # a zstd frame
    assert request.decoded_body() == json.dumps({
        "model": "gpt-codex-test", "store": False, "stream": True,
        "input": [{"role": "system", "content": "Be brief."},
                  {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "text": {"verbosity": "low"}, "include": ["reasoning.encrypted_content"], "prompt_cache_key": sid,
        "tool_choice": "auto", "parallel_tool_calls": True, "max_output_tokens": 8000,
    }, separators=(",", ":")).encode()


async def test_a_token_without_an_account_is_refused_before_sending(loopback):
    _, msg = await run(make_model(loopback), api_key="not-a-jwt")
    assert (msg.stop_reason, msg.error_message) == ("error", "Failed to extract accountId from token")
    _, msg = await run(make_model(loopback), api_key=None)
    assert "/login" in msg.error_message
    assert loopback.requests == []


async def test_websocket_turns_share_one_socket_and_send_only_new_items(loopback):
    sid = session()
    loopback.push(Reply.upgrade(),
                  ws_events([created(), *function_call("bash", '{"c":"ls"}'), completed()]),
                  ws_events([created("resp_2"), *message("done", item_id="msg_2"), completed()]))
    events, first = await run(make_model(loopback), Context(messages=[UserMessage(content="go")], tools=[TOOL]),
                              session_id=sid)
    assert types(events)[0] == "start" and first.stop_reason == "toolUse"
    history = [UserMessage(content="go"), first,
               ToolResultMessage(tool_call_id=first.tool_calls()[0].id, tool_name="bash", content=[TextContent(text="x")])]
    _, second = await run(make_model(loopback), Context(messages=history, tools=[TOOL]), session_id=sid)
    assert second.text() == "done"

    handshake, one, two = loopback.requests
    assert (handshake.method, handshake.path) == ("GET", "/codex/responses")
    expected = {"openai-beta": "responses_websockets=2026-02-06", "session-id": sid, "x-client-request-id": sid,
                "chatgpt-account-id": "acct_42", "originator": "pi", "authorization": f"Bearer {TOKEN}"}
    assert {k: handshake.headers.get(k) for k in expected} == expected
    assert handshake.headers["accept"] == "*/*" and "content-type" not in handshake.headers
    sent = one.json()
    assert list(sent)[:2] == ["type", "model"] and sent["type"] == "response.create"
    assert sent["tools"] == [{"type": "function", "name": "bash", "description": "Run",
                              "parameters": TOOL.parameters, "strict": None}]
    follow = two.json()
    assert follow["previous_response_id"] == "resp_1" and list(follow)[-1] == "previous_response_id"
    assert follow["input"] == [{"type": "function_call_output", "call_id": "call_1", "output": "x"}]


async def test_connection_limit_reconnects_once_then_falls_back_to_sse(loopback):
    limit = ev("error", error={"type": "invalid_request_error", "code": "websocket_connection_limit_reached",
                               "message": "Too many websocket connections"})
    sid = session()
    loopback.push(Reply.upgrade(), ws_events([limit]), Reply.upgrade(), ws_events([created(), *message("ok"),
                                                                                  completed()]))
    _, msg = await run(make_model(loopback), session_id=sid)
    assert msg.text() == "ok"
    assert [r.method for r in loopback.requests] == ["GET", "WS", "GET", "WS"]

    loopback.requests.clear()
    sid = session()
    loopback.push(Reply.upgrade(), ws_events([limit]), Reply.upgrade(), ws_events([limit]),
                  sse([created(), *message("via sse"), completed()]), sse([created(), *message("again"), completed()]))
    _, msg = await run(make_model(loopback), session_id=sid)
    assert msg.text() == "via sse"
    _, msg = await run(make_model(loopback), session_id=sid)  # this session stays on SSE
    assert msg.text() == "again"
    assert [r.method for r in loopback.requests] == ["GET", "WS", "GET", "WS", "POST", "POST"]


async def test_refused_upgrade_falls_back_to_sse(loopback):
    loopback.push(Reply.json(500, {"error": {"message": "no websockets here"}}),
                  sse([created(), *message("fine"), completed()]))
    _, msg = await run(make_model(loopback), session_id=session())
    assert msg.text() == "fine"
    assert [r.method for r in loopback.requests] == ["GET", "POST"]


async def test_socket_cut_after_the_stream_started_is_an_error(loopback):
    sid = session()
    loopback.push(Reply.upgrade(), ws_events([created(), *message("abcdefgh")[:2]], drop=True))
    _, msg = await run(make_model(loopback), session_id=sid)
    assert (msg.stop_reason, msg.text()) == ("error", "abcd")
    assert msg.error_message.startswith("WebSocket closed")
    assert classify_error(msg) == "retryable"
    assert [r.method for r in loopback.requests] == ["GET", "WS"]  # no second try over SSE in this turn
    loopback.push(sse([created(), *message("retried"), completed()]))
    _, msg = await run(make_model(loopback), session_id=sid)  # the retry: SSE for this session from now on
    assert msg.text() == "retried" and loopback.requests[-1].method == "POST"


async def test_websocket_transport_reuses_the_socket_with_whole_requests(loopback):
    sid = session()
    loopback.push(Reply.upgrade(), ws_events([created(), *message("one"), completed()]),
                  ws_events([created("resp_2"), *message("two", item_id="msg_2"), completed()]))
    _, first = await run(make_model(loopback), session_id=sid, transport="websocket")
    history = [UserMessage(content="hi"), first, UserMessage(content="more")]
    _, second = await run(make_model(loopback), Context(messages=history), session_id=sid, transport="websocket")
    assert second.text() == "two"
    assert [r.method for r in loopback.requests] == ["GET", "WS", "WS"]
    follow = loopback.requests[2].json()
    assert "previous_response_id" not in follow and len(follow["input"]) == 3


async def test_error_events_and_failed_responses(loopback):
    loopback.push(Reply.upgrade(), ws_events([created(), ev("error", code="server_error", message="Overloaded")]))
    _, msg = await run(make_model(loopback), session_id=session())
    assert msg.error_message == "Codex error: Overloaded" and classify_error(msg) == "retryable"

    failed = ev("response.failed", response={"status": "failed", "error": {"code": "x", "message": "It broke"}})
    loopback.push(sse([created(), failed]))
    _, msg = await run(make_model(loopback), transport="sse")
    assert msg.error_message == "It broke"


async def test_reasoning_effort_usage_and_priority_pricing(loopback):
    usage = {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100,
             "input_tokens_details": {"cached_tokens": 600}, "output_tokens_details": {"reasoning_tokens": 40}}
    loopback.push(sse([created(), *reasoning(["Hmm."]), *message("Four.", item_id="msg_2", index=1),
                       completed(usage=usage, service_tier="priority")]))
    model = make_model(loopback, reasoning=True, thinkingLevelMap={"minimal": "low", "xhigh": "xhigh"})
    _, msg = await run(model, transport="sse", reasoning="minimal")
    body = loopback.requests[0].json()
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert msg.content[0].thinking == "Hmm."
    u = msg.usage
    assert (u.input, u.cache_read, u.output, u.reasoning) == (400, 600, 100, 40)
    assert u.cost.total == pytest.approx(2 * (400 * 1.0 + 100 * 10 + 600 * 0.1) / 1e6)

    loopback.push(sse([created(), *message("x"), completed()]))
    await run(model, transport="sse", reasoning="off")
    assert loopback.requests[1].json()["reasoning"] == {"effort": "none", "summary": "auto"}
    loopback.push(sse([created(), *message("x"), completed()]))
    await run(make_model(loopback), transport="sse")
    assert "reasoning" not in loopback.requests[2].json()


async def test_http_errors(loopback):
    limit = {"error": {"code": "usage_limit_reached", "plan_type": "PLUS", "message": "limit"}}
    loopback.push(Reply.json(429, limit))
    _, msg = await run(make_model(loopback), transport="sse")
    assert msg.error_message == "You have hit your ChatGPT usage limit (plus plan)."
    assert classify_error(msg) == "quota"

    loopback.push(Reply.json(500, {"error": {"message": "boom", "type": "server_error"}}))
    _, msg = await run(make_model(loopback), transport="sse")
    assert msg.error_message == "500 boom" and classify_error(msg) == "retryable"

    loopback.push(Reply.json(401, {"error": {"message": "Your authentication token has expired."}}))
    _, msg = await run(make_model(loopback), transport="sse")
    assert msg.error_message == "401 Your authentication token has expired." and classify_error(msg) == "fatal"


async def test_cut_sse_stream(loopback):
    loopback.push(sse([created(), *message("abcdefgh")[:2]], drop=True))
    _, msg = await run(make_model(loopback), transport="sse")
    assert (msg.stop_reason, msg.text()) == ("error", "abcd") and classify_error(msg) == "retryable"


@pytest.mark.parametrize("transport", ["sse", "auto"])
async def test_abort(loopback, transport):
    stalled = [created(), *message("waiting")[:2]]
    if transport == "sse":
        loopback.push(sse(stalled, stall=True))
    else:
        loopback.push(Reply.upgrade(), ws_events(stalled, stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), Context(messages=[UserMessage(content="hi")]),
               StreamOptions(api_key=TOKEN, signal=controller.signal, transport=transport, session_id=session()))

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


async def test_extension_hooks_see_the_websocket_request_once(loopback):
    seen: list[Any] = []

    async def on_payload(body: Any) -> Any:
        seen.append("payload")
        return {**body, "service_tier": "flex"}

    async def on_headers(headers: dict[str, str]) -> dict[str, str]:
        return {**headers, "x-extension": "yes"}

    async def on_event(event: Any) -> None:
        seen.append(event["data"]["type"])

    loopback.push(Reply.upgrade(), ws_events([created(), *message("ok"), completed()]))
    _, msg = await run(make_model(loopback), session_id=session(), on_payload=on_payload, on_headers=on_headers,
                       on_stream_event=on_event)
    assert msg.text() == "ok"
    assert loopback.requests[0].headers["x-extension"] == "yes"
    assert loopback.requests[1].json()["service_tier"] == "flex"
    assert seen[0] == "payload" and seen.count("payload") == 1
    assert seen[1:3] == ["response.created", "response.output_item.added"] and seen[-1] == "response.completed"
