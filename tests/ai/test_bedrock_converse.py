"""The bedrock-converse-stream provider against a real HTTP server speaking Bedrock's binary event stream.

The server checks every SigV4 signature with an independent implementation of the specification
(``aws_sigv4_reference``), so a request it accepts is one AWS would authenticate.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from bedrock_support import SONNET, ctx, make_model, run, text_reply, types

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.errors import classify_error
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_runtime.testing.loopback import (
    LoopbackServer,
    Reply,
    bedrock_event,
    bedrock_exception,
    event_stream_frame,
)

pytestmark = pytest.mark.usefixtures("aws_env")

# --------------------------------------------------------------------------- tools


async def test_tool_call_streams_and_history_round_trips(loopback: LoopbackServer, keys: None) -> None:
    frames = [
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Reading."}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        bedrock_event("contentBlockStart", {"contentBlockIndex": 1,
                                            "start": {"toolUse": {"toolUseId": "tooluse_ab1", "name": "read"}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"path": "a.'}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": 'txt"}'}}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 1}),
        bedrock_event("messageStop", {"stopReason": "tool_use"}),
        bedrock_event("metadata", {"usage": {"inputTokens": 30, "outputTokens": 9, "totalTokens": 39}}),
    ]
    loopback.push(Reply.event_stream(frames))
    tools = [Tool(name="read", description="Read a file",
                  parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})]
    model = make_model(loopback)

    got, msg = await run(model, ctx("read a.txt", tools=tools), reasoning="off")

    assert types(got) == ["start", "text_start", "text_delta", "text_end",
                          "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end", "done"]
    assert msg.tool_calls() == [ToolCall(id="tooluse_ab1", name="read", arguments={"path": "a.txt"})]
    assert msg.stop_reason == "toolUse" and msg.raw_stop_reason == "tool_use"
    assert loopback.requests[0].json()["toolConfig"] == {"tools": [{"toolSpec": {
        "name": "read", "description": "Read a file", "inputSchema": {"json": tools[0].parameters}}}]}

    results = [ToolResultMessage(tool_call_id="tooluse_ab1", tool_name="read",
                                 content=[TextContent(text="file contents\n")]),
               ]
    loopback.push(text_reply("Done."))
    history = Context(messages=[UserMessage(content="read a.txt"), msg, *results], tools=tools)
    await run(model, history, reasoning="off")

    assert loopback.requests[1].json()["messages"] == [
        {"role": "user", "content": [{"text": "read a.txt"}]},
        {"role": "assistant", "content": [
            {"text": "Reading."},
            {"toolUse": {"toolUseId": "tooluse_ab1", "name": "read", "input": {"path": "a.txt"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_ab1", "content": [{"text": "file contents\n"}], "status": "success"}},
            {"cachePoint": {"type": "default"}}]},
    ]


def test_history_conversion_follows_pi(keys: None) -> None:
    from pi_runtime.ai.providers.bedrock_converse.request import convert_messages

    png = ImageContent(data=base64.b64encode(b"\x89PNG").decode(), mime_type="image/png")
    nova = Model(id="amazon.nova-pro-v1:0", name="Nova Pro", api="bedrock-converse-stream", provider="amazon-bedrock")
    claude = Model(id=SONNET, name="Claude", api="bedrock-converse-stream", provider="amazon-bedrock")
    assistant = AssistantMessage(
        api="bedrock-converse-stream", provider="amazon-bedrock", model=SONNET, stop_reason="toolUse",
        content=[ThinkingContent(thinking="hmm", thinking_signature="sig=="), TextContent(text="  "),
                 ToolCall(id="call|1", name="ls", arguments={"": 1, "path": "."})])
    history = [
        UserMessage(content="   "),
        UserMessage(content=[TextContent(text="look"), png]),
        assistant,
        ToolResultMessage(tool_call_id="call|1", tool_name="ls", content=[TextContent(text=""), png], is_error=True),
    ]
    converted = convert_messages(history, claude)
    assert converted[0] == {"role": "user", "content": [{"text": "<empty>"}]}
    assert converted[1]["content"][1] == {"image": {"source": {"bytes": png.data}, "format": "png"}}
    assert converted[2] == {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig=="}}},
        {"toolUse": {"toolUseId": "call_1", "name": "ls", "input": {"path": "."}}}]}
    # Claude: the error result keeps a placeholder; its images follow the results with a caption.
    assert converted[3]["content"] == [
        {"toolResult": {"toolUseId": "call_1", "content": [{"text": "(image attached after the tool results)"}],
                        "status": "error"}},
        {"text": "Images from the error result of tool call call|1 (ls):"},
        {"image": {"source": {"bytes": png.data}, "format": "png"}},
    ]
    # Other models: reasoning without a signature, images stay in the result.
    other = convert_messages(history, nova)
    assert other[2]["content"][0] == {"reasoningContent": {"reasoningText": {"text": "hmm"}}}
    assert other[3]["content"][0]["toolResult"]["content"] == [{"image": {"source": {"bytes": png.data},
                                                                          "format": "png"}}]


async def test_unsupported_image_type_fails_before_sending(loopback: LoopbackServer, keys: None) -> None:
    context = Context(messages=[UserMessage(content=[ImageContent(data="AAAA", mime_type="image/bmp")])])
    _, msg = await run(make_model(loopback), context, reasoning="off")
    assert msg.stop_reason == "error" and "image/bmp" in (msg.error_message or "")
    assert loopback.requests == []


# --------------------------------------------------------------------------- reasoning


async def test_reasoning_with_signature_then_text(loopback: LoopbackServer, keys: None) -> None:
    frames = [
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Let me "}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "think."}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQB"}}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "4"}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 1}),
        bedrock_event("messageStop", {"stopReason": "end_turn"}),
    ]
    loopback.push(Reply.event_stream(frames))

    got, msg = await run(make_model(loopback), ctx("2+2?"), reasoning="medium")

    assert types(got) == ["start", "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
                          "text_start", "text_delta", "text_end", "done"]
    assert msg.content == [ThinkingContent(thinking="Let me think.", thinking_signature="EqQB"), TextContent(text="4")]
    assert loopback.requests[0].json()["additionalModelRequestFields"] == {
        "thinking": {"type": "enabled", "budget_tokens": 8192, "display": "summarized"},
        "anthropic_beta": ["interleaved-thinking-2025-05-14"],
    }


async def test_redacted_reasoning_is_kept_whole_for_replay(loopback: LoopbackServer, keys: None) -> None:
    first, second = b"\x00\x01secret-part-1", b"\x02part-2"
    frames = [
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {
            "redactedContent": base64.b64encode(first).decode()}}}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {
            "redactedContent": base64.b64encode(second).decode()}}}),
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "ok"}}),
        bedrock_event("messageStop", {"stopReason": "end_turn"}),
    ]
    loopback.push(Reply.event_stream(frames))
    model = make_model(loopback, "openai.gpt-oss-120b-1:0", name="gpt-oss-120b")

    _, msg = await run(model, ctx(), reasoning="high")

    thinking = msg.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.redacted
    assert thinking.thinking == "[Reasoning redacted]"
    assert base64.b64decode(thinking.thinking_signature or "") == first + second
    assert loopback.requests[0].json()["additionalModelRequestFields"] == {"reasoning_effort": "high"}

    loopback.push(text_reply("again"))
    await run(model, Context(messages=[UserMessage(content="q"), msg, UserMessage(content="more")]), reasoning="high")
    replayed = loopback.requests[1].json()["messages"][1]["content"][0]
    assert replayed == {"reasoningContent": {"redactedContent": base64.b64encode(first + second).decode()}}


@pytest.mark.parametrize(("model_id", "name", "level", "fields"), [
    ("anthropic.claude-opus-4-7", "Claude Opus 4.7", "xhigh", {
        "thinking": {"type": "adaptive", "display": "summarized",
                     "block_binding": {"prefix_mismatch_behavior": "drop_block"}},
        "output_config": {"effort": "xhigh"}, "anthropic_beta": ["thinking-binding-controls-2026-08-01"]}),
    ("anthropic.claude-sonnet-4-6", "Claude Sonnet 4.6", "minimal", {
        "thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "low"}}),
    ("us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0", "Claude Sonnet 4.5 (GovCloud)", "low", {
        "thinking": {"type": "enabled", "budget_tokens": 2048}, "anthropic_beta": ["interleaved-thinking-2025-05-14"]}),
    ("openai.gpt-5-1", "GPT-5.1", "minimal", {"reasoning": {"effort": "low"}}),
    ("amazon.nova-2-lite-v1:0", "Nova 2 Lite", "high", None),
])
async def test_reasoning_settings_per_model_family(loopback: LoopbackServer, keys: None, model_id: str, name: str,
                                                   level: str, fields: dict[str, Any] | None) -> None:
    loopback.push(text_reply("ok"))
    await run(make_model(loopback, model_id, name=name), ctx(), reasoning=level)
    assert loopback.requests[0].json().get("additionalModelRequestFields") == fields


async def test_thinking_budget_fits_a_callers_token_limit(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(text_reply("ok"), text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="high", max_tokens=4000)
    await run(make_model(loopback, max_tokens=3000), ctx(), reasoning="high")
    first, second = (r.json() for r in loopback.requests)
    assert first["inferenceConfig"] == {"maxTokens": 20384}  # caller's 4000 + the 16384 budget
    assert first["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 16384
    assert second["inferenceConfig"] == {"maxTokens": 3000}
    assert second["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 1976  # room for the answer


async def test_long_cache_retention_and_models_without_caching(loopback: LoopbackServer, keys: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    loopback.push(text_reply("ok"), text_reply("ok"))
    await run(make_model(loopback), ctx(system_prompt="s"), reasoning="off")
    await run(make_model(loopback, "amazon.nova-pro-v1:0", name="Nova Pro"), ctx(system_prompt="s"), reasoning="off")
    claude, nova = (r.json() for r in loopback.requests)
    assert claude["system"][1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    assert nova["system"] == [{"text": "s"}] and nova["messages"][0]["content"] == [{"text": "hi"}]


# --------------------------------------------------------------------------- usage and stop reasons


async def test_usage_with_cache_tokens_and_cost(loopback: LoopbackServer, keys: None) -> None:
    usage = {"inputTokens": 100, "outputTokens": 50, "cacheReadInputTokens": 1000, "cacheWriteInputTokens": 400,
             "cacheDetails": [{"ttl": "1h", "inputTokens": 300}, {"ttl": "5m", "inputTokens": 100}],
             "totalTokens": 1550}
    loopback.push(text_reply("ok", usage=usage))

    _, msg = await run(make_model(loopback), ctx(), reasoning="off")

    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.cache_write, u.cache_write_1h, u.total_tokens) == (
        100, 50, 1000, 400, 300, 1550)
    assert u.cost.input == pytest.approx(100 * 3.0 / 1e6)
    assert u.cost.output == pytest.approx(50 * 15.0 / 1e6)
    assert u.cost.cache_read == pytest.approx(1000 * 0.3 / 1e6)
    assert u.cost.cache_write == pytest.approx((100 * 3.75 + 300 * 6.0) / 1e6)


@pytest.mark.parametrize(("raw", "stop", "error"), [
    ("max_tokens", "length", None),
    ("model_context_window_exceeded", "length", None),
    ("stop_sequence", "stop", None),
    ("guardrail_intervened", "error", "Provider stopped with: guardrail_intervened"),
    ("content_filtered", "error", "Provider stopped with: content_filtered"),
])
async def test_stop_reasons(loopback: LoopbackServer, keys: None, raw: str, stop: str, error: str | None) -> None:
    loopback.push(text_reply("partial", stop=raw))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert (msg.stop_reason, msg.error_message, msg.raw_stop_reason) == (stop, error, raw)
    assert msg.content == [TextContent(text="partial")]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("exception", "text", "kind"), [
    ("throttlingException", "Throttling error: Too many requests, please wait before trying again.", "retryable"),
    ("serviceUnavailableException", "Service unavailable: Too many requests, please wait before trying again.",
     "retryable"),
    ("internalServerException", "Internal server error: Too many requests, please wait before trying again.",
     "retryable"),
    ("modelStreamErrorException", "Model stream error: Too many requests, please wait before trying again.",
     "retryable"),
])
async def test_exception_inside_the_stream_keeps_the_partial_answer(
        loopback: LoopbackServer, keys: None, exception: str, text: str, kind: str) -> None:
    loopback.push(Reply.event_stream([
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "partial"}}),
        bedrock_exception(exception, "Too many requests, please wait before trying again."),
    ]))
    got, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert types(got)[-2:] == ["text_end", "error"]
    assert msg.error_message == text
    assert msg.content == [TextContent(text="partial")]
    assert classify_error(msg) == kind


async def test_validation_exception_for_a_long_prompt_is_an_overflow(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([bedrock_exception(
        "validationException", "The model returned the following errors: Input is too long for requested model.")]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == ("Validation error: The model returned the following errors: "
                                 "Input is too long for requested model.")
    assert classify_error(msg) == "overflow"


@pytest.mark.parametrize(("status", "error_type", "body", "text", "kind"), [
    (429, "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
     {"message": "Too many tokens, please wait before trying again."},
     "Throttling error: Too many tokens, please wait before trying again.", "retryable"),
    (400, "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
     {"message": "The provided model identifier is invalid."},
     "Validation error: The provided model identifier is invalid.", "fatal"),
    (403, "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
     {"message": "The security token included in the request is invalid."},
     "UnrecognizedClientException: The security token included in the request is invalid.", "fatal"),
    (400, None, {"__type": "com.amazon.coral.validate#ValidationException",
                 "message": "data retention mode 'default' is not available for this model"},
     "Validation error: data retention mode 'default' is not available for this model See "
     "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html for supported data retention modes.",
     "fatal"),
    (500, "InternalServerException", {"message": "boom"}, "Internal server error: boom", "retryable"),
    (503, "ServiceUnavailableException", {"message": "Bedrock is unable to process your request."},
     "Service unavailable: Bedrock is unable to process your request.", "retryable"),
])
async def test_http_errors_become_one_line(loopback: LoopbackServer, keys: None, status: int, error_type: str | None,
                                           body: dict[str, str], text: str, kind: str) -> None:
    headers = {"x-amzn-errortype": error_type} if error_type else {}
    loopback.push(Reply.json(status, body, headers))
    got, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert types(got) == ["error"]
    assert msg.error_message == text
    assert classify_error(msg) == kind


async def test_a_proxys_plain_text_error(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply(status=502, headers={"content-type": "text/plain"}, pieces=[b"upstream \x1b[31mexploded"]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "502 upstream exploded"
    assert classify_error(msg) == "retryable"


async def test_retry_after_header_is_kept(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.json(429, {"message": "slow down"}, {"x-amzn-errortype": "ThrottlingException",
                                                             "retry-after": "7"}))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "Throttling error: slow down (retry after 7s)"


async def test_cut_connection_keeps_partial_and_is_retryable(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "partial"}}),
    ], drop=True))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error" and msg.content == [TextContent(text="partial")]
    assert classify_error(msg) == "retryable"


async def test_stream_ending_without_stop_reason(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}),
                                      bedrock_event("contentBlockDelta",
                                                    {"contentBlockIndex": 0, "delta": {"text": "par"}})]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "Bedrock stream ended without a stop reason"
    assert classify_error(msg) == "retryable"


async def test_stream_ending_inside_a_frame(loopback: LoopbackServer, keys: None) -> None:
    frame = bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "par"}})
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}), frame[:20]]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error"
    assert "cut short inside a frame" in (msg.error_message or "")
    assert classify_error(msg) == "retryable"


async def test_corrupt_frame_is_refused(loopback: LoopbackServer, keys: None) -> None:
    frame = bytearray(bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "par"}}))
    frame[-1] ^= 0xFF
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}), bytes(frame)]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.stop_reason == "error"
    assert (msg.error_message or "").startswith("Malformed frame in the Bedrock event stream:")
    assert "Checksum" in (msg.error_message or "") or "checksum" in (msg.error_message or "")


async def test_error_frame_from_the_service(loopback: LoopbackServer, keys: None) -> None:
    error = event_stream_frame({":message-type": "error", ":error-code": "InternalFailure",
                                ":error-message": "An internal error occurred"}, b"")
    loopback.push(Reply.event_stream([bedrock_event("messageStart", {"role": "assistant"}), error]))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "InternalFailure: An internal error occurred"


async def test_echoed_bearer_token_is_redacted(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSK-very-secret-bearer-token")
    loopback.push(Reply.json(403, {"message": "token ABSK-very-secret-bearer-token is not valid"},
                             {"x-amzn-errortype": "AccessDeniedException"}))
    _, msg = await run(make_model(loopback), ctx(), reasoning="off")
    assert msg.error_message == "AccessDeniedException: token [redacted] is not valid"


async def test_abort_mid_stream(loopback: LoopbackServer, keys: None) -> None:
    loopback.push(Reply.event_stream([
        bedrock_event("messageStart", {"role": "assistant"}),
        bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Working"}}),
    ], stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), ctx(), StreamOptions(reasoning="off", signal=controller.signal))
    seen: list[str] = []
    async for event in s:
        seen.append(event.type)
        if event.type == "text_delta":
            controller.abort()
    msg = await s.result()
    assert seen[-1] == "error"
    assert msg.stop_reason == "aborted" and msg.error_message == "Request was aborted"
    assert msg.content == [TextContent(text="Working")]


async def test_aborted_before_sending(loopback: LoopbackServer, keys: None) -> None:
    controller = AbortController()
    controller.abort()
    _, msg = await run(make_model(loopback), ctx(), reasoning="off", signal=controller.signal)
    assert msg.stop_reason == "aborted"
    assert loopback.requests == []


async def test_on_stream_event_sees_items_like_the_sdks(loopback: LoopbackServer, keys: None) -> None:
    seen: list[Any] = []

    async def watch(item: Any) -> None:
        seen.append(item)

    loopback.push(text_reply("ok"))
    await run(make_model(loopback), ctx(), reasoning="off", on_stream_event=watch)
    assert seen[0] == {"messageStart": {"role": "assistant", "p": "abcdef"}}
    assert seen[-1]["metadata"]["usage"]["totalTokens"] == 13
    assert json.dumps(seen)  # plain data


