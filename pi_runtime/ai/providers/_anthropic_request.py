"""An Anthropic Messages request as Pi 1.6 builds it (body keys in Pi's order, its betas and headers).

- **Credentials.** An API key goes as ``x-api-key``; a Claude Pro/Max token (``sk-ant-oat``) as a
  bearer token with Claude Code's identity (``subscription_quirks``); GitHub Copilot's token as a
  bearer token; a credential the headers carry (``ANTHROPIC_AUTH_TOKEN``'s ``Authorization``) as
  it is, with no key header.
- **Betas** (``anthropic-beta``): the subscription's, ``fine-grained-tool-streaming`` only for
  servers without eager tool input streaming (Anthropic's own has it: tools say
  ``eager_input_streaming``), interleaved thinking for budget thinking, the managed-effort betas
  for models that take the effort mid-conversation, ``inline-tools`` with the deferred tool
  placeholder for models that take tool changes mid-conversation, and ``message-threads`` where
  the server keeps threads (api.anthropic.com). A configured ``anthropic-beta`` header replaces
  them (null: none).
- **Caching.** ``cache_control`` on the system prompt, the last tool and the newest user turn
  (one hour with ``PI_CACHE_RETENTION=long``).
- **Thinking.** Adaptive thinking with an effort for the models that force it; managed effort
  (``output_config`` markers as system messages in the conversation) for the models that take it
  mid-conversation; a token budget for the others; ``{"type": "disabled"}`` when a reasoning model
  is told not to think.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..context_budget import clamp_max_tokens, context_tokens
from ..strict_schema import strict_choice, tool_parameters
from ..transform import prepare_messages
from ..types import (
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
from . import subscription_quirks as quirks
from ._identity import identity_headers
from ._image_placeholders import images_as_placeholders

ANTHROPIC_VERSION = "2023-06-01"
FINE_GRAINED_TOOL_STREAMING = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14"
SERVER_SIDE_FALLBACK = "server-side-fallback-2026-07-01"
MID_CONVERSATION_OUTPUT_CONFIG = "mid-conversation-output-config-2026-07-01"
THINKING_BINDING_CONTROLS = "thinking-binding-controls-2026-08-01"
INLINE_TOOLS = "inline-tools-2026-09-15"
MESSAGE_THREADS = "message-threads-2026-08-12"
DEFERRED_TOOL_PLACEHOLDER: dict[str, Any] = {
    "name": "__pi_deferred_placeholder__",
    "description": "Reserved placeholder. Never available. Never call this.",
    "input_schema": {"type": "object", "properties": {}, "required": []},
    "defer_loading": True,
}
"""Declared (never loaded) whenever tool changes are native, so the first change keeps the cached prefix."""
DEFAULT_THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_ANSWER_TOKENS = 1024
_STRICT_UNSUPPORTED = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxItems",
                                 "uniqueItems", "minContains", "maxContains", "minProperties", "maxProperties"})
_STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6",
                             "uuid"})
_ERROR_IMAGE_PLACEHOLDER = "(image attached after the tool results)"
_NO_IMAGES = "(image omitted: model does not support images)"
_NO_TOOL_IMAGES = "(tool image omitted: model does not support images)"


def compat(model: Model) -> dict[str, Any]:
    """Pi's Anthropic switches: the model's ``compat`` over Pi's defaults."""
    given = model.compat or {}
    openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url

    def pick(name: str, default: Any) -> Any:
        value = given.get(name)
        return default if value is None else value

    return {
        "supportsEagerToolInputStreaming": pick("supportsEagerToolInputStreaming", True),
        "supportsLongCacheRetention": pick("supportsLongCacheRetention", True),
        "sendSessionAffinityHeaders": pick("sendSessionAffinityHeaders", openrouter),
        "sessionAffinityFormat": pick("sessionAffinityFormat", "openrouter" if openrouter else None),
        "supportsCacheControlOnTools": pick("supportsCacheControlOnTools", True),
        "supportsTemperature": pick("supportsTemperature", True),
        "allowEmptySignature": pick("allowEmptySignature", False),
        "supportsStrictTools": pick("supportsStrictTools", False),
        "supportsMidConvoSystemMessages": pick("supportsMidConvoSystemMessages", False),
        "supportsMidConvoToolChanges": pick("supportsMidConvoToolChanges", False),
        "supportsMessageThreads": pick("supportsMessageThreads", "api.anthropic.com" in model.base_url),
        "forceAdaptiveThinking": given.get("forceAdaptiveThinking") is True,
        "supportsMidConvoEffort": given.get("supportsMidConvoEffort") is True,
        "allowedFallbackModels": given.get("allowedFallbackModels") or [],
    }


