"""Reading a ConverseStream response: the AWS event-stream framing, then the events, as Pi reads them.

The body is a sequence of binary frames (``application/vnd.amazon.eventstream``): a prelude with
lengths and a CRC, typed headers (``:message-type``, ``:event-type``, ``:exception-type``), a
JSON payload and a CRC over the whole frame. botocore's ``EventStreamBuffer`` checks and splits
them; ``FrameDecoder`` adapts it to the provider plumbing (``post_stream``). ``StreamParser``
turns the events into ``MessageBuilder`` calls; an exception sent inside the stream (throttling,
validation, ...) and an HTTP error status both become the one-line messages Pi writes
("Throttling error: ...").
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ....text_safety import terminal_safe
from ...builder import MessageBuilder
from ...events import AssistantMessageEvent
from ...types import ThinkingContent
from .._http import ProviderError, StreamFormatError
from .request import REDACTED_THINKING_TEXT

ERROR_PREFIXES = {
    "InternalServerException": "Internal server error",
    "ModelStreamErrorException": "Model stream error",
    "ValidationException": "Validation error",
    "ThrottlingException": "Throttling error",
    "ServiceUnavailableException": "Service unavailable",
}
"""Pi's words for Bedrock's exceptions; the retry logic matches on them ("server error", "throttl")."""
DATA_RETENTION_DOCS = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}


@dataclass(frozen=True)
class Frame:
    """One decoded message: ``kind`` is ``event``, ``exception`` or ``error``; ``name`` the event or
    exception type; ``payload`` the JSON body."""

    kind: str
    name: str
    payload: dict[str, Any] = field(default_factory=dict)


def as_item(frame: Frame) -> dict[str, Any]:
    """A frame as extensions' ``on_stream_event`` sees it: ``{eventType: payload}``, like the SDK's items."""
    return {frame.name: frame.payload}


class FrameDecoder:
    """Bytes in, ``Frame`` objects out (botocore checks the lengths and both CRCs).

    Raises ``StreamFormatError`` for a frame that fails its checks, and from ``flush`` when the
    body ended inside a frame.
    """

    def __init__(self) -> None:
        from botocore.eventstream import EventStreamBuffer

        self._buffer = EventStreamBuffer()
        self._fed = 0
        self._taken = 0

    def feed(self, chunk: bytes) -> list[Frame]:
        from botocore.eventstream import ParserError

        self._buffer.add_data(chunk)
        self._fed += len(chunk)
        frames: list[Frame] = []
        try:
            for message in self._buffer:
                self._taken += message.prelude.total_length
                frames.append(_frame(message.headers, message.payload))
        except ParserError as exc:
            raise StreamFormatError(f"Malformed frame in the Bedrock event stream: {exc}") from None
        return frames

    def flush(self) -> list[Frame]:
        left = self._fed - self._taken
        if left:
            raise StreamFormatError(f"The Bedrock event stream was cut short inside a frame ({left} bytes left over)")
        return []


def _frame(headers: Mapping[str, Any], payload: bytes) -> Frame:
    kind = str(headers.get(":message-type") or "event")
    if kind == "error":
        code = str(headers.get(":error-code") or "UnknownError")
        return Frame("error", code, {"message": str(headers.get(":error-message") or "")})
    name = str(headers.get(":exception-type" if kind == "exception" else ":event-type") or "")
    try:
        data = json.loads(payload) if payload else {}
    except ValueError:
        raise StreamFormatError(f"Malformed JSON in a Bedrock {name or kind} event: {payload[:200]!r}") from None
    if not isinstance(data, dict):
        raise StreamFormatError(f"Unexpected payload in a Bedrock {name or kind} event: {payload[:200]!r}")
    return Frame(kind, name, data)


def exception_message(name: str, message: str) -> str:
    """``"Throttling error: ..."``: Pi's prefix for a known exception, else the exception's name."""
    name = name[:1].upper() + name[1:]
    hint = f" See {DATA_RETENTION_DOCS} for supported data retention modes." if "data retention mode" in message.lower() else ""
    return f"{ERROR_PREFIXES.get(name, name)}: {message}{hint}"


def error_text(status: int, headers: Mapping[str, str], body: bytes) -> str:
    """An HTTP error from Bedrock (or from a proxy in front of it) as one line."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        data = None
    name = headers.get("x-amzn-errortype", "").split(":", 1)[0].strip()
    message = ""
    if isinstance(data, dict):
        name = name or str(data.get("__type") or data.get("code") or "").rpartition("#")[2]
        message = str(data.get("message") or data.get("Message") or "")
    if name:
        return terminal_safe(exception_message(name, message or text[:500] or f"HTTP {status}"))
    return terminal_safe(f"{status} {text[:500]}".strip())


