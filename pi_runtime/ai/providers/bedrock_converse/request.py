"""The body of a Bedrock ``ConverseStream`` request, as Pi 1.6 builds it.

Pi sends this through the AWS SDK, which serialises the command input as JSON (binary fields
as base64); the shape here is that JSON. What depends on the model follows Pi's rules: Claude
models (by id, or by name for application inference profiles whose ARN hides the model) get
prompt-cache points, signed reasoning replay and Anthropic's thinking settings in
``additionalModelRequestFields``; OpenAI models on Bedrock get their reasoning effort there;
other models get neither.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from ...options import StreamOptions
from ...transform import prepare_messages
from ...types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ..anthropic_messages import tool_use_id

EMPTY_TEXT = "<empty>"
"""What Pi sends where Bedrock requires a text and there is none (blank text is rejected)."""
REDACTED_THINKING_TEXT = "[Reasoning redacted]"
BETA_INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14"
BETA_THINKING_BINDING = "thinking-binding-controls-2026-08-01"

BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 16384, "max": 16384}
"""Thinking budget per level for Claude models without adaptive thinking (Pi caps the top levels at high)."""
MIN_ANSWER_TOKENS = 1024
_GPT_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"}
_GPT_OSS_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}
_IMAGE_FORMATS = {"image/jpeg": "jpeg", "image/jpg": "jpeg", "image/png": "png", "image/gif": "gif",
                  "image/webp": "webp"}
_ADAPTIVE = ("opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "haiku-5", "fable-5")
_NATIVE_XHIGH = ("opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5")
"""Also the models that accept ``thinking.block_binding``."""
_CLAUDE_5 = ("fable-5", "opus-5", "sonnet-5", "haiku-5")
_SEPARATORS = re.compile(r"[\s_.:]+")


# --------------------------------------------------------------------------- model families


def _names(model: Model) -> list[str]:
    """The lower-cased id and name, each also with separators turned into dashes."""
    values = [model.id, model.name] if model.name else [model.id]
    out: list[str] = []
    for value in values:
        lower = value.lower()
        out += [lower, _SEPARATORS.sub("-", lower)]
    return out


def _any_names(model: Model, parts: tuple[str, ...]) -> bool:
    return any(part in name for name in _names(model) for part in parts)


def is_claude(model: Model) -> bool:
    """An Anthropic Claude model, by id (``anthropic.claude-…``) or, for inference profiles, by name."""
    model_id, name = model.id.lower(), (model.name or "").lower()
    return any(tag in model_id for tag in ("anthropic.claude", "anthropic/claude")) or "claude" in name


def adaptive_thinking(model: Model) -> bool:
    """Claude 4.6 and later think adaptively (an effort level, no token budget)."""
    return _any_names(model, _ADAPTIVE)


def prompt_caching(model: Model, env: Mapping[str, str]) -> bool:
    """Whether Pi adds cache points: Claude 3.5 Haiku, 3.7 Sonnet, 4.x and 5; any model with
    ``AWS_BEDROCK_FORCE_CACHE=1`` when its id and name do not say Claude (an inference profile)."""
    names = _names(model)
    if not any("claude" in name for name in names):
        return env.get("AWS_BEDROCK_FORCE_CACHE") == "1"
    return any(
        any(part in name for part in _CLAUDE_5) or "-4-" in name or "claude-3-7-sonnet" in name
        or "claude-3-5-haiku" in name
        for name in names
    )


def _govcloud(model: Model, region: str | None) -> bool:
    model_id = model.id.lower()
    return bool(region and region.lower().startswith("us-gov-")) or model_id.startswith(("us-gov.", "arn:aws-us-gov:"))


def _level_map(model: Model) -> Mapping[str, Any]:
    levels = model.thinking_level_map
    return levels if isinstance(levels, dict) else {}


# --------------------------------------------------------------------------- thinking


def thinking_level(options: StreamOptions, model: Model) -> str | None:
    """The requested level, or None when thinking is off or the model does not reason."""
    level = options.reasoning
    return level if model.reasoning and level not in (None, "off") else None


def _effort(model: Model, level: str) -> str:
    if level == "xhigh" and _any_names(model, _NATIVE_XHIGH):
        return "xhigh"
    mapped = _level_map(model).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def token_limits(model: Model, options: StreamOptions) -> tuple[int, int | None]:
    """``(maxTokens, thinking budget)``; the budget is None unless a budget-based Claude model thinks.

    As Pi: the budget is added on top of a caller's limit (never past the model's), and always
    leaves ``MIN_ANSWER_TOKENS`` for the answer.
    """
    base = options.max_tokens or model.max_tokens
    level = thinking_level(options, model)
    if level is None or not is_claude(model) or adaptive_thinking(model):
        return base, None
    budget = BUDGETS.get(level, BUDGETS["high"])
    max_tokens = model.max_tokens if not options.max_tokens else min(base + budget, model.max_tokens)
    if max_tokens <= budget:
        budget = min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))
    return max_tokens, min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))


def model_request_fields(
    model: Model, options: StreamOptions, region: str | None, budget: int | None
) -> dict[str, Any] | None:
    """``additionalModelRequestFields``: the thinking settings Bedrock passes to the model."""
    level = thinking_level(options, model)
    if level is None:
        return None
    if is_claude(model):
        gov = _govcloud(model, region)  # GovCloud rejects thinking.display and block_binding
        fields: dict[str, Any]
        if adaptive_thinking(model):
            binding = not gov and _any_names(model, _NATIVE_XHIGH)
            thinking: dict[str, Any] = {"type": "adaptive"}
            if not gov:
                thinking["display"] = "summarized"
            if binding:
                thinking["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
            fields = {"thinking": thinking, "output_config": {"effort": _effort(model, level)}}
            if binding:
                fields["anthropic_beta"] = [BETA_THINKING_BINDING]
            return fields
        thinking = {"type": "enabled", "budget_tokens": budget if budget is not None else BUDGETS[level]}
        if not gov:
            thinking["display"] = "summarized"
        return {"thinking": thinking, "anthropic_beta": [BETA_INTERLEAVED_THINKING]}
    if _any_names(model, ("gpt-oss",)):
        return {"reasoning_effort": _GPT_OSS_EFFORT.get(level, "high")}
    if _any_names(model, ("gpt-",)):
        mapped = _level_map(model).get(level)
        return {"reasoning": {"effort": mapped if isinstance(mapped, str) else _GPT_EFFORT.get(level, "high")}}
    return None


# --------------------------------------------------------------------------- messages


def _text_block(text: str) -> dict[str, Any] | None:
    return {"text": text} if text.strip() else None


def _image_block(image: ImageContent) -> dict[str, Any]:
    fmt = _IMAGE_FORMATS.get(image.mime_type)
    if fmt is None:
        raise ValueError(f"Bedrock does not take images of type {image.mime_type!r} (jpeg, png, gif and webp only)")
    return {"image": {"source": {"bytes": image.data}, "format": fmt}}


def _user_content(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [_text_block(content) or {"text": EMPTY_TEXT}]
    blocks: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, TextContent):
            block = _text_block(part.text)
            if block:
                blocks.append(block)
        elif isinstance(part, ImageContent):
            blocks.append(_image_block(part))
    return blocks or [{"text": EMPTY_TEXT}]


def _without_empty_keys(value: Any) -> Any:
    """Bedrock's document type rejects an object key that is the empty string."""
    if isinstance(value, list):
        return [_without_empty_keys(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_empty_keys(v) for k, v in value.items() if k}
    return value


def _redacted_payload(signature: str | None) -> str | None:
    """The stored base64 of encrypted reasoning, if it is base64 at all (else the block is dropped)."""
    if not signature:
        return None
    try:
        raw = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return None
    return base64.b64encode(raw).decode() if raw else None


def _assistant_content(message: AssistantMessage, claude: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextContent):
            block = _text_block(part.text)
            if block:
                blocks.append(block)
        elif isinstance(part, ToolCall):
            blocks.append({"toolUse": {"toolUseId": tool_use_id(part.id), "name": part.name,
                                       "input": _without_empty_keys(part.arguments)}})
        elif isinstance(part, ThinkingContent):
            if part.redacted:
                payload = _redacted_payload(part.thinking_signature)
                if payload:
                    blocks.append({"reasoningContent": {"redactedContent": payload}})
                continue
            if not part.thinking.strip():
                continue
            if not claude:
                # Only Claude takes a signature here; other models reject the field.
                blocks.append({"reasoningContent": {"reasoningText": {"text": part.thinking}}})
            elif part.thinking_signature and part.thinking_signature.strip():
                blocks.append({"reasoningContent": {"reasoningText": {
                    "text": part.thinking, "signature": part.thinking_signature}}})
            else:
                blocks.append({"text": part.thinking})  # unsigned reasoning is refused on replay
    return blocks


def _result_content(content: list[Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, ImageContent):
            blocks.append(_image_block(part))
        elif isinstance(part, TextContent):
            block = _text_block(part.text)
            if block:
                blocks.append(block)
    return blocks or [{"text": EMPTY_TEXT}]


_ERROR_IMAGE_PLACEHOLDER = "(image attached after the tool results)"


def _split_error_images(message: ToolResultMessage) -> tuple[list[Any], list[dict[str, Any]]]:
    """Claude refuses images inside an error result: they follow the turn's results, captioned."""
    images = [p for p in message.content if isinstance(p, ImageContent)]
    if not message.is_error or not images:
        return list(message.content), []
    kept: list[Any] = []
    previous_placeholder = False
    for part in message.content:
        if isinstance(part, ImageContent):
            if not previous_placeholder:
                kept.append(TextContent(text=_ERROR_IMAGE_PLACEHOLDER))
            previous_placeholder = True
            continue
        kept.append(part)
        previous_placeholder = isinstance(part, TextContent) and part.text == _ERROR_IMAGE_PLACEHOLDER
    caption = f"Images from the error result of tool call {message.tool_call_id} ({message.tool_name}):"
    return kept, [{"text": caption}, *(_image_block(i) for i in images)]


def convert_messages(messages: list[Any], model: Model) -> list[dict[str, Any]]:
    """Prepared history -> Converse ``messages`` (one user turn holds consecutive tool results)."""
    claude = is_claude(model)
    out: list[dict[str, Any]] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": _user_content(message.content)})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_content(message, claude)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            results: list[dict[str, Any]] = []
            trailing: list[dict[str, Any]] = []
            group = [message]
            while index < len(messages) and isinstance(messages[index], ToolResultMessage):
                group.append(messages[index])
                index += 1
            for result in group:
                content, images = _split_error_images(result) if claude else (list(result.content), [])
                results.append({"toolResult": {
                    "toolUseId": tool_use_id(result.tool_call_id),
                    "content": _result_content(content),
                    "status": "error" if result.is_error else "success",
                }})
                trailing += images
            out.append({"role": "user", "content": results + trailing})
    return out


def _cache_point(long: bool) -> dict[str, Any]:
    point: dict[str, Any] = {"type": "default"}
    if long:
        point["ttl"] = "1h"
    return {"cachePoint": point}


def cache_retention(options: StreamOptions, env: Mapping[str, str]) -> str:
    """``short`` (Pi's default), ``long`` (one-hour cache points) or ``none``."""
    chosen = options.extra.get("cacheRetention")
    if chosen in ("none", "short", "long"):
        return str(chosen)
    return "long" if env.get("PI_CACHE_RETENTION") == "long" else "short"


def build_body(
    model: Model, context: Context, options: StreamOptions, *, region: str | None, env: Mapping[str, str]
) -> dict[str, Any]:
    """The ConverseStream command input (without ``modelId``, which goes in the path).

    Raises:
        ValueError: An image of a type Bedrock does not take.
    """
    max_tokens, budget = token_limits(model, options)
    retention = cache_retention(options, env)
    caching = retention != "none" and prompt_caching(model, env)
    messages = convert_messages(prepare_messages(context.messages, model), model)
    if caching and messages and messages[-1]["role"] == "user":
        messages[-1]["content"].append(_cache_point(retention == "long"))
    body: dict[str, Any] = {"messages": messages}
    if context.system_prompt:
        system: list[dict[str, Any]] = [{"text": context.system_prompt}]
        if caching:
            system.append(_cache_point(retention == "long"))
        body["system"] = system
    inference: dict[str, Any] = {"maxTokens": max_tokens}
    if options.temperature is not None:
        inference["temperature"] = options.temperature
    body["inferenceConfig"] = inference
    if context.tools:
        body["toolConfig"] = {"tools": [
            {"toolSpec": {"name": t.name, "description": t.description, "inputSchema": {"json": t.parameters}}}
            for t in context.tools
        ]}
    fields = model_request_fields(model, options, region, budget)
    if fields is not None:
        body["additionalModelRequestFields"] = fields
    return body