def retention(options: Any) -> str:
    """The cache retention asked for: the request's, ``long`` from ``PI_CACHE_RETENTION``, else short."""
    wanted = options.extra.get("cache_retention")
    if wanted:
        return str(wanted)
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def cache_marker(model: Model, options: Any) -> dict[str, Any] | None:
    kept = retention(options)
    if kept == "none":
        return None
    return {"type": "ephemeral", **({"ttl": "1h"} if kept == "long" and compat(model)["supportsLongCacheRetention"]
                                    else {})}


def effort_for(model: Model, level: str) -> str:
    """The adaptive-thinking effort for a level (the model's ``thinkingLevelMap`` first)."""
    mapping = model.thinking_level_map if isinstance(model.thinking_level_map, dict) else {}
    mapped = mapping.get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def is_subscription_token(model: Model, api_key: str | None) -> bool:
    return quirks.is_claude_subscription(model.provider, api_key)


# --------------------------------------------------------------------------- messages


def tool_use_id(call_id: str) -> str:
    """Anthropic only accepts ``[a-zA-Z0-9_-]{1,64}`` ids; ids from other providers are mapped (as Pi)."""
    clean = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]
    return clean or "tool_call"


def _image(block: ImageContent) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block.mime_type, "data": block.data}}


def _result_content(content: list[Any]) -> str | list[dict[str, Any]]:
    """A tool result's content: its texts joined when it has no image, else blocks (text first if none)."""
    if not any(isinstance(b, ImageContent) for b in content):
        return "\n".join(b.text for b in content if isinstance(b, TextContent))
    blocks = [{"type": "text", "text": b.text} if isinstance(b, TextContent) else _image(b)
              for b in content if isinstance(b, TextContent | ImageContent)]
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": "(see attached image)"})
    return blocks


def _assistant_blocks(message: AssistantMessage, subscription: bool, allow_empty_signature: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextContent):
            if part.text.strip():
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ThinkingContent):
            if part.redacted:
                blocks.append({"type": "redacted_thinking", "data": part.thinking_signature})
                continue
            signed = bool(part.thinking_signature and part.thinking_signature.strip())
            if not part.thinking.strip() and not signed:
                continue
            if signed:
                blocks.append({"type": "thinking", "thinking": part.thinking, "signature": part.thinking_signature})
            elif allow_empty_signature:
                blocks.append({"type": "thinking", "thinking": part.thinking, "signature": ""})
            else:
                blocks.append({"type": "text", "text": part.thinking})
        elif isinstance(part, ToolCall):
            blocks.append({"type": "tool_use", "id": tool_use_id(part.id),
                           "name": quirks.to_claude_code(part.name) if subscription else part.name,
                           "input": part.arguments or {}})
    return blocks


