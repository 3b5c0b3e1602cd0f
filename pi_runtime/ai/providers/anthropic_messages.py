"""The ``anthropic-messages`` wire protocol: Anthropic's Messages API with SSE streaming.

``build_request`` turns a context into the POST body (system prompt and last user turn
marked for prompt caching, thinking replayed with its signature, tool results grouped into
user turns); ``stream`` sends it and translates the event stream into ``MessageBuilder``
calls. Request failures never raise: they end the stream with an ``error``/``aborted``
message that keeps whatever arrived before.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..reported_cost import apply_reported_cost, is_openrouter
from ..transform import prepare_messages
from ..types import (
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
from . import subscription_quirks as quirks
from ._http import StreamFormatError, failure_events, keyed_request, post_sse

API = "anthropic-messages"
DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"

THINKING_BUDGETS: dict[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 32000,
}
"""Thinking level -> ``budget_tokens``."""
MIN_THINKING_BUDGET = 1024
"""The smallest budget the API accepts."""
MIN_ANSWER_TOKENS = 1024
"""Room kept for the visible answer when the budget has to shrink to fit ``max_tokens``."""

_BETA_INTERLEAVED_THINKING = "interleaved-thinking-2025-05-14"
_BETA_FINE_GRAINED_TOOLS = "fine-grained-tool-streaming-2025-05-14"
_EPHEMERAL = {"type": "ephemeral"}
_IMAGE_OMITTED = "(image omitted: this model does not accept images)"

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}


# --------------------------------------------------------------------------- request


def tool_use_id(call_id: str) -> str:
    """Anthropic only accepts ``[a-zA-Z0-9_-]{1,64}`` ids; ids from other providers are mapped."""
    clean = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]
    return clean or "tool_call"


def thinking_config(model: Model, options: StreamOptions) -> tuple[dict[str, Any] | None, int]:
    """The ``thinking`` parameter and ``max_tokens`` for a request.

    Args:
        model: The target model (thinking is only sent when ``model.reasoning``).
        options: ``reasoning`` picks the budget; ``max_tokens`` overrides the model's.

    Returns:
        ``(thinking, max_tokens)``; ``thinking`` is None when thinking is off. The budget
        always stays below ``max_tokens`` because the API counts it inside that limit.

    Raises:
        ValueError: an unknown thinking level.
    """
    max_tokens = options.max_tokens or model.max_tokens
    level = options.reasoning
    if not model.reasoning or level in (None, "off"):
        return None, max_tokens
    if level not in THINKING_BUDGETS:
        raise ValueError(
            f"Unknown thinking level {level!r} (expected off, {', '.join(THINKING_BUDGETS)})"
        )
    budget = THINKING_BUDGETS[level]
    if budget > max_tokens - MIN_ANSWER_TOKENS:
        budget = max(MIN_THINKING_BUDGET, max_tokens - MIN_ANSWER_TOKENS)
    if max_tokens <= budget:
        max_tokens = budget + MIN_ANSWER_TOKENS
    return {"type": "enabled", "budget_tokens": budget}, max_tokens


def _user_blocks(content: str | list[Any], model: Model) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, TextContent):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ImageContent):
            if "image" in model.input:
                blocks.append({
                    "type": "image",
                    "source": {"type": "base64", "media_type": part.mime_type, "data": part.data},
                })
            else:
                blocks.append({"type": "text", "text": _IMAGE_OMITTED})
    return blocks


def _assistant_blocks(message: AssistantMessage, tool_name: Any = None) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextContent):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ThinkingContent):
            if part.redacted and part.thinking_signature:
                blocks.append({"type": "redacted_thinking", "data": part.thinking_signature})
            elif part.thinking_signature:
                blocks.append({
                    "type": "thinking",
                    "thinking": part.thinking,
                    "signature": part.thinking_signature,
                })
            elif part.thinking.strip():
                # Unsigned thinking is rejected by the API; keep what it said as text.
                blocks.append({"type": "text", "text": part.thinking})
        elif isinstance(part, ToolCall):
            blocks.append({
                "type": "tool_use",
                "id": tool_use_id(part.id),
                "name": tool_name(part.name) if tool_name is not None else part.name,
                "input": part.arguments,
            })
    return blocks


def _tool_result_block(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id(message.tool_call_id)}
    content = _user_blocks(message.content, model)
    if content:
        block["content"] = content
    if message.is_error:
        block["is_error"] = True
    return block


def convert_messages(messages: list[Any], model: Model, tool_name: Any = None) -> list[dict[str, Any]]:
    """Prepared history -> Anthropic ``messages`` (consecutive tool results share a user turn).

    Args:
        messages: Output of ``prepare_messages`` (user, assistant and toolResult only).
        model: The target model (decides whether images are sent).
        tool_name: Renames the tools of past calls (Claude Code's spelling for a subscription).

    Returns:
        The ``messages`` array, the last user turn's last block marked for caching.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            blocks = _user_blocks(message.content, model)
            if blocks:
                out.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, tool_name)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            block = _tool_result_block(message, model)
            last = out[-1] if out else None
            if last and last["role"] == "user" and last["content"][-1].get("type") == "tool_result":
                last["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
    for entry in reversed(out):
        if entry["role"] == "user":
            # The cache breakpoint moves with the conversation: everything up to the newest
            # user turn is read back from the cache on the next request.
            entry["content"][-1]["cache_control"] = dict(_EPHEMERAL)
            break
    return out


def build_request(
    model: Model, context: Context, options: StreamOptions, api_key: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL, headers and JSON body of one streaming Messages request.

    Args:
        model: Target model; ``base_url`` like ``https://api.anthropic.com``.
        context: System prompt, history and tools.
        options: Token limit, temperature, reasoning level and extra headers.
        api_key: The resolved credential (an OAuth token is sent as a bearer token).

    Returns:
        ``(url, headers, body)``.

    Raises:
        ValueError: an unknown thinking level.
    """
    thinking, max_tokens = thinking_config(model, options)
    # A Claude Pro/Max token goes out as Claude Code (subscription_quirks.py); Copilot's does not.
    oauth = quirks.is_claude_subscription(model.provider, api_key)
    tool_name = quirks.to_claude_code if oauth else None
    system: list[dict[str, Any]] = []
    if oauth:
        system.append({"type": "text", "text": quirks.CLAUDE_CODE_IDENTITY, "cache_control": dict(_EPHEMERAL)})
    if context.system_prompt:
        system.append({"type": "text", "text": context.system_prompt})
    if system:
        system[-1]["cache_control"] = dict(_EPHEMERAL)
    body: dict[str, Any] = {
        "model": model.id,
        "max_tokens": max_tokens,
        "messages": convert_messages(prepare_messages(context.messages, model), model, tool_name),
        "stream": True,
    }
    if system:
        body["system"] = system
    if context.tools:
        body["tools"] = [
            {"name": tool_name(t.name) if tool_name else t.name, "description": t.description,
             "input_schema": t.parameters}
            for t in context.tools
        ]
    if thinking is not None:
        body["thinking"] = thinking
    elif options.temperature is not None:
        # With thinking on the API only accepts its default temperature.
        body["temperature"] = options.temperature

    betas = []
    if context.tools:
        betas.append(_BETA_FINE_GRAINED_TOOLS)
    if thinking is not None:
        betas.append(_BETA_INTERLEAVED_THINKING)
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "anthropic-version": ANTHROPIC_VERSION,
    }
    if oauth:
        headers["authorization"] = f"Bearer {api_key}"
        headers.update(quirks.claude_code_headers())
        betas[:0] = quirks.CLAUDE_CODE_BETAS
    elif model.provider == quirks.COPILOT:
        headers["authorization"] = f"Bearer {api_key}"  # the Copilot token
        headers["accept"] = "application/json"
        headers["anthropic-dangerous-direct-browser-access"] = "true"
    else:
        headers["x-api-key"] = api_key
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    headers.update(model.headers or {})
    headers.update(options.headers)
    base = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/v1/messages", headers, body


# --------------------------------------------------------------------------- response


class _StreamParser:
    """Turns decoded SSE events into builder calls; ``done`` once the message has ended."""

    def __init__(self, builder: MessageBuilder, tool_name: Any = None) -> None:
        self.builder = builder
        self.tool_name = tool_name
        """Maps a tool name the model used back to pi's (Claude Code's spelling, for a subscription)."""
        self.blocks: dict[int, int] = {}
        """Anthropic content index -> index in our message."""
        self.stop_reason: str | None = None
        self.done = False

    def handle(self, event: str | None, data: str) -> list[AssistantMessageEvent]:
        try:
            payload = json.loads(data)
        except ValueError:
            raise StreamFormatError(f"Malformed JSON in the Anthropic stream: {data[:200]!r}") from None
        if not isinstance(payload, dict):
            raise StreamFormatError(f"Unexpected data in the Anthropic stream: {data[:200]!r}")
        kind = payload.get("type") or event
        b = self.builder
        if kind == "message_start":
            message = payload.get("message") or {}
            b.message.response_id = message.get("id") or b.message.response_id
            b.message.response_model = message.get("model") or b.message.response_model
            self._usage(message.get("usage"), initial=True)
            return b.start()
        if kind == "content_block_start":
            return self._block_start(payload.get("index", 0), payload.get("content_block") or {})
        if kind == "content_block_delta":
            return self._block_delta(payload.get("index", 0), payload.get("delta") or {})
        if kind == "content_block_stop":
            index = self.blocks.pop(payload.get("index", 0), None)
            return b.end_block(index) if index is not None else []
        if kind == "message_delta":
            self.stop_reason = (payload.get("delta") or {}).get("stop_reason") or self.stop_reason
            b.set_raw_stop_reason(self.stop_reason)
            self._usage(payload.get("usage"))
            return []
        if kind == "message_stop":
            return self._finish()
        if kind == "error":
            error = payload.get("error") or {}
            self.done = True
            text = f"{error.get('type', 'error')}: {error.get('message', '')}".rstrip(": ")
            return b.fail(text)
        return []  # ping and event types this version does not use

    def _usage(self, usage: dict[str, Any] | None, initial: bool = False) -> None:
        """Usage from ``message_start`` (``initial``: missing counts are 0) or ``message_delta``
        (only the counts it carries), priced at once, as Pi does."""
        if not usage and not initial:
            return
        usage = usage or {}
        u = self.builder.message.usage
        fields = (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache_read"),
            ("cache_creation_input_tokens", "cache_write"),
        )
        for wire, attr in fields:
            value = usage.get(wire)
            if isinstance(value, int):
                setattr(u, attr, value)
            elif initial:
                setattr(u, attr, 0)
        one_hour = (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")
        if isinstance(one_hour, int):
            u.cache_write_1h = one_hour
        elif initial:
            u.cache_write_1h = 0
        thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
        if isinstance(thinking, int):
            u.reasoning = thinking  # part of output
        u.total_tokens = u.input + u.output + u.cache_read + u.cache_write
        self.builder.usage_updated()
        if not initial and is_openrouter(self.builder.model):
            apply_reported_cost(u, usage)

    def _block_start(self, index: int, block: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        kind = block.get("type")
        if kind == "text":
            ours, events = b.text_start()
            if block.get("text"):
                events += b.text_delta(ours, block["text"])
        elif kind == "thinking":
            ours, events = b.thinking_start(signature=block.get("signature") or None)
            if block.get("thinking"):
                events += b.thinking_delta(ours, block["thinking"])
        elif kind == "redacted_thinking":
            ours, events = b.thinking_start(signature=block.get("data") or "", redacted=True)
        elif kind == "tool_use":
            name = block.get("name", "")
            if self.tool_name is not None:
                name = self.tool_name(name)
            ours, events = b.toolcall_start(block.get("id") or f"toolu_{index}", name)
            if block.get("input"):
                b.message.content[ours].arguments = block["input"]  # type: ignore[union-attr]
        else:
            return []  # server tool blocks and the like are not part of Pi's message model
        self.blocks[index] = ours
        return events

    def _block_delta(self, index: int, delta: dict[str, Any]) -> list[AssistantMessageEvent]:
        ours = self.blocks.get(index)
        if ours is None:
            return []
        b = self.builder
        kind = delta.get("type")
        if kind == "text_delta":
            return b.text_delta(ours, delta.get("text", ""))
        if kind == "thinking_delta":
            return b.thinking_delta(ours, delta.get("thinking", ""))
        if kind == "signature_delta":
            b.set_thinking_signature(ours, delta.get("signature", ""))
            return []
        if kind == "input_json_delta":
            return b.toolcall_delta(ours, delta.get("partial_json", ""))
        return []

    def _finish(self) -> list[AssistantMessageEvent]:
        self.done = True
        raw = self.stop_reason
        if raw is None:
            return self.builder.finish(None)
        if raw in _STOP_REASONS:
            return self.builder.finish(_STOP_REASONS[raw])
        if raw == "refusal":
            return self.builder.fail("The model declined to answer (stop_reason: refusal)")
        return self.builder.fail(f"Unexpected stop reason from Anthropic: {raw}")


StreamParser = _StreamParser
"""The response parser, public for the routes that speak this format elsewhere (Vertex AI)."""


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from an Anthropic Messages endpoint.

    Args:
        model: A model whose ``api`` is ``anthropic-messages``.
        context: System prompt, history and tools.
        options: Credentials, limits, reasoning level, abort signal, HTTP client.

    Returns:
        An async iterator of events ending with exactly one ``done`` or ``error``.
    """
    builder = MessageBuilder(model)
    prepared, problem = keyed_request(model, context, options, build_request)
    if prepared is None:
        for event in builder.fail(problem or "The request could not be built"):
            yield event
        return
    options, (url, headers, body) = prepared
    subscription = quirks.is_claude_subscription(model.provider, options.api_key)
    parser = _StreamParser(builder, (lambda name: quirks.from_claude_code(name, context.tools)) if subscription else None)
    try:
        async with aclosing(post_sse(url, headers, body, options)) as sse:
            async for name, data in sse:
                for event in parser.handle(name, data):
                    yield event
                if parser.done:
                    return
        tail = builder.fail("The stream ended before message_stop (the response was cut short)")
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event
