"""The ``mistral-conversations`` wire protocol: Mistral's native chat endpoint, as Pi 1.6 speaks it.

``POST <baseUrl>/v1/chat/completions`` with ``stream: true``; the reply is SSE whose chunks
look like OpenAI's but carry Mistral's content: ``delta.content`` is a string or a list of
``text`` and ``thinking`` chunks (Magistral's reasoning). What differs from OpenAI's dialect:

- tool-call ids are exactly nine letters or digits: ids from other providers are mapped (Pi's
  short hash, collisions resolved), and the tool results follow the mapping;
- thinking is asked for with ``prompt_mode: "reasoning"``, or ``reasoning_effort`` for models
  whose ``thinkingLevelMap`` names the efforts, and replayed as ``thinking`` chunks;
- the session id is the prompt-cache key and the ``x-affinity`` header;
- cached prompt tokens come under one of several names; an HTTP error keeps its whole body
  (``Mistral API error (429): {...}``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from ... import deep_json
from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..strict_schema import strict_choice, tool_parameters
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
from ._http import OPENED, StreamFormatError, failure_events, final_headers, keyed_request, post_sse
from ._identity import identity_headers
from ._ids import short_hash
from ._image_placeholders import images_as_placeholders
from ._openai_common import model_extra, usage_int

API = "mistral-conversations"
TOOL_CALL_ID_LENGTH = 9
ERROR_BODY_LIMIT = 4000
"""Characters of an error body kept in the message (Pi's cap)."""
_NO_IMAGES = "(image omitted: model does not support images)"
_NO_TOOL_IMAGES = "(tool image omitted: model does not support images)"

_STOP_REASONS = {"stop": "stop", "length": "length", "model_length": "length", "tool_calls": "toolUse"}


# --------------------------------------------------------------------------- tool-call ids


def _derived_id(call_id: str, attempt: int) -> str:
    letters = "".join(c for c in call_id if c.isascii() and c.isalnum())
    if attempt == 0 and len(letters) == TOOL_CALL_ID_LENGTH:
        return letters
    seed = letters or call_id
    if attempt:
        seed = f"{seed}:{attempt}"
    return "".join(c for c in short_hash(seed) if c.isalnum())[:TOOL_CALL_ID_LENGTH]


class ToolCallIds:
    """Maps foreign tool-call ids to Mistral's nine characters, one id per original, no collisions."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self._owners: dict[str, str] = {}

    def __call__(self, call_id: str) -> str:
        known = self._ids.get(call_id)
        if known is not None:
            return known
        attempt = 0
        while True:
            candidate = _derived_id(call_id, attempt)
            owner = self._owners.get(candidate)
            if owner is None or owner == call_id:
                self._ids[call_id] = candidate
                self._owners[candidate] = call_id
                return candidate
            attempt += 1


# --------------------------------------------------------------------------- request


def _same_model(message: AssistantMessage, model: Model) -> bool:
    return (message.provider, message.api, message.model) == (model.provider, model.api, model.id)


def _image_chunk(image: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": f"data:{image.mime_type};base64,{image.data}"}


def _user_message(message: UserMessage, images_ok: bool) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    content = []
    for block in (message.content if images_ok else images_as_placeholders(message.content, _NO_IMAGES)):
        if isinstance(block, TextContent):
            content.append({"type": "text", "text": block.text})
        elif images_ok:
            content.append(_image_chunk(block))
    return {"role": "user", "content": content} if content else None


def _assistant_message(message: AssistantMessage, ids: Callable[[str], str] | None) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent):
            if block.thinking.strip():
                parts.append({"type": "thinking", "thinking": [{"type": "text", "text": block.thinking}]})
        elif isinstance(block, ToolCall):
            calls.append({
                "id": ids(block.id) if ids else block.id, "type": "function",
                "function": {"name": block.name, "arguments": json.dumps(block.arguments or {}, separators=(",", ":"),
                                                                         ensure_ascii=False)},
                "index": 0,
            })
    if not parts and not calls:
        return None
    entry: dict[str, Any] = {"role": "assistant", "prefix": False}
    if parts:
        entry["content"] = parts
    if calls:
        entry["tool_calls"] = calls
    return entry


def _tool_result_text(text: str, has_images: bool, images_ok: bool, is_error: bool) -> str:
    prefix = "[tool error] " if is_error else ""
    trimmed = text.strip()
    if trimmed:
        suffix = "\n[tool image omitted: model does not support images]" if has_images and not images_ok else ""
        return f"{prefix}{trimmed}{suffix}"
    if has_images:
        return prefix + ("(see attached image)" if images_ok else _NO_IMAGES)
    return prefix + "(no tool output)"


def _tool_message(message: ToolResultMessage, images_ok: bool, call_id: str) -> dict[str, Any]:
    content = message.content if images_ok else images_as_placeholders(message.content, _NO_TOOL_IMAGES)
    text = "\n".join(b.text for b in content if isinstance(b, TextContent))
    images = [b for b in content if isinstance(b, ImageContent)]
    parts: list[dict[str, Any]] = [{"type": "text", "text": _tool_result_text(text, bool(images), images_ok,
                                                                              message.is_error)}]
    if images_ok:
        parts += [_image_chunk(i) for i in images]
    return {"role": "tool", "name": message.tool_name, "content": parts, "tool_call_id": call_id}


def convert_messages(model: Model, context: Context) -> list[dict[str, Any]]:
    """History as Mistral chat messages (system prompt first, foreign tool-call ids mapped)."""
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        out.append({"role": "system", "content": context.system_prompt})
    images_ok = "image" in model.input
    ids = ToolCallIds()
    renamed: dict[str, str] = {}
    for message in prepare_messages(context.messages, model):
        if isinstance(message, UserMessage):
            entry = _user_message(message, images_ok)
            if entry is not None:
                out.append(entry)
        elif isinstance(message, AssistantMessage):
            foreign = not _same_model(message, model)
            if foreign:
                for call in message.tool_calls():
                    renamed[call.id] = ids(call.id)
            entry = _assistant_message(message, ids if foreign else None)
            if entry is not None:
                out.append(entry)
        elif isinstance(message, ToolResultMessage):
            call_id = renamed.get(message.tool_call_id, message.tool_call_id)
            out.append(_tool_message(message, images_ok, call_id))
    return out


def _thinking_fields(model: Model, options: StreamOptions) -> dict[str, str]:
    """``reasoning_effort`` for models with a ``thinkingLevelMap``, else ``prompt_mode``."""
    level = options.reasoning if options.reasoning and options.reasoning != "off" else None
    if not model.reasoning:
        return {}
    mapping = model_extra(model, "thinkingLevelMap")
    if isinstance(mapping, dict):
        effort = (mapping.get(level) or "high") if level else mapping.get("off")
        return {"reasoning_effort": str(effort)} if effort else {}
    return {"prompt_mode": "reasoning"} if level else {}


def build_request(
    model: Model, context: Context, options: StreamOptions, api_key: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """URL, headers and body of one streaming chat request, with Pi's fields in Pi's order.

    Raises:
        ValueError: a tool requires a strict schema Mistral cannot take.
    """
    compat = model.compat or {}
    body: dict[str, Any] = {"model": model.id, "stream": True, "messages": convert_messages(model, context)}
    if context.tools:
        supports_strict = bool(compat.get("supportsStrictMode", False))
        tools = []
        for tool in context.tools:
            strict = strict_choice(tool, supports_strict)
            tools.append({"type": "function", "function": {
                "name": tool.name, "description": tool.description,
                "parameters": tool_parameters(tool, strict), "strict": bool(strict)}})
        body["tools"] = tools
    if options.temperature is not None:
        body["temperature"] = options.temperature
    body["max_tokens"] = options.max_tokens or model.max_tokens
    body.update(_thinking_fields(model, options))
    if options.session_id:
        body["prompt_cache_key"] = options.session_id
    headers: dict[str, str | None] = {**identity_headers(model), "accept": "text/event-stream",
                                      "authorization": f"Bearer {api_key}", "content-type": "application/json"}
    for source in (model.headers, options.headers):
        headers.update({k.lower(): v for k, v in (source or {}).items()})
    if options.session_id and "x-affinity" not in headers:
        headers["x-affinity"] = options.session_id
    return f"{model.base_url.rstrip('/')}/v1/chat/completions", final_headers(headers), body


def error_text(status: int, body: bytes) -> str:
    """Pi's wording: ``Mistral API error (429): <the body as sent>``, cut at 4000 characters."""
    from http import HTTPStatus

    text = body.decode("utf-8", errors="replace").strip()
    if len(text) > ERROR_BODY_LIMIT:
        text = f"{text[:ERROR_BODY_LIMIT]}... [truncated {len(text) - ERROR_BODY_LIMIT} chars]"
    if not text:
        try:
            text = HTTPStatus(status).phrase
        except ValueError:
            text = f"Request failed with status {status}"
    return f"Mistral API error ({status}): {text}"


# --------------------------------------------------------------------------- response


def _cached_tokens(usage: dict[str, Any], prompt: int) -> int:
    for outer, inner in (("promptTokensDetails", "cachedTokens"), ("prompt_tokens_details", "cached_tokens"),
                         ("promptTokenDetails", "cachedTokens"), ("prompt_token_details", "cached_tokens")):
        details = usage.get(outer)
        if isinstance(details, dict) and inner in details:
            return min(prompt, max(0, usage_int(details, inner)))
    return min(prompt, max(0, usage_int(usage, "numCachedTokens", "num_cached_tokens")))


class _ChunkReader:
    """Turns Mistral chunks into builder calls: one open text or thinking block at a time, tool
    calls keyed by their index and ended together when the stream ends (as Pi does)."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.current: tuple[str, int] | None = None
        self.calls: dict[Any, int] = {}
        self.stop: str | None = None
        self.error: str | None = None

    def _close_current(self) -> list[AssistantMessageEvent]:
        if self.current is None:
            return []
        index = self.current[1]
        self.current = None
        return self.builder.end_block(index)

    def _append(self, kind: str, delta: str) -> list[AssistantMessageEvent]:
        if not delta:
            return []  # empty deltas around thinking and tool calls must not split a block
        events: list[AssistantMessageEvent] = []
        if self.current is None or self.current[0] != kind:
            events += self._close_current()
            index, opened = (self.builder.text_start() if kind == "text" else self.builder.thinking_start())
            events += opened
            self.current = (kind, index)
        index = self.current[1]
        add = self.builder.text_delta if kind == "text" else self.builder.thinking_delta
        return events + add(index, delta)

    def chunk(self, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        if not b.message.response_id and data.get("id"):
            b.message.response_id = str(data["id"])
        usage = data.get("usage")
        if isinstance(usage, dict):
            prompt = usage_int(usage, "prompt_tokens")
            cached = _cached_tokens(usage, prompt)
            u = b.message.usage
            u.input, u.output, u.cache_read, u.cache_write = max(0, prompt - cached), usage_int(
                usage, "completion_tokens"), cached, 0
            u.total_tokens = usage_int(usage, "total_tokens") or u.input + u.output + u.cache_read
            b.usage_updated()
        choices = data["choices"]
        if not choices or not isinstance(choices[0], dict):
            return []
        choice = choices[0]
        if choice.get("finish_reason"):
            self._finish_reason(str(choice["finish_reason"]))
        delta = choice.get("delta") or {}
        events: list[AssistantMessageEvent] = []
        content = delta.get("content")
        if content is not None:
            for item in [content] if isinstance(content, str) else content:
                if isinstance(item, str):
                    events += self._append("text", item)
                elif isinstance(item, dict) and item.get("type") == "thinking":
                    parts = item.get("thinking") or []
                    events += self._append("thinking", "".join(p.get("text") or "" for p in parts if isinstance(p, dict)))
                elif isinstance(item, dict) and item.get("type") == "text":
                    events += self._append("text", item.get("text") or "")
        for call in delta.get("tool_calls") or []:
            events += self._tool_call(call)
        return events

    def _finish_reason(self, reason: str) -> None:
        self.builder.set_raw_stop_reason(reason)
        self.stop = _STOP_REASONS.get(reason, "error")
        if reason == "error":
            self.error = "Provider stopped with: error (server error)"  # "server error": retried
        elif self.stop == "error":
            self.error = f"Provider stopped with: {reason}"
        else:
            self.error = None

    def _tool_call(self, call: dict[str, Any]) -> list[AssistantMessageEvent]:
        events = self._close_current()
        function = call.get("function") or {}
        position = call.get("index")
        call_id = call.get("id")
        if not call_id or call_id == "null":
            call_id = _derived_id(f"toolcall:{position if position is not None else 0}", 0)
        key = position if position is not None else call_id
        index = self.calls.get(key)
        if index is None:
            index, opened = self.builder.toolcall_start(str(call_id), str(function.get("name") or ""))
            self.calls[key] = index
            events += opened
        arguments = function.get("arguments")
        delta = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, separators=(",", ":"))
        return events + self.builder.toolcall_delta(index, delta)

    def end(self) -> list[AssistantMessageEvent]:
        events = self._close_current()
        for index in self.calls.values():
            events += self.builder.end_block(index)
        if self.stop is None:
            return events + self.builder.fail("Mistral stream ended without a finish reason")
        if self.stop == "error":
            return events + self.builder.fail(self.error or "An unknown error occurred")
        return events + self.builder.finish(self.stop)


def _parse(data: str) -> dict[str, Any]:
    try:
        parsed = deep_json.loads(data)
    except ValueError:
        raise StreamFormatError(f"Malformed JSON in the Mistral stream: {data[:200]!r}") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("choices"), list):
        raise StreamFormatError("Invalid Mistral streaming event")
    return parsed


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from Mistral's chat endpoint. Never raises."""
    builder = MessageBuilder(model)
    prepared, problem = keyed_request(model, context, options, build_request)
    if prepared is None:
        for event in builder.fail(problem or "The request could not be built"):
            yield event
        return
    options, (url, headers, body) = prepared
    reader = _ChunkReader(builder)
    try:
        async for item in post_sse(url, headers, body, options, announce_open=True, error_text=error_text):
            if item is OPENED:
                for event in builder.start():
                    yield event
                continue
            data = item[1].strip()
            if data == "[DONE]":
                break
            if not data:
                continue
            for event in reader.chunk(_parse(data)):
                yield event
        tail = reader.end()
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event