def convert_messages(messages: list[Any], model: Model, *, subscription: bool, marker: dict[str, Any] | None,
                     allow_empty_signature: bool = False) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """Prepared history as Anthropic ``messages`` (Pi's ``convertMessages``).

    Returns:
        The messages (the newest user turn's last block marked for caching), and for each converted
        assistant message's index the effort it was answered at (for managed-effort markers).
    """
    images_ok = "image" in model.input
    out: list[dict[str, Any]] = []
    levels: dict[int, str] = {}
    index = 0
    while index < len(messages):
        message = messages[index]
        if isinstance(message, UserMessage):
            if isinstance(message.content, str):
                if message.content.strip():
                    out.append({"role": "user", "content": message.content})
            else:
                content = message.content if images_ok else images_as_placeholders(message.content, _NO_IMAGES)
                blocks = [{"type": "text", "text": b.text} if isinstance(b, TextContent) else _image(b)
                          for b in content if isinstance(b, TextContent | ImageContent)]
                blocks = [b for b in blocks if b["type"] != "text" or b["text"].strip()]
                if blocks:
                    out.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, subscription, allow_empty_signature)
            if blocks:
                level = message.provider_thinking_level
                if (message.api == "anthropic-messages" and message.provider == model.provider
                        and level in ("low", "medium", "high", "xhigh", "max")):
                    levels[len(out)] = level
                out.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            results: list[dict[str, Any]] = []
            after: list[dict[str, Any]] = []
            while index < len(messages) and isinstance(messages[index], ToolResultMessage):
                result = messages[index]
                content = result.content if images_ok else images_as_placeholders(result.content, _NO_TOOL_IMAGES)
                images = [b for b in content if isinstance(b, ImageContent)]
                if result.is_error and images:
                    # Anthropic takes only text in an error result: its images follow the results.
                    content = images_as_placeholders(content, _ERROR_IMAGE_PLACEHOLDER)
                    after += [{"type": "text", "text": f"Images from the error result of tool call "
                                                       f"{result.tool_call_id} ({result.tool_name}):"},
                              *(_image(i) for i in images)]
                results.append({"type": "tool_result", "tool_use_id": tool_use_id(result.tool_call_id),
                                "content": _result_content(content), "is_error": bool(result.is_error)})
                index += 1
            out.append({"role": "user", "content": [*results, *after]})
            continue
        index += 1
    if marker is not None and out and out[-1]["role"] == "user":
        last = out[-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": dict(marker)}]
        elif last["content"] and last["content"][-1].get("type") in ("text", "image", "tool_result"):
            last["content"][-1]["cache_control"] = dict(marker)
    return out, levels


def with_effort_markers(messages: list[dict[str, Any]], levels: dict[int, str], active: str) -> list[dict[str, Any]]:
    """Managed effort: each past answer preceded by the effort it was given, the request's at the end."""
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if index in levels:
            out.append({"role": "system", "content": [], "output_config": {"effort": levels[index]}})
        out.append(message)
    out.append({"role": "system", "content": [], "output_config": {"effort": active}})
    return out


# --------------------------------------------------------------------------- tools


def _strict_unsupported(key: str, value: Any) -> bool:
    if key in _STRICT_UNSUPPORTED:
        return True
    if key == "minItems":
        return value not in (0, 1)
    if key == "format":
        return not isinstance(value, str) or value not in _STRICT_FORMATS
    return False


def _prefers_strict(tool: Tool) -> bool:
    config = tool.constrained_sampling
    return isinstance(config, dict) and config.get("type") == "json_schema" and config.get("strict") == "prefer"


def convert_tools(tools: list[Tool], *, subscription: bool, settings: dict[str, Any],
                  marker: dict[str, Any] | None, prefer_off: bool = False) -> list[dict[str, Any]]:
    """Tools as Pi sends them: eager input streaming where the server has it, strict where it takes
    strict tools (and the schema avoids what Anthropic's strict mode refuses), the cache marker last.
    ``prefer_off``: tools that only prefer strict go without (Claude refused this session's as too many)."""
    out = []
    for position, tool in enumerate(tools):
        strict = None if prefer_off and _prefers_strict(tool) else strict_choice(
            tool, settings["supportsStrictTools"], _strict_unsupported)
        schema = tool_parameters(tool, strict)
        legacy: dict[str, Any] = {"type": "object", "properties": schema.get("properties") or {},
                                  "required": schema.get("required") or []}
        for key in ("additionalProperties", "$defs", "definitions"):
            if key in schema:
                legacy[key] = schema[key]
        entry: dict[str, Any] = {"name": quirks.to_claude_code(tool.name) if subscription else tool.name,
                                 "description": tool.description}
        if settings["supportsEagerToolInputStreaming"]:
            entry["eager_input_streaming"] = True
        if strict:
            entry["strict"] = True
        entry["input_schema"] = {**schema, **legacy} if strict else legacy
        if marker is not None and position == len(tools) - 1:
            entry["cache_control"] = dict(marker)
        out.append(entry)
    return out


# --------------------------------------------------------------------------- the request


def betas(model: Model, context: Context, options: Any, *, subscription: bool, thinking: bool,
          native_tools: bool, threads: bool) -> list[str]:
    """The ``anthropic-beta`` features, in Pi's order (a configured header replaces them)."""
    configured: Any = ...
    for headers in (model.headers or {}, options.headers):
        for name, value in headers.items():
            if name.lower() == "anthropic-beta":
                configured = value
    if configured is None:
        return []
    if configured is not ...:
        return list(dict.fromkeys(f.strip() for f in str(configured).split(",") if f.strip()))
    settings = compat(model)
    features: list[str] = []
    if subscription:
        features += quirks.CLAUDE_CODE_BETAS
    if context.tools and not settings["supportsEagerToolInputStreaming"]:
        features.append(FINE_GRAINED_TOOL_STREAMING)
    if model.reasoning and thinking and options.extra.get("interleaved_thinking", True) and not settings[
            "forceAdaptiveThinking"]:
        features.append(INTERLEAVED_THINKING)
    if settings["allowedFallbackModels"]:
        features.append(SERVER_SIDE_FALLBACK)
    if settings["supportsMidConvoEffort"]:
        features += [MID_CONVERSATION_OUTPUT_CONFIG, THINKING_BINDING_CONTROLS]
    if native_tools:
        features.append(INLINE_TOOLS)
    if threads:
        features.append(MESSAGE_THREADS)
    return list(dict.fromkeys(features))


def headers(model: Model, options: Any, api_key: str | None, features: list[str],
            session_id: str | None) -> dict[str, str | None]:
    """The request headers: the credential's shape (see the module docstring), then the model's and the
    request's own (None removes one)."""
    out: dict[str, str | None] = {"accept": "application/json", "content-type": "application/json",
                                  "anthropic-version": ANTHROPIC_VERSION}
    settings = compat(model)
    if model.provider == quirks.COPILOT:
        out.update(identity_headers(model))
        out["anthropic-dangerous-direct-browser-access"] = "true"
        if api_key:
            out["authorization"] = f"Bearer {api_key}"
    elif is_subscription_token(model, api_key):
        out.update(quirks.claude_code_headers())
        out["authorization"] = f"Bearer {api_key}"
    else:
        out.update(identity_headers(model))
        out["anthropic-dangerous-direct-browser-access"] = "true"
        if session_id and settings["sendSessionAffinityHeaders"]:
            out["x-session-id" if settings["sessionAffinityFormat"] == "openrouter" else "x-session-affinity"] = session_id
        if api_key:
            out["x-api-key"] = api_key
    if features:
        out["anthropic-beta"] = ",".join(features)
    for source in (model.headers or {}, options.headers):
        for name, value in source.items():
            if name.lower() != "anthropic-beta":
                out[name] = value
    return out


def thinking_limits(model: Model, context: Context, options: Any, level: str) -> tuple[int, int]:
    """``(max_tokens, budget_tokens)`` for budget thinking: the budget on top of the output limit (never
    past the model's), fitted into the window again, always leaving room for the answer."""
    budgets = {**DEFAULT_THINKING_BUDGETS, **(options.extra.get("thinking_budgets") or {})}
    budget = int(budgets["high" if level in ("xhigh", "max") else level])
    base = options.max_tokens
    max_tokens = model.max_tokens if base is None else min(base + budget, model.max_tokens)
    if max_tokens <= budget:
        budget = min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))
    used = context_tokens(context.system_prompt, context.tools, list(context.messages))
    max_tokens = clamp_max_tokens(model.context_window or 0, max_tokens, used)
    return max_tokens, min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))