class StreamParser:
    """Turns frames into builder calls; the stream's end is decided by ``finish()``."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.blocks: dict[int, int] = {}
        """Bedrock content block index -> index in our message."""
        self.redacted: dict[int, list[bytes]] = {}
        """Encrypted reasoning chunks per thinking block, encoded into its signature when it stops."""
        self.stop_reason: str | None = None
        self.stop_error: str | None = None

    def handle(self, frame: Frame) -> list[AssistantMessageEvent]:
        if frame.kind == "exception":
            raise ProviderError(exception_message(frame.name, str(frame.payload.get("message") or "")))
        if frame.kind == "error":
            raise ProviderError(exception_message(frame.name, str(frame.payload.get("message") or "")))
        data, b = frame.payload, self.builder
        if frame.name == "messageStart":
            if data.get("role", "assistant") != "assistant":
                raise ProviderError("Unexpected assistant message start but got user message start instead")
            return b.start()
        if frame.name == "contentBlockStart":
            tool = (data.get("start") or {}).get("toolUse")
            if not tool:
                return []
            ours, events = b.toolcall_start(tool.get("toolUseId") or "", tool.get("name") or "")
            self.blocks[int(data.get("contentBlockIndex") or 0)] = ours
            return events
        if frame.name == "contentBlockDelta":
            return self._delta(int(data.get("contentBlockIndex") or 0), data.get("delta") or {})
        if frame.name == "contentBlockStop":
            return self._stop(int(data.get("contentBlockIndex") or 0))
        if frame.name == "messageStop":
            raw = data.get("stopReason")
            b.set_raw_stop_reason(raw)
            self.stop_reason = _STOP_REASONS.get(raw, "error") if raw else "error"
            if self.stop_reason == "error":
                self.stop_error = f"Provider stopped with: {raw}" if raw else "An unknown error occurred"
            return []
        if frame.name == "metadata":
            self._usage(data.get("usage"))
        return []

    def _delta(self, index: int, delta: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        ours = self.blocks.get(index)
        if "text" in delta:
            events: list[AssistantMessageEvent] = []
            if ours is None:
                ours, events = b.text_start()
                self.blocks[index] = ours
            if b.message.content[ours].type == "text":
                events += b.text_delta(ours, str(delta["text"]))
            return events
        if "toolUse" in delta:
            if ours is None or b.message.content[ours].type != "toolCall":
                return []
            return b.toolcall_delta(ours, str((delta.get("toolUse") or {}).get("input") or ""))
        reasoning = delta.get("reasoningContent")
        if not reasoning:
            return []
        events = []
        if ours is None:
            ours, events = b.thinking_start(signature="")
            self.blocks[index] = ours
        block = b.message.content[ours]
        if not isinstance(block, ThinkingContent):
            return events
        if reasoning.get("text"):
            events += b.thinking_delta(ours, str(reasoning["text"]))
        if reasoning.get("signature") and not block.redacted:
            b.set_thinking_signature(ours, str(reasoning["signature"]))
        chunk = reasoning.get("redactedContent")
        if chunk:
            # Encrypted reasoning (non-Anthropic models): opaque, kept whole to be replayed.
            if not block.redacted:
                block.redacted = True
                block.thinking_signature = ""
                events += b.thinking_delta(ours, REDACTED_THINKING_TEXT)
            try:
                self.redacted.setdefault(ours, []).append(base64.b64decode(chunk))
            except (binascii.Error, ValueError, TypeError):
                raise StreamFormatError("Bedrock sent redacted reasoning that is not base64") from None
        return events

    def _stop(self, index: int) -> list[AssistantMessageEvent]:
        ours = self.blocks.pop(index, None)
        if ours is None:
            return []
        self._flush_redacted(ours)
        return self.builder.end_block(ours)

    def _flush_redacted(self, ours: int) -> None:
        chunks = self.redacted.pop(ours, None)
        block = self.builder.message.content[ours]
        if chunks and isinstance(block, ThinkingContent):
            block.thinking_signature = base64.b64encode(b"".join(chunks)).decode()

    def _usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        u = self.builder.message.usage
        u.input = int(usage.get("inputTokens") or 0)
        u.output = int(usage.get("outputTokens") or 0)
        u.cache_read = int(usage.get("cacheReadInputTokens") or 0)
        u.cache_write = int(usage.get("cacheWriteInputTokens") or 0)
        details = usage.get("cacheDetails")
        if isinstance(details, list):
            u.cache_write_1h = sum(int(d.get("inputTokens") or 0) for d in details
                                   if isinstance(d, dict) and d.get("ttl") == "1h")
        u.total_tokens = int(usage.get("totalTokens") or 0) or u.input + u.output
        self.builder.usage_updated()

    def finish(self) -> list[AssistantMessageEvent]:
        """The terminal events once the body has ended."""
        for ours in list(self.redacted):
            self._flush_redacted(ours)
        if self.stop_reason is None:
            return self.builder.fail("Bedrock stream ended without a stop reason")
        if self.stop_reason == "error":
            return self.builder.fail(self.stop_error or "An unknown error occurred")
        return self.builder.finish(self.stop_reason)
