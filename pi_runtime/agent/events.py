"""Agent lifecycle events, with Pi's names and wire shapes.

Slotted dataclasses rather than pydantic models: ``message_update`` fires for every
streamed delta and must cost next to nothing. ``to_wire()`` gives the JSON/RPC shape;
``message_update`` on the wire is delta-only (usage + the stream event without its
``partial``), so a long answer stays linear in size.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..records import record

if TYPE_CHECKING:  # annotations only: front ends import the events before the kernel loads
    from ..ai.events import AssistantMessageEvent
    from .tool import ToolResult


def _wire(message: Any) -> Any:
    return message.to_wire() if hasattr(message, "to_wire") else message


def _message(data: Any) -> Any:
    """A wire message as its typed class (``UnknownMessage`` for a role this version does not know)."""
    from ..ai.types import parse_message

    return parse_message(data)


def _result(data: Any) -> ToolResult:
    from .tool import ToolResult

    return ToolResult.from_wire(data)


@record(slots=True)
class AgentStartEvent:
    type: ClassVar[Literal["agent_start"]] = "agent_start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> AgentStartEvent:
        return cls()


@record(slots=True)
class AgentEndEvent:
    messages: list[Any] = field(default_factory=list)
    """Messages produced by this run (prompt, assistant replies, tool results)."""
    will_retry: bool = False
    """Set by the kernel when it is about to retry or recover automatically."""
    type: ClassVar[Literal["agent_end"]] = "agent_end"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "messages": [_wire(m) for m in self.messages], "willRetry": self.will_retry}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> AgentEndEvent:
        return cls([_message(m) for m in data.get("messages") or []], bool(data.get("willRetry", False)))


@record(slots=True)
class TurnStartEvent:
    type: ClassVar[Literal["turn_start"]] = "turn_start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> TurnStartEvent:
        return cls()


@record(slots=True)
class TurnEndEvent:
    message: Any
    tool_results: list[Any] = field(default_factory=list)
    type: ClassVar[Literal["turn_end"]] = "turn_end"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": _wire(self.message),
            "toolResults": [_wire(m) for m in self.tool_results],
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> TurnEndEvent:
        return cls(_message(data["message"]), [_message(m) for m in data.get("toolResults") or []])


@record(slots=True)
class MessageStartEvent:
    message: Any
    type: ClassVar[Literal["message_start"]] = "message_start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "message": _wire(self.message)}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> MessageStartEvent:
        return cls(_message(data["message"]))


@record(slots=True)
class MessageUpdateEvent:
    message: Any
    """The live assistant message (the same object for the whole stream)."""
    assistant_message_event: AssistantMessageEvent
    type: ClassVar[Literal["message_update"]] = "message_update"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "usage": self.message.usage.to_wire(),
            "assistantMessageEvent": self.assistant_message_event.to_wire(),
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any], message: Any) -> MessageUpdateEvent:
        """``message`` is the live message the update belongs to, already grown by it: the wire
        carries only the delta (``ai.stream_replay.StreamReplay`` keeps that copy)."""
        from ..ai.events import event_from_wire

        return cls(message, event_from_wire(data["assistantMessageEvent"], message))


@record(slots=True)
class MessageEndEvent:
    message: Any
    type: ClassVar[Literal["message_end"]] = "message_end"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "message": _wire(self.message)}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> MessageEndEvent:
        return cls(_message(data["message"]))


@record(slots=True)
class ToolExecutionStartEvent:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    parent_tool_call_id: str | None = None
    """The calling tool's id when another tool made this call (a codemode script's): Pi's nested call,
    whose own id is ``<parent id>/<n>`` and which adds nothing to the transcript."""
    type: ClassVar[Literal["tool_execution_start"]] = "tool_execution_start"

    def to_wire(self) -> dict[str, Any]:
        out = {"type": self.type, "toolCallId": self.tool_call_id, "toolName": self.tool_name, "args": self.args}
        if self.parent_tool_call_id is not None:
            out["parentToolCallId"] = self.parent_tool_call_id
        return out

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ToolExecutionStartEvent:
        parent = data.get("parentToolCallId")
        return cls(str(data["toolCallId"]), str(data["toolName"]), dict(data.get("args") or {}),
                   None if parent is None else str(parent))


@record(slots=True)
class ToolExecutionUpdateEvent:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: ToolResult
    type: ClassVar[Literal["tool_execution_update"]] = "tool_execution_update"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
            "partialResult": self.partial_result.to_wire(),
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ToolExecutionUpdateEvent:
        return cls(str(data["toolCallId"]), str(data["toolName"]), dict(data.get("args") or {}),
                   _result(data.get("partialResult") or {}))


@record(slots=True)
class ToolExecutionEndEvent:
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool
    duration_ms: float | None = None
    """Time spent in the tool's ``execute``; None when the tool never ran."""
    parent_tool_call_id: str | None = None
    """As :attr:`ToolExecutionStartEvent.parent_tool_call_id`."""
    type: ClassVar[Literal["tool_execution_end"]] = "tool_execution_end"

    def to_wire(self) -> dict[str, Any]:
        out = {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "result": self.result.to_wire(),
            "isError": self.is_error,
        }
        if self.duration_ms is not None:
            out["durationMs"] = round(self.duration_ms, 3)
        if self.parent_tool_call_id is not None:
            out["parentToolCallId"] = self.parent_tool_call_id
        return out

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ToolExecutionEndEvent:
        duration, parent = data.get("durationMs"), data.get("parentToolCallId")
        return cls(str(data["toolCallId"]), str(data["toolName"]), _result(data.get("result") or {}),
                   bool(data.get("isError", False)), None if duration is None else float(duration),
                   None if parent is None else str(parent))


AgentEvent = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)
