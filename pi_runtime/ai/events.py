"""Stream events a provider emits while an assistant message is generated.

These are small slotted dataclasses rather than pydantic models: a long answer produces
tens of thousands of them and each must cost next to nothing. ``partial`` is a reference to
the one live message being built (never a copy), so a consumer inspects it when it handles
the event. ``to_wire()`` gives Pi's delta-only JSON shape (no ``partial``).
"""

from __future__ import annotations

from typing import Any

from ..records import record
from .types import AssistantMessage, ToolCall


@record(slots=True)
class StartEvent:
    partial: AssistantMessage
    type: str = "start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": "start"}


@record(slots=True)
class TextStartEvent:
    content_index: int
    partial: AssistantMessage
    type: str = "text_start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index}


@record(slots=True)
class TextDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: str = "text_delta"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index, "delta": self.delta}


@record(slots=True)
class TextEndEvent:
    content_index: int
    content: str
    partial: AssistantMessage
    type: str = "text_end"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index, "content": self.content}


@record(slots=True)
class ThinkingStartEvent:
    content_index: int
    partial: AssistantMessage
    type: str = "thinking_start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index}


@record(slots=True)
class ThinkingDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: str = "thinking_delta"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index, "delta": self.delta}


@record(slots=True)
class ThinkingEndEvent:
    content_index: int
    content: str
    partial: AssistantMessage
    type: str = "thinking_end"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index, "content": self.content}


@record(slots=True)
class ToolCallStartEvent:
    content_index: int
    partial: AssistantMessage
    type: str = "toolcall_start"

    def to_wire(self) -> dict[str, Any]:
        block = self.partial.content[self.content_index]
        return {
            "type": self.type,
            "contentIndex": self.content_index,
            "id": getattr(block, "id", ""),
            "toolName": getattr(block, "name", ""),
        }


@record(slots=True)
class ToolCallDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: str = "toolcall_delta"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "contentIndex": self.content_index, "delta": self.delta}


@record(slots=True)
class ToolCallEndEvent:
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: str = "toolcall_end"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "contentIndex": self.content_index,
            "toolCall": self.tool_call.to_wire(),
        }


@record(slots=True)
class DoneEvent:
    reason: str
    message: AssistantMessage
    type: str = "done"

    @property
    def partial(self) -> AssistantMessage:
        return self.message

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason, "message": self.message.to_wire()}


@record(slots=True)
class ErrorEvent:
    reason: str
    """``error`` or ``aborted``."""
    error: AssistantMessage
    type: str = "error"

    @property
    def partial(self) -> AssistantMessage:
        return self.error

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason, "error": self.error.to_wire()}


AssistantMessageEvent = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)


def event_from_wire(data: dict[str, Any], partial: AssistantMessage) -> AssistantMessageEvent:
    """The typed stream event for its wire shape (Pi's delta-only one, see ``to_wire``).

    Args:
        data: The wire event (``message_update``'s ``assistantMessageEvent``).
        partial: The live message the event belongs to (what ``partial`` refers to).

    Raises:
        ValueError: An unknown ``type`` or a field of the wrong shape.
    """
    from .types import AssistantMessage, ToolCall

    kind = data.get("type")
    index = data.get("contentIndex", 0)
    if kind == "start":
        return StartEvent(partial)
    if kind == "text_start":
        return TextStartEvent(index, partial)
    if kind == "text_delta":
        return TextDeltaEvent(index, str(data["delta"]), partial)
    if kind == "text_end":
        return TextEndEvent(index, str(data["content"]), partial)
    if kind == "thinking_start":
        return ThinkingStartEvent(index, partial)
    if kind == "thinking_delta":
        return ThinkingDeltaEvent(index, str(data["delta"]), partial)
    if kind == "thinking_end":
        return ThinkingEndEvent(index, str(data["content"]), partial)
    if kind == "toolcall_start":
        return ToolCallStartEvent(index, partial)
    if kind == "toolcall_delta":
        return ToolCallDeltaEvent(index, str(data["delta"]), partial)
    if kind == "toolcall_end":
        return ToolCallEndEvent(index, ToolCall.model_validate(data["toolCall"]), partial)
    if kind == "done":
        return DoneEvent(str(data["reason"]), AssistantMessage.model_validate(data["message"]))
    if kind == "error":
        return ErrorEvent(str(data["reason"]), AssistantMessage.model_validate(data["error"]))
    raise ValueError(f"Unknown assistant message event type: {kind!r}")