def build(model: Model, context: Context, options: Any, api_key: str | None, threads: bool = False,
          prefer_strict: bool = True) -> tuple[str, dict[str, str | None], dict[str, Any]]:
    """``(url, headers, body)`` of one streaming Messages request (``threads``: the server keeps threads
    for this session, so the threads beta goes with it; the ``thread`` field is added by the caller;
    ``prefer_strict`` False: tools that only prefer strict go without).

    Raises:
        ValueError: a tool requires a strict schema it cannot have.
    """
    settings = compat(model)
    subscription = is_subscription_token(model, api_key)
    level = options.reasoning if options.reasoning and options.reasoning != "off" else None
    thinking_on = level is not None
    mapping = model.thinking_level_map if isinstance(model.thinking_level_map, dict) else {}
    thinking_disabled = model.reasoning and not thinking_on and not ("off" in mapping and mapping["off"] is None)
    managed = settings["supportsMidConvoEffort"] and not thinking_disabled
    effort = effort_for(model, level) if level and settings["forceAdaptiveThinking"] else None
    marker = cache_marker(model, options)
    native_tools = (settings["supportsMidConvoSystemMessages"] and settings["supportsMidConvoToolChanges"]
                    and bool(context.tools))
    messages, levels = convert_messages(prepare_messages(context.messages, model), model, subscription=subscription,
                                        marker=marker, allow_empty_signature=settings["allowEmptySignature"])
    active = effort or "high"
    features = betas(model, context, options, subscription=subscription, thinking=thinking_on,
                     native_tools=native_tools, threads=threads)
    max_tokens = options.max_tokens or model.max_tokens
    budget = None
    if model.reasoning and level and not settings["forceAdaptiveThinking"]:
        max_tokens, budget = thinking_limits(model, context, options, level)
    body: dict[str, Any] = {"model": model.id,
                            "messages": with_effort_markers(messages, levels, active) if managed else messages,
                            "max_tokens": max_tokens, "stream": True}
    system: list[dict[str, Any]] = []
    if subscription:
        system.append({"type": "text", "text": quirks.CLAUDE_CODE_IDENTITY})
    if context.system_prompt:
        system.append({"type": "text", "text": context.system_prompt})
    if marker is not None:
        for block in system:
            block["cache_control"] = dict(marker)
    if system:
        body["system"] = system
    if (options.temperature is not None and not thinking_on and not settings["supportsMidConvoEffort"]
            and settings["supportsTemperature"]):
        body["temperature"] = options.temperature
    if context.tools:
        tool_marker = marker if settings["supportsCacheControlOnTools"] else None
        body["tools"] = convert_tools(list(context.tools), subscription=subscription, settings=settings,
                                      marker=tool_marker, prefer_off=not prefer_strict)
        if native_tools:
            body["tools"].append(dict(DEFERRED_TOOL_PLACEHOLDER))
    if thinking_disabled:
        body["thinking"] = {"type": "disabled"}
    elif managed:
        display = options.extra.get("thinking_display") or "summarized"
        body["thinking"] = {"type": "adaptive", "display": display,
                            "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
        body["output_config"] = {"effort": "low"}
    elif model.reasoning and thinking_on:
        display = options.extra.get("thinking_display") or "summarized"
        if settings["forceAdaptiveThinking"]:
            body["thinking"] = {"type": "adaptive", "display": display}
            if effort:
                body["output_config"] = {"effort": effort}
        else:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget or 1024, "display": display}
    if options.extra.get("tool_choice") is not None:
        choice = options.extra["tool_choice"]
        body["tool_choice"] = {"type": choice} if isinstance(choice, str) else choice
    if settings["allowedFallbackModels"]:
        body["fallbacks"] = [{"model": f.get("model")} for f in settings["allowedFallbackModels"]]
    base = model.base_url.rstrip("/")
    session = options.session_id if retention(options) != "none" else None
    return f"{base}/v1/messages?beta=true", headers(model, options, api_key, features, session), body


def provider_thinking_level(model: Model, options: Any) -> str | None:
    """The effort a managed-effort model answers at (recorded on the message, replayed as a marker)."""
    settings = compat(model)
    level = options.reasoning if options.reasoning and options.reasoning != "off" else None
    mapping = model.thinking_level_map if isinstance(model.thinking_level_map, dict) else {}
    disabled = model.reasoning and level is None and not ("off" in mapping and mapping["off"] is None)
    if not settings["supportsMidConvoEffort"] or disabled:
        return None
    return effort_for(model, level) if level and settings["forceAdaptiveThinking"] else "high"
