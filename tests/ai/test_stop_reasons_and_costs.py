"""What every provider records beside the answer, as Pi 1.6 does: the provider's own stop reason
(``rawStopReason``), who computed the cost (``usage.cost.totalFromProvider``, OpenRouter's billed
total), one-hour cache writes, and no ``start`` event for a request the server refused."""

from __future__ import annotations

from typing import Any

import pytest

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.reported_cost import apply_reported_cost
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import AssistantMessage, Context, Model, ModelCost, TextContent, Usage, UserMessage
from pi_runtime.testing.loopback import LoopbackServer, Reply

KEY = "sk-test-0123456789"
PRICES = ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)


def model(server: LoopbackServer, api: str, **fields: Any) -> Model:
    base = {"openai-completions": "/v1", "openai-responses": "/v1"}.get(api, "")
    values: dict[str, Any] = dict(id="m-1", api=api, provider="acme", base_url=server.url + base, cost=PRICES,
                                  max_tokens=1000)
    values.update(fields)
    return Model.model_validate(values)


async def run(m: Model) -> tuple[list[Any], AssistantMessage]:
    s = stream(m, Context(messages=[UserMessage(content=[TextContent(text="hi")])]), StreamOptions(api_key=KEY))
    events = [e async for e in s]
    return events, await s.result()


def completions_reply(finish: str, usage: dict[str, Any] | None = None) -> Reply:
    chunks: list[Any] = [
        {"id": "c1", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": None}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    ]
    if usage is not None:
        chunks.append({"id": "c1", "choices": [], "usage": usage})
    return Reply.sse([*chunks, "[DONE]"])


@pytest.mark.parametrize(("finish", "stop_reason"), [("stop", "stop"), ("tool_calls", "toolUse"), ("length", "length"),
                                                     ("content_filter", "error")])
async def test_openai_completions_keeps_finish_reason(loopback, finish, stop_reason):
    loopback.push(completions_reply(finish))
    _, message = await run(model(loopback, "openai-completions"))
    assert message.raw_stop_reason == finish
    assert message.stop_reason == stop_reason
    assert message.to_wire()["rawStopReason"] == finish


async def test_anthropic_keeps_stop_reason_and_one_hour_cache_writes(loopback):
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "m-1", "content": [], "usage": {
            "input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 300,
            "cache_creation": {"ephemeral_1h_input_tokens": 200}}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 40, "output_tokens_details": {"thinking_tokens": 12}}},
        {"type": "message_stop"},
    ]
    loopback.push(Reply.sse(events, event_names=[e["type"] for e in events]))
    _, message = await run(model(loopback, "anthropic-messages"))
    assert message.raw_stop_reason == "end_turn" and message.stop_reason == "stop"
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_write, usage.cache_write_1h, usage.reasoning) == (100, 40, 300, 200, 12)
    assert usage.total_tokens == 440
    # One-hour writes cost twice the input price, the rest the cache-write price (Pi's calculateCost).
    assert usage.cost.cache_write == pytest.approx((3.75 * 100 + 3.0 * 2 * 200) / 1e6)
    assert usage.cost.total_from_provider is False
    wire = usage.to_wire()
    assert wire["cacheWrite1h"] == 200 and wire["cost"]["totalFromProvider"] is False


async def test_google_keeps_finish_reason_and_its_token_total(loopback):
    body = {"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "MAX_TOKENS"}],
            "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 10, "thoughtsTokenCount": 5,
                              "totalTokenCount": 65}, "responseId": "r1"}
    loopback.push(Reply.sse([body]))
    _, message = await run(model(loopback, "google-generative-ai"))
    assert message.raw_stop_reason == "MAX_TOKENS" and message.stop_reason == "length"
    assert (message.usage.output, message.usage.reasoning, message.usage.total_tokens) == (15, 5, 65)
    assert message.usage.cost.total_from_provider is False


