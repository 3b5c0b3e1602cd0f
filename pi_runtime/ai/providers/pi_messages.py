"""The ``pi-messages`` wire protocol: Pi's own API (the Radius gateway speaks it; any server may).

One ``POST <baseUrl>/messages`` of ``{model, context, options}``: the context as Pi holds it (its
transcript: the messages in their session-file shape, system messages with their prompt
sections and tool declarations included; a context built by hand goes as ``systemPrompt``,
``messages`` and ``tools``), the options Pi forwards (``temperature``, ``maxTokens``,
``reasoning``, ``cacheRetention``, ``sessionId``). The answer is SSE whose events are Pi's own
stream events without the partial message; the server's usage, cost and stop reason are taken
as sent. ``ACCEPTS_SYSTEM_MESSAGES`` asks the agent loop for the transcript's system messages.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

import msgspec

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..transcript import role, transcript
from ..types import Context, Model, TextContent, ThinkingContent, ToolCall, Usage
from ._http import StreamFormatError, failure_events, final_headers, keyed_request, post_sse
from ._identity import identity_headers

API = "pi-messages"
ACCEPTS_SYSTEM_MESSAGES = True
"""The agent loop keeps the transcript's system messages in the context for this protocol."""


def _wire(message: Any) -> Any:
    wire = message if isinstance(message, dict) else message.to_wire()
    cost = (wire.get("usage") or {}).get("cost") if wire.get("role") == "assistant" else None
    if isinstance(cost, dict) and any(type(v) is float and v.is_integer() for v in cost.values()):
        # JSON.stringify writes a whole number without ".0": the body is byte for byte Pi's.
        cost = {k: int(v) if type(v) is float and v.is_integer() else v for k, v in cost.items()}
        wire = {**wire, "usage": {**wire["usage"], "cost": cost}}
    return wire


def wire_context(context: Context) -> dict[str, Any]:
    """The context as Pi sends it: its transcript when it has system messages (an extension's forced
    prompt projected as Pi does), else Pi's SDK shape."""
    if any(role(m) == "system" for m in context.messages):
        return {"messages": [_wire(m) for m in transcript(context)]}
    messages = [_wire(m) for m in context.messages]
    out: dict[str, Any] = {}
    if context.system_prompt is not None:
        out["systemPrompt"] = context.system_prompt
    out["messages"] = messages
    if context.tools:
        out["tools"] = [t.to_wire() for t in context.tools]
    return out


