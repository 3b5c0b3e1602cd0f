"""``SessionEvents``: turns the session's agent and kernel events into extension events.

It subscribes to the session and owns what that translation needs to remember: the turn
index within a run, the previous model and thinking level (``model_select``'s
``previous_model``) and the previous session file (``session_start``'s
``previous_session_file`` after a switch).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from .dispatch import Dispatcher
from .events import (
    ModelSelectEvent,
    SessionStartEvent,
    ThinkingLevelSelectEvent,
    TurnEndEvent,
    TurnStartEvent,
    from_agent_event,
)
from .registry import ExtensionRegistry

_FORWARDED = frozenset({
    "agent_start", "agent_end", "agent_settled", "message_start", "message_update", "message_end",
    "tool_execution_start", "tool_execution_update", "tool_execution_end", "session_info_changed",
})
_SWITCH_REASONS = {"new": "new", "switch": "resume", "fork": "fork", "clone": "fork"}


class SessionEvents:
    """Forwards one session's events to its extensions.

    Args:
        registry: Who handles which event.
        dispatcher: Calls handlers safely.
        ensure_started: Starts the runner (``session_start``) before the first event.
        parent_of: The parent tool call id of a nested call id (None for the model's calls).
    """

    def __init__(
        self,
        registry: ExtensionRegistry,
        dispatcher: Dispatcher,
        ensure_started: Callable[[], Awaitable[None]],
        parent_of: Callable[[str], str | None] = lambda call_id: None,
        before_switch: Callable[[], None] = lambda: None,
    ) -> None:
        self._registry = registry
        self._before_switch = before_switch
        """Called before ``session_start`` of a switch: the front end drops what extensions set up
        for the session before (their handlers set it up again)."""
        self._dispatcher = dispatcher
        self._ensure_started = ensure_started
        self._parent_of = parent_of
        self._turn_index = -1
        self._last_model: Any = None
        self._last_level: str | None = None
        self.previous_session_file: str | None = None
        """The session file before the last switch (``session_start.previous_session_file``)."""
        self._session_file: Callable[[], str | None] = lambda: None

    def attach(self, session: Any) -> None:
        """Remember the session's current model, level and file (the baseline for later changes)."""
        self._last_model = session.model
        self._last_level = session.thinking_level
        self.previous_session_file = session.session_file
        self._session_file = lambda: session.session_file

    def switching(self) -> None:
        """A switch or fork is about to happen: remember the file being left."""
        self.previous_session_file = self._session_file()

    async def on_session_event(self, event: Any) -> None:
        kind = event.type
        if kind == "extension_error":
            return
        await self._ensure_started()
        if kind == "agent_start":
            self._turn_index = -1
        if kind == "turn_start":
            self._turn_index += 1
            if self._registry.has_handlers(kind):
                await self._dispatcher.emit(kind, TurnStartEvent(turn_index=max(0, self._turn_index),
                                                                 timestamp=int(time.time() * 1000)))
        elif kind == "turn_end":
            if self._registry.has_handlers(kind):
                await self._dispatcher.emit(kind, TurnEndEvent(
                    message=event.message, tool_results=list(event.tool_results),
                    turn_index=max(0, self._turn_index), timestamp=int(time.time() * 1000)))
        elif kind in _FORWARDED:
            if self._registry.has_handlers(kind):
                extra = {}
                if kind.startswith("tool_execution_"):
                    extra["parent_tool_call_id"] = (getattr(event, "parent_tool_call_id", None)
                                                    or self._parent_of(event.tool_call_id))
                await self._dispatcher.emit(kind, from_agent_event(event, **extra))
            if kind == "agent_settled":
                self._dispatcher.settled()
        elif kind == "model_changed":
            previous, self._last_model = self._last_model, event.model
            await self._dispatcher.emit("model_select", ModelSelectEvent(model=event.model, previous_model=previous,
                                                                                 source=event.source))
        elif kind == "thinking_level_changed":
            previous_level, self._last_level = self._last_level, event.level
            await self._dispatcher.emit("thinking_level_select",
                                        ThinkingLevelSelectEvent(level=event.level, previous_level=previous_level))
        elif kind == "session_changed" and event.reason in _SWITCH_REASONS:
            previous_file, self.previous_session_file = self.previous_session_file, self._session_file()
            self._before_switch()
            await self._dispatcher.emit("session_start", SessionStartEvent(
                reason=_SWITCH_REASONS[event.reason], previous_session_file=previous_file), abortable=False)