@pytest.mark.parametrize(("status", "details", "raw"), [
    ("completed", None, "completed"),
    ("incomplete", {"reason": "max_output_tokens"}, "incomplete.max_output_tokens"),
])
async def test_responses_keeps_status_and_incomplete_reason(loopback, status, details, raw):
    response: dict[str, Any] = {"id": "resp_1", "status": status, "usage": {
        "input_tokens": 20, "output_tokens": 5, "total_tokens": 25,
        "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 6}}}
    if details:
        response["incomplete_details"] = details
    events = [{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
              {"type": f"response.{status}", "response": response}]
    loopback.push(Reply.sse(events, event_names=[e["type"] for e in events]))
    _, message = await run(model(loopback, "openai-responses"))
    assert message.raw_stop_reason == raw
    usage = message.usage
    assert (usage.input, usage.cache_read, usage.cache_write, usage.reasoning, usage.total_tokens) == (10, 4, 6, 0, 25)


async def test_a_refused_request_sends_no_start_and_no_cost_origin(loopback):
    loopback.push(Reply.json(500, {"error": {"message": "boom"}}))
    events, message = await run(model(loopback, "openai-completions"))
    assert [e.type for e in events] == ["error"]
    assert message.raw_stop_reason is None
    # Pi marks the cost only once usage arrived: a refused request's cost says nothing of its origin.
    assert "totalFromProvider" not in message.to_wire()["usage"]["cost"]


async def test_start_comes_when_the_server_accepts_the_request(loopback):
    loopback.push(completions_reply("stop", {"prompt_tokens": 10, "completion_tokens": 2}))
    events, message = await run(model(loopback, "openai-completions"))
    assert [e.type for e in events][:2] == ["start", "text_start"]
    assert message.usage.cost.total_from_provider is False


async def test_openrouter_billed_cost_replaces_the_computed_total(loopback):
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "cost": 0.5, "is_byok": False}
    loopback.push(completions_reply("stop", usage))
    _, message = await run(model(loopback, "openai-completions", provider="openrouter"))
    cost = message.usage.cost
    assert cost.total == 0.5 and cost.total_from_provider is True
    assert cost.input == pytest.approx(1000 * 3.0 / 1e6)  # the parts stay computed


async def test_other_providers_ignore_a_cost_field(loopback):
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "cost": 0.5, "is_byok": False}
    loopback.push(completions_reply("stop", usage))
    _, message = await run(model(loopback, "openai-completions"))
    assert message.usage.cost.total == pytest.approx((1000 * 3.0 + 100 * 15.0) / 1e6)
    assert message.usage.cost.total_from_provider is False


@pytest.mark.parametrize(("reported", "total", "from_provider"), [
    ({"cost": 0.2, "is_byok": False}, 0.2, True),
    ({"cost": 0.01, "is_byok": True, "cost_details": {"upstream_inference_cost": 0.3}}, 0.31, True),
    ({"cost": 0.01, "is_byok": True, "cost_details": {"upstream_inference_cost": None,
                                                       "upstream_inference_prompt_cost": 0.1,
                                                       "upstream_inference_completions_cost": 0.05}}, 0.16, True),
    ({"cost": 0.01, "is_byok": True, "cost_details": {}}, 9.0, False),  # no upstream cost: kept as computed
    ({"cost": 0.01, "is_byok": True}, 9.0, False),
    ({"cost": -1, "is_byok": False}, 9.0, False),
    ({"cost": 0.2}, 9.0, False),  # byok unknown
])
def test_openrouter_reported_cost_rules(reported, total, from_provider):
    usage = Usage()
    usage.cost.total, usage.cost.total_from_provider = 9.0, False
    apply_reported_cost(usage, reported)
    assert usage.cost.total == pytest.approx(total)
    assert usage.cost.total_from_provider is from_provider


def test_wire_key_order_is_pis():
    message = AssistantMessage(api="a", provider="p", model="m", stop_reason="stop", response_id="r",
                               raw_stop_reason="stop", error_message="e", duration_ms=1, thinking_level="off")
    message.usage.reasoning = 0
    message.usage.cost.total_from_provider = False
    wire = message.to_wire()
    assert list(wire) == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp",
                          "responseId", "rawStopReason", "errorMessage", "durationMs", "thinkingLevel"]
    assert list(wire["usage"]) == ["input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens", "cost"]
    assert list(wire["usage"]["cost"])[-1] == "totalFromProvider"
