"""The OpenAI Responses wire protocol (``api: openai-responses``), as Pi 1.6 speaks it.

The body and the stream are Pi's shared Responses dialect (``_responses_input``,
``_responses_stream``, also used by Azure and Codex): the system prompt as a developer message,
history as input items with Pi's ids and signatures, tools as the request's ``tools`` or, for
models that take mid-conversation tool changes (``supportsAdditionalTools``), as an
``additional_tools`` item; strict tools where the model's compat says the server has a strict
mode. Pi's switches (``compat``) default as in Pi: developer role on, strict mode off, prompt
cache key on. A ChatGPT sign-in (an OpenAI token that is not an ``sk-`` key, sent to
api.openai.com) leaves out the fields that endpoint refuses.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..types import Context, Model
from ._error_words import openai_words
from ._http import OPENED, failure_events, post_sse
from ._identity import identity_headers
from ._openai_common import (
    MissingApiKey,
    endpoint,
    provider_effort,
    resolve_api_key,
    sampling_params,
    thinking_level,
)
from ._responses_input import convert_input, convert_tools
from ._responses_stream import ResponsesError, ResponsesReader, parse_event

ACCEPTS_SYSTEM_MESSAGES = True
"""The transcript's system messages reach ``convert_input`` (prompt and tools as Pi declares them)."""
TOOL_CALL_FAMILY = frozenset({"openai", "openai-codex", "opencode"})
"""Providers whose tool-call item ids can be replayed to this API (Pi's ``OPENAI_TOOL_CALL_PROVIDERS``)."""
MIN_OUTPUT_TOKENS = 16
"""The Responses API rejects ``max_output_tokens`` below 16."""
CONFIGURATION_UPDATE_EFFORT = "medium"
"""``reasoning.effort`` while ``configuration_update`` items carry the thinking level."""
PROMPT_CACHE_KEY_LIMIT = 64

# --------------------------------------------------------------------------- request


def resolve_compat(model: Model) -> dict[str, Any]:
    """Pi's switches for the Responses API: the model's ``compat`` over Pi's defaults."""
    given = model.compat or {}
    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
    defaults: dict[str, Any] = {
        "supportsDeveloperRole": True, "supportsMidConvoSystemMessages": False,
        "sessionAffinityFormat": "openrouter" if openrouter else "openai", "promptCacheKeyMode": "auto",
        "supportsLongCacheRetention": True, "supportsStrictMode": False, "supportsOpenAIGrammarTools": False,
        "supportsAdditionalTools": False, "supportsToolSearch": False, "supportsExplicitPromptCacheMode": False,
        "supportsMaxOutputTokens": True, "supportsMidConvoEffort": False,
    }
    return {**defaults, **{k: v for k, v in given.items() if v is not None}}


def is_chatgpt_sign_in(model: Model, api_key: str | None) -> bool:
    """An OpenAI token that is not an ``sk-`` key, sent to OpenAI's API: a Sign in with ChatGPT token."""
    return (model.provider == "openai" and model.base_url == "https://api.openai.com/v1"
            and api_key is not None and not api_key.startswith("sk-"))


