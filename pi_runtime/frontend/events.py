"""The closed union of every event a front end receives from a session.

Each event class carries its Pi name as a class-level ``type`` (``AgentStartEvent.type ==
"agent_start"``); front ends ``match`` on the classes. ``to_wire()`` gives the JSON shape for
the JSON and RPC modes. This module is light (no pydantic), so an app can import it before
the kernel loads.
"""

from __future__ import annotations

from ..agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from ..kernel.events import (
    AgentSettledEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashExecutionUpdateEvent,
    BudgetExceededEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    EntryAppendedEvent,
    ExtensionErrorEvent,
    KernelEvent,
    ModelChangedEvent,
    QueueUpdateEvent,
    SessionChangedEvent,
    SessionInfoChangedEvent,
    ThinkingLevelChangedEvent,
)

SessionEvent = AgentEvent | KernelEvent
"""Everything ``AgentSession.subscribe`` delivers."""

__all__ = [
    "AgentEndEvent", "AgentEvent", "AgentSettledEvent", "AgentStartEvent", "AutoRetryEndEvent",
    "AutoRetryStartEvent", "BashExecutionUpdateEvent", "BudgetExceededEvent", "CompactionEndEvent",
    "CompactionStartEvent", "EntryAppendedEvent", "ExtensionErrorEvent", "KernelEvent", "MessageEndEvent",
    "MessageStartEvent", "MessageUpdateEvent", "ModelChangedEvent", "QueueUpdateEvent", "SessionChangedEvent",
    "SessionEvent", "SessionInfoChangedEvent", "ThinkingLevelChangedEvent", "ToolExecutionEndEvent",
    "ToolExecutionStartEvent", "ToolExecutionUpdateEvent", "TurnEndEvent", "TurnStartEvent",
]