def build_request(
    model: Model, context: Context, options: StreamOptions, api_key: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """URL, headers and body of one request, keys in Pi's order."""
    forwarded: dict[str, Any] = {}
    if options.temperature is not None:
        forwarded["temperature"] = options.temperature
    if options.max_tokens is not None:
        forwarded["maxTokens"] = options.max_tokens
    if options.reasoning and options.reasoning != "off":
        forwarded["reasoning"] = options.reasoning
    retention = options.extra.get("cache_retention") or (
        "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else None)
    if retention:
        forwarded["cacheRetention"] = retention
    if options.session_id:
        forwarded["sessionId"] = options.session_id
    body = {"model": model.id, "context": wire_context(context), "options": forwarded}
    headers: dict[str, str | None] = {**identity_headers(model), "authorization": f"Bearer {api_key}",
                                      "accept": "text/event-stream", "content-type": "application/json"}
    headers.update({k.lower(): v for k, v in options.headers.items()})
    url = f"{model.base_url.rstrip('/')}/messages"
    if options.extra.get("debug"):
        url += "?debug=1"
    return url, final_headers(headers), body


def error_text(status: int, body: bytes) -> str:
    """Pi's wording: ``429 Too Many Requests: <message> (<code>)``."""
    from http import HTTPStatus

    text = body.decode("utf-8", errors="replace").strip()
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        error = None
    message = error.get("message") if isinstance(error, dict) and isinstance(error.get("message"), str) else None
    code = error.get("code") if isinstance(error, dict) and isinstance(error.get("code"), str) else None
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    detail = message if message is not None else " ".join(text.split())
    return f"{status} {phrase}: {detail}{f' ({code})' if code else ''}"


class _EventReader:
    """Pi's serialized stream events -> builder calls, checking each ``contentIndex`` as Pi does."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.done = False

    def _index(self, event: dict[str, Any], kind: str) -> int:
        index = event.get("contentIndex")
        size = len(self.builder.message.content)
        valid = isinstance(index, int) and not isinstance(index, bool) and (
            index == size if kind.endswith("_start") else 0 <= index < size)
        if not valid:
            raise StreamFormatError(f"Invalid contentIndex {json.dumps(index)} in pi-messages {kind} event")
        return int(index)  # type: ignore[arg-type]

    def handle(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        kind = str(event.get("type") or "")
        if kind == "start":
            return b.start()
        if kind in ("done", "error"):
            return self._end(kind, event)
        if kind not in ("text_start", "text_delta", "text_end", "thinking_start", "thinking_delta", "thinking_end",
                        "toolcall_start", "toolcall_delta", "toolcall_end"):
            return []
        index = self._index(event, kind)
        if kind == "text_start":
            return b.text_start()[1]
        if kind == "thinking_start":
            return b.thinking_start()[1]
        if kind == "toolcall_start":
            return b.toolcall_start(str(event.get("id") or ""), str(event.get("toolName") or ""))[1]
        block = b.message.content[index]
        if kind == "text_delta" and isinstance(block, TextContent):
            return b.text_delta(index, str(event.get("delta") or ""))
        if kind == "thinking_delta" and isinstance(block, ThinkingContent):
            return b.thinking_delta(index, str(event.get("delta") or ""))
        if kind == "toolcall_delta" and isinstance(block, ToolCall):
            return b.toolcall_delta(index, str(event.get("delta") or ""))
        if kind == "text_end" and isinstance(block, TextContent):
            block.text, block.text_signature = str(event.get("content") or ""), event.get("contentSignature")
        elif kind == "thinking_end" and isinstance(block, ThinkingContent):
            block.thinking = str(event.get("content") or "")
            block.thinking_signature, block.redacted = event.get("contentSignature"), event.get("redacted")
        elif kind == "toolcall_end" and isinstance(block, ToolCall):
            call: dict[str, Any] = event["toolCall"] if isinstance(event.get("toolCall"), dict) else {}
            b.replace_tool_arguments(index, json.dumps(call.get("arguments") or {}))
            block.id, block.name = str(call.get("id") or block.id), str(call.get("name") or block.name)
        else:
            return []
        return b.end_block(index)

    def _end(self, kind: str, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        self.done = True
        message = b.message
        try:
            message.usage = msgspec.convert(event.get("usage") or {}, Usage, strict=False)
        except msgspec.ValidationError:
            pass  # the server's usage is not Pi's shape: the message keeps none
        message.response_id = event.get("responseId") or message.response_id
        if event.get("responseModel") is not None:
            message.response_model = event["responseModel"]
        reason = event.get("reason")
        if kind == "done":
            return b.finish(reason if reason in ("stop", "length", "toolUse") else None)
        return b.fail(str(event.get("errorMessage") or "An unknown error occurred"), aborted=reason == "aborted")


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from a pi-messages server. Never raises."""
    builder = MessageBuilder(model)
    prepared, problem = keyed_request(model, context, options, build_request)
    if prepared is None:
        for event in builder.fail(problem or "The request could not be built"):
            yield event
        return
    options, (url, headers, body) = prepared
    reader = _EventReader(builder)
    try:
        async for _name, data in post_sse(url, headers, body, options, error_text=error_text):
            data = data.strip()
            if not data or data == "[DONE]":
                continue
            try:
                event = json.loads(data)
            except ValueError:
                raise StreamFormatError(f"Malformed JSON in the pi-messages stream: {data[:200]!r}") from None
            if not isinstance(event, dict):
                continue
            for out in reader.handle(event):
                yield out
            if reader.done:
                return
        tail = builder.fail(f"{model.provider} stream ended without a terminal event")
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for out in tail:
        yield out