def _retention(options: StreamOptions) -> str:
    wanted = options.extra.get("cache_retention")
    if wanted:
        return str(wanted)
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def build_request(model: Model, context: Context, options: StreamOptions,
                  api_key: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON body for ``/responses`` (keys in Pi's order) and the resolved compat switches.

    Args:
        model: The target model.
        context: System prompt, history and tools.
        options: Per-request options (max tokens, temperature, thinking level, session).
        api_key: The key the request is sent with (a ChatGPT sign-in drops some fields).

    Returns:
        ``(body, compat)``.

    Raises:
        ValueError: a tool requires a strict schema it cannot have.
    """
    compat = resolve_compat(model)
    level = thinking_level(model, options)
    chatgpt = is_chatgpt_sign_in(model, api_key)
    mid_effort = provider_effort(model, level) if compat["supportsMidConvoEffort"] and level and not chatgpt else None
    strict_mode = bool(compat["supportsStrictMode"])
    items, tools = convert_input(model, context, TOOL_CALL_FAMILY, strict=(False, strict_mode),
                                 configuration_effort=mid_effort)
    retention = _retention(options)
    body: dict[str, Any] = {"model": model.id, "input": items, "stream": True}
    if retention != "none" and compat["promptCacheKeyMode"] != "disabled" and options.session_id:
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_LIMIT]
    long_cache = retention == "long" and compat["supportsLongCacheRetention"]
    if not chatgpt:
        if long_cache and not compat["supportsExplicitPromptCacheMode"]:
            body["prompt_cache_retention"] = "24h"
        if compat["supportsExplicitPromptCacheMode"] and (retention == "none" or long_cache):
            body["prompt_cache_options"] = {"mode": "explicit"} if retention == "none" else {"ttl": "30m"}
    body["store"] = False
    max_tokens = options.max_tokens or model.max_tokens
    if max_tokens and compat["supportsMaxOutputTokens"] and not chatgpt:
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None and not chatgpt:
        body["temperature"] = options.temperature
    if options.extra.get("service_tier"):
        body["service_tier"] = options.extra["service_tier"]
    if tools:
        body["tools"] = convert_tools(tools, default_strict=False, supports_strict=strict_mode)
    if options.extra.get("tool_choice") is not None:
        body["tool_choice"] = options.extra["tool_choice"]
    if model.reasoning:
        mapping = model.thinking_level_map if isinstance(model.thinking_level_map, dict) else {}
        if level:
            effort = CONFIGURATION_UPDATE_EFFORT if mid_effort is not None else provider_effort(model, level)
            body["reasoning"] = {"effort": effort, "summary": "auto"}
            body["include"] = ["reasoning.encrypted_content"]
        elif model.provider != "github-copilot" and not ("off" in mapping and mapping["off"] is None):
            body["reasoning"] = {"effort": mapping.get("off") or "none"}
        if model.provider == "xai":
            body["include"] = ["reasoning.encrypted_content"]
    body.update(sampling_params(model, options, level))
    return body, compat


def request_headers(model: Model, options: StreamOptions, api_key: str | None,
                    compat: dict[str, Any]) -> dict[str, str | None]:
    """The headers as Pi's OpenAI client sends them: JSON, the bearer key, pi's identity, the model's
    headers, the session headers (``session-id`` and ``x-client-request-id``; OpenRouter's
    ``x-session-id``), then the request's (None removes one)."""
    headers: dict[str, str | None] = {"accept": "application/json", "content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    headers.update(identity_headers(model))
    headers.update(model.headers or {})
    session = options.session_id if _retention(options) != "none" else None
    if session:
        if compat["sessionAffinityFormat"] == "openrouter":
            headers["x-session-id"] = session
        else:
            if compat["sessionAffinityFormat"] == "openai":
                headers["session-id"] = session
            headers["x-client-request-id"] = session
    headers.update(options.headers)
    return headers


# --------------------------------------------------------------------------- response


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from a Responses server. Never raises."""
    builder = MessageBuilder(model)
    try:
        api_key = resolve_api_key(model, options)
        body, compat = build_request(model, context, options, api_key)
    except (MissingApiKey, ValueError) as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    if compat["supportsMidConvoEffort"] and body.get("reasoning", {}).get("effort") == CONFIGURATION_UPDATE_EFFORT:
        builder.message.provider_thinking_level = _configured_effort(body)
    headers = request_headers(model, options, api_key, compat)
    reader = ResponsesReader(builder)
    try:
        api = "OpenAI" if model.provider == "openai" else model.provider

        def words(status: int, raw: bytes) -> str:
            return openai_words(status, raw, f"{api} API error")

        async for item in post_sse(endpoint(model, "responses"), headers, body, options, announce_open=True,
                                   error_text=words):
            if item is OPENED:  # the server accepted the request: Pi's ``start``
                for event in builder.start():
                    yield event
                continue
            data = parse_event(item[1])
            if data is None:
                continue
            for event in reader.handle(data):
                yield event
        tail = reader.result("OpenAI Responses")
    except ResponsesError as exc:
        tail = builder.fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - ProviderError, Aborted, anything unexpected
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event


def _configured_effort(body: dict[str, Any]) -> str | None:
    """The effort the last ``configuration_update`` item carries (recorded on the answer, as Pi does)."""
    for item in reversed(body.get("input") or []):
        if isinstance(item, dict) and item.get("type") == "configuration_update":
            return (item.get("reasoning") or {}).get("effort")
    return None
