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
