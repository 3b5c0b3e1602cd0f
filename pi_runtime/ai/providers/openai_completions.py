"""The OpenAI Chat Completions wire protocol (``api: openai-completions``).

Spoken by OpenAI and by most compatible servers (OpenRouter, DeepSeek, Groq, Ollama,
llama.cpp, vLLM, LM Studio, ...). Their differences are described by the model's ``compat``
switches (models-configuration.md); unset switches are guessed from the base URL. Message
conversion lives in ``_completions_messages``, the switches in ``_completions_compat``; this
module builds the request body and turns the SSE stream into builder calls.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..reported_cost import apply_reported_cost, is_openrouter
from ..thinking_levels import request_level
from ..types import Context, Model
from ._completions_compat import budget_field, reasoning_fields, resolve_compat, thinking_budget
from ._completions_messages import (
    REASONING_FIELDS,
    apply_cache_control,
    convert_messages,
    convert_tools,
    has_tool_history,
)
from ._error_words import openai_words
from ._http import OPENED, failure_events, post_sse
from ._identity import identity_headers
from ._openai_common import (
    MissingApiKey,
    endpoint,
    resolve_api_key,
    sampling_params,
    usage_int,
)

ACCEPTS_WIRE_MESSAGES = True
"""``context.messages`` may hold stored messages as wire dicts (``_completions_messages`` reads both)."""

_DECODE = json.JSONDecoder().decode
"""``json.loads`` minus its argument checks: this runs once per streamed token."""

_FINISH = {
    "stop": "stop", "end_turn": "stop", "eos": "stop", "stop_sequence": "stop",
    "length": "length", "max_tokens": "length",
    "tool_calls": "toolUse", "function_call": "toolUse", "tool_use": "toolUse",
}
PROMPT_CACHE_KEY_LIMIT = 64
"""OpenAI's longest ``prompt_cache_key`` (characters); a longer session id is cut."""


# --------------------------------------------------------------------------- request


def _retention(options: StreamOptions) -> str:
    """The cache retention asked for: the request's, else ``long`` from ``PI_CACHE_RETENTION``, else short."""
    wanted = options.extra.get("cache_retention")
    if wanted:
        return str(wanted)
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def _session_headers(compat: dict[str, Any], session_id: str | None) -> dict[str, str]:
    if not session_id or not compat.get("sendSessionAffinityHeaders"):
        return {}
    if compat.get("sessionAffinityFormat") == "openrouter":
        return {"x-session-id": session_id}
    headers = {"session_id": session_id} if compat.get("sessionAffinityFormat") == "openai" else {}
    return {**headers, "x-client-request-id": session_id, "x-session-affinity": session_id}


