"""Events the kernel adds on top of the agent's, with Pi's names and wire shapes.

A host knows a prompt is finished at ``agent_settled``, never at ``agent_end``: after an
``agent_end`` the kernel may still retry, recover from an overflow or deliver queued work.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..records import record

if TYPE_CHECKING:
    from .message_queue import QueuedMessage


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


@record(slots=True)
class AgentSettledEvent:
    aborted: bool = False
    type: ClassVar[Literal["agent_settled"]] = "agent_settled"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "aborted": self.aborted}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> AgentSettledEvent:
        return cls(bool(data.get("aborted", False)))


@record(slots=True)
class QueueUpdateEvent:
    steering: list[str] = field(default_factory=list)
    follow_up: list[str] = field(default_factory=list)
    items: list[QueuedMessage] = field(default_factory=list)
    """pi's addition: the same queue as ``QueuedMessage`` records with their ids, so a queue pane
    keeps its selection. Not on the wire: Pi's ``queue_update`` shape stays as Pi sends it."""
    type: ClassVar[Literal["queue_update"]] = "queue_update"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "steering": list(self.steering), "followUp": list(self.follow_up)}

    def wire_extras(self) -> dict[str, Any]:
        """pi's addition for its own clients (``pi serve``): the queue with ids, under ``queue``."""
        return {"queue": [item.to_wire() for item in self.items]}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> QueueUpdateEvent:
        from .message_queue import QueuedMessage

        return cls(list(data.get("steering") or []), list(data.get("followUp") or []),
                   [QueuedMessage.from_wire(item) for item in data.get("queue") or []])


@record(slots=True)
class CompactionStartEvent:
    reason: str
    """manual, threshold or overflow."""
    type: ClassVar[Literal["compaction_start"]] = "compaction_start"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> CompactionStartEvent:
        return cls(str(data["reason"]))


@record(slots=True)
class CompactionEndEvent:
    reason: str
    result: dict[str, Any] | None = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None
    type: ClassVar[Literal["compaction_end"]] = "compaction_end"

    def to_wire(self) -> dict[str, Any]:
        return _drop_none({
            "type": self.type,
            "reason": self.reason,
            "result": self.result,
            "aborted": self.aborted,
            "willRetry": self.will_retry,
            "errorMessage": self.error_message,
        })

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> CompactionEndEvent:
        return cls(str(data["reason"]), data.get("result"), bool(data.get("aborted", False)),
                   bool(data.get("willRetry", False)), data.get("errorMessage"))


@record(slots=True)
class AutoRetryStartEvent:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: ClassVar[Literal["auto_retry_start"]] = "auto_retry_start"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay_ms,
            "errorMessage": self.error_message,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> AutoRetryStartEvent:
        return cls(int(data["attempt"]), int(data["maxAttempts"]), int(data["delayMs"]), str(data["errorMessage"]))


@record(slots=True)
class AutoRetryEndEvent:
    success: bool
    attempt: int
    final_error: str | None = None
    type: ClassVar[Literal["auto_retry_end"]] = "auto_retry_end"

    def to_wire(self) -> dict[str, Any]:
        return _drop_none({
            "type": self.type, "success": self.success, "attempt": self.attempt, "finalError": self.final_error,
        })

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> AutoRetryEndEvent:
        return cls(bool(data["success"]), int(data["attempt"]), data.get("finalError"))


@record(slots=True)
class EntryAppendedEvent:
    entry: Any
    type: ClassVar[Literal["entry_appended"]] = "entry_appended"

    def to_wire(self) -> dict[str, Any]:
        # As the line in the file: the nulls that mean something (parentId, replacement) kept.
        from ..session.entries import SessionEntryBase, entry_to_wire

        if isinstance(self.entry, SessionEntryBase):
            entry = entry_to_wire(self.entry)
        else:
            entry = self.entry.to_wire() if hasattr(self.entry, "to_wire") else self.entry
        return {"type": self.type, "entry": entry}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> EntryAppendedEvent:
        from ..session.entries import parse_entry

        return cls(parse_entry(data["entry"]))


@record(slots=True)
class SessionInfoChangedEvent:
    name: str | None = None
    type: ClassVar[Literal["session_info_changed"]] = "session_info_changed"

    def to_wire(self) -> dict[str, Any]:
        return _drop_none({"type": self.type, "name": self.name})

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SessionInfoChangedEvent:
        return cls(data.get("name"))


@record(slots=True)
class ThinkingLevelChangedEvent:
    level: str
    type: ClassVar[Literal["thinking_level_changed"]] = "thinking_level_changed"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "level": self.level}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ThinkingLevelChangedEvent:
        return cls(str(data["level"]))


@record(slots=True)
class ModelChangedEvent:
    model: Any
    source: str = "set"
    """How the model was chosen: ``set`` (named) or ``cycle`` (next in the list), Pi's ``model_select.source``."""
    type: ClassVar[Literal["model_changed"]] = "model_changed"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "model": self.model.to_public_wire()}

    def wire_extras(self) -> dict[str, Any]:
        """pi's addition for its own clients (``pi serve``): how the model was chosen."""
        return {"source": self.source}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ModelChangedEvent:
        """The model as the wire shows it (no password in its URL, header values masked)."""
        from ..ai.types import Model

        return cls(Model.model_validate(data["model"]), str(data.get("source", "set")))


@record(slots=True)
class BashExecutionUpdateEvent:
    delta: str
    id: str | None = None
    type: ClassVar[Literal["bash_execution_update"]] = "bash_execution_update"

    def to_wire(self) -> dict[str, Any]:
        return _drop_none({"type": self.type, "id": self.id, "delta": self.delta})

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> BashExecutionUpdateEvent:
        return cls(str(data["delta"]), data.get("id"))


@record(slots=True)
class SessionChangedEvent:
    """The kernel now works on another session (new, switched, forked, cloned, navigated).

    Not a Pi wire event: in-process front ends use it to rebuild their view.
    """

    reason: str
    session_file: str | None = None
    type: ClassVar[Literal["session_changed"]] = "session_changed"

    def to_wire(self) -> dict[str, Any]:
        return _drop_none({"type": self.type, "reason": self.reason, "sessionFile": self.session_file})

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SessionChangedEvent:
        return cls(str(data["reason"]), data.get("sessionFile"))


@record(slots=True)
class ExtensionErrorEvent:
    extension_path: str
    event: str
    error: str
    type: ClassVar[Literal["extension_error"]] = "extension_error"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "extensionPath": self.extension_path, "event": self.event, "error": self.error}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ExtensionErrorEvent:
        return cls(str(data["extensionPath"]), str(data["event"]), str(data["error"]))


@record(slots=True)
class BudgetExceededEvent:
    """Beyond Pi: the optional per-prompt budget stopped the run."""

    limit: str
    message: str
    type: ClassVar[Literal["budget_exceeded"]] = "budget_exceeded"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "limit": self.limit, "message": self.message}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> BudgetExceededEvent:
        return cls(str(data["limit"]), str(data["message"]))


KernelEvent = (
    AgentSettledEvent
    | QueueUpdateEvent
    | CompactionStartEvent
    | CompactionEndEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | EntryAppendedEvent
    | SessionInfoChangedEvent
    | ThinkingLevelChangedEvent
    | ModelChangedEvent
    | BashExecutionUpdateEvent
    | SessionChangedEvent
    | ExtensionErrorEvent
    | BudgetExceededEvent
)
"""Every event the kernel adds to the agent's."""