def request_headers(model: Model, options: StreamOptions, api_key: str | None,
                    compat: dict[str, Any]) -> dict[str, str | None]:
    """The headers as Pi's OpenAI client sends them: JSON both ways, the bearer key, pi's identity,
    the model's headers, the session-affinity headers, then the request's (None removes one)."""
    headers: dict[str, str | None] = {"accept": "application/json", "content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    headers.update(identity_headers(model))
    headers.update(model.headers or {})
    retention = _retention(options)
    headers.update(_session_headers(compat, options.session_id if retention != "none" else None))
    headers.update(options.headers)
    return headers


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON body for ``/chat/completions`` (keys in Pi's order) and the resolved compat switches.

    Args:
        model: The target model (its ``compat`` and models.json extras shape the body).
        context: System prompt, history and tools.
        options: Per-request options (max tokens, temperature, thinking level, session).

    Returns:
        ``(body, compat)``.
    """
    compat = resolve_compat(model)
    level = request_level(model, options.reasoning)
    retention = _retention(options)
    messages = convert_messages(model, context, compat)
    body: dict[str, Any] = {"model": model.id, "messages": messages, "stream": True}
    mode = compat.get("promptCacheKeyMode") or "auto"
    long_cache = retention == "long" and bool(compat.get("supportsLongCacheRetention"))
    if retention != "none" and options.session_id and (
            mode == "enabled" or (mode == "auto" and ("api.openai.com" in model.base_url or long_cache))):
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_LIMIT]
    if long_cache:
        body["prompt_cache_retention"] = "24h"
    if compat.get("supportsUsageInStreaming") is not False:
        body["stream_options"] = {"include_usage": True}
    if compat.get("supportsStore"):
        body["store"] = False
    max_tokens = options.max_tokens or model.max_tokens
    if max_tokens:
        body["max_tokens" if compat.get("maxTokensField") == "max_tokens" else "max_completion_tokens"] = max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools, compat)
        if compat.get("zaiToolStream"):
            body["tool_stream"] = True
    elif compat.get("requiresToolsWithToolHistory") and has_tool_history(messages):
        body["tools"] = []
    if compat.get("cacheControlFormat") == "anthropic" and retention != "none":
        marker: dict[str, Any] = {"type": "ephemeral", **({"ttl": "1h"} if long_cache else {})}
        apply_cache_control(messages, body.get("tools"), marker)
    if options.extra.get("tool_choice") is not None:
        body["tool_choice"] = options.extra["tool_choice"]
    if compat.get("vllmPriority") is not None:
        body["priority"] = compat["vllmPriority"]
    ceiling = body.get("max_tokens") or body.get("max_completion_tokens") or model.max_tokens
    budget = thinking_budget(level, options, ceiling) if model.reasoning else None
    body.update(reasoning_fields(model, compat, level, budget))
    field = budget_field(compat)
    if field and budget is not None:
        body[field] = budget
    if compat.get("openRouterRouting") is not None:
        body["provider"] = compat["openRouterRouting"]
    routing = compat.get("vercelGatewayRouting") or {}
    if routing.get("only") or routing.get("order"):
        body["providerOptions"] = {"gateway": {k: routing[k] for k in ("only", "order") if routing.get(k)}}
    body.update(sampling_params(model, options, level))
    return body, compat


# --------------------------------------------------------------------------- response


def apply_usage(builder: MessageBuilder, usage: dict[str, Any]) -> None:
    """Map Chat Completions usage onto ours; cached and cache-write tokens leave ``input``.

    Cache hits are where each server puts them, first found wins as in Pi (a reported 0
    counts): ``prompt_tokens_details.cached_tokens`` (OpenAI, OpenRouter, llama.cpp),
    ``prompt_cache_hit_tokens`` (DeepSeek), top-level ``cached_tokens`` (Kimi). The usage is
    priced at once; OpenRouter's billed cost replaces the computed total when it reports one.
    """
    details = usage.get("prompt_tokens_details") or {}
    cached = _first_count((details, "cached_tokens"), (usage, "prompt_cache_hit_tokens"), (usage, "cached_tokens"))
    written = usage_int(details, "cache_write_tokens", "cache_creation_tokens")
    target = builder.message.usage
    target.input = max(0, usage_int(usage, "prompt_tokens") - cached - written)
    target.output = usage_int(usage, "completion_tokens")
    target.cache_read = cached
    target.cache_write = written
    reasoning = (usage_int(usage.get("completion_tokens_details"), "reasoning_tokens")
                 or usage_int(usage, "reasoning_tokens"))
    target.reasoning = reasoning  # already part of output (message-types.md); Pi records a 0 too
    target.total_tokens = target.input + target.output + cached + written
    builder.usage_updated()
    if is_openrouter(builder.model):
        apply_reported_cost(target, usage)


def _first_count(*places: tuple[Any, str]) -> int:
    """The first of ``(dict, key)`` places that holds a count (a 0 included), else 0."""
    for where, key in places:
        if isinstance(where, dict) and where.get(key) is not None:
            return usage_int(where, key)
    return 0


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from a Chat Completions server. Never raises."""
    builder = MessageBuilder(model)
    try:
        api_key = resolve_api_key(model, options)
        body, compat = build_request(model, context, options)
    except (MissingApiKey, ValueError) as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    headers = request_headers(model, options, api_key, compat)
    msg = builder.message
    # One thinking block and one text block per message, each open until the stream ends, as Pi
    # 1.6 builds them: text after a tool call (or reasoning after text) grows the same block, and
    # every block ends at the finish, in content order (text_end after the tool call's events).
    text_at = thinking_at = -1
    tools: dict[int, tuple[str | None, int]] = {}  # wire index -> (call id, block index)
    finish: str | None = None
    saw_done = False
    loads = _DECODE
    try:
        async for item in post_sse(endpoint(model, "chat/completions"), headers, body, options,
                                   announce_open=True, error_text=openai_words):
            if item is OPENED:  # the server accepted the request: Pi's ``start``
                for event in builder.start():
                    yield event
                continue
            data = item[1]
            if data == "[DONE]":
                saw_done = True
                break
            try:
                chunk = loads(data)
                if not isinstance(chunk, dict):
                    raise ValueError("not a JSON object")
            except ValueError:
                for event in builder.fail(f"Malformed data line in the provider's stream: {data[:200]!r}"):
                    yield event
                return
            error = chunk.get("error")
            if error:
                text = error.get("message") if isinstance(error, dict) else str(error)
                for event in builder.fail(f"Provider error: {text or error}"):
                    yield event
                return
            if msg.response_id is None and chunk.get("id"):
                msg.response_id = chunk["id"]
                if chunk.get("model") and chunk["model"] != model.id:
                    msg.response_model = chunk["model"]
            usage = chunk.get("usage")
            if usage:
                apply_usage(builder, usage)
            choices = chunk.get("choices")
            if not choices:
                continue
            choice = choices[0]
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            # Most chunks are {"content": "..."}: skip the reasoning probes for them.
            for field in REASONING_FIELDS if len(delta) > 1 or not piece else ():
                thought = delta.get(field)
                if thought and isinstance(thought, str):
                    if thinking_at < 0:  # the first reasoning field seen names the block's signature
                        thinking_at, events = builder.thinking_start(signature=field)
                        for event in events:
                            yield event
                    for event in builder.thinking_delta(thinking_at, thought):
                        yield event
                    break
            if piece:
                if text_at < 0:
                    text_at, events = builder.text_start()
                    for event in events:
                        yield event
                for event in builder.text_delta(text_at, piece):
                    yield event
            calls = delta.get("tool_calls")
            if calls:
                for position, call in enumerate(calls):
                    for event in _tool_delta(builder, tools, position, call):
                        yield event
            reason = choice.get("finish_reason")
            if reason:
                finish = reason
                builder.set_raw_stop_reason(reason if isinstance(reason, str) else None)
    except Exception as exc:  # noqa: BLE001 - ProviderError, Aborted, anything unexpected
        for event in failure_events(builder, exc, options):
            yield event
        return
    for event in _finish(builder, finish, saw_done, compat):
        yield event


def _tool_delta(builder: MessageBuilder, tools: dict[int, tuple[str | None, int]], position: int,
                call: dict[str, Any]) -> list[AssistantMessageEvent]:
    """Grow the tool call at ``call['index']``; a new id at a used index starts a new call."""
    wire_index = call.get("index", position)
    call_id = call.get("id")
    function = call.get("function") or {}
    known = tools.get(wire_index)
    events: list[AssistantMessageEvent] = []
    if known is None or (call_id and known[0] and call_id != known[0]):
        index, events = builder.toolcall_start(call_id or f"call_{wire_index}", function.get("name") or "")
        tools[wire_index] = (call_id, index)
    else:
        index = known[1]
        block = builder.message.content[index]
        if function.get("name") and not block.name:  # type: ignore[union-attr]
            block.name = function["name"]  # type: ignore[union-attr]
    # Every chunk of a call is a delta, as in Pi: the first one, which has its id and name and
    # (from OpenAI) empty arguments, too.
    arguments = function.get("arguments")
    if isinstance(arguments, dict):
        # Some local servers send the arguments as an object rather than a JSON string: it is what
        # the model meant (Pi fails the call with "[object Object] is not valid JSON").
        arguments = json.dumps(arguments, ensure_ascii=False)
    events.extend(builder.toolcall_delta(index, arguments if isinstance(arguments, str) else ""))
    return events


def _finish(builder: MessageBuilder, finish: str | None, saw_done: bool,
            compat: dict[str, Any]) -> list[AssistantMessageEvent]:
    if finish is None:
        if saw_done or not compat.get("supportsFinishReason", True):
            return builder.finish(None)
        return builder.fail("The stream ended without a finish reason (the response was cut short)")
    if finish == "content_filter":
        return builder.fail("The provider's content filter stopped the response (finish_reason: content_filter)")
    mapped = _FINISH.get(finish)
    if mapped is None:
        return builder.fail(f"The provider ended the response with finish_reason {finish!r}")
    return builder.finish(mapped)
