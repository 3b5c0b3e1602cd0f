"""``KernelActions``: what an extension runner may do to its session (the ``SessionActions`` port).

Extensions start runs, queue, defer or store messages and emit events through this object,
never through the session's parts or private fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agent.agent import Agent
from .outbox import EventOutbox
from .record import SessionRecord
from .run_driver import RunDriver


class KernelActions:
    """The session's actions port for its extension runner.

    Args:
        agent: Its queues take steered and follow-up messages.
        driver: Starts runs and keeps messages that arrive mid-run.
        record: Stores messages.
        outbox: Emits events.
        check_ready: Raises ``PromptError`` when no run could start.
        refresh_system_prompt: Rebuilds the system prompt.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        driver: RunDriver,
        record: SessionRecord,
        outbox: EventOutbox,
        check_ready: Callable[[], None],
        refresh_system_prompt: Callable[[], None],
    ) -> None:
        self._agent = agent
        self._driver = driver
        self._record = record
        self._outbox = outbox
        self.check_ready = check_ready
        self.refresh_system_prompt = refresh_system_prompt

    @property
    def is_streaming(self) -> bool:
        return self._driver.is_running

    def start_run(self, messages: list[Any]) -> None:
        """Start a run with ``messages`` (the session is idle)."""
        self._driver.start(messages)

    def steer_message(self, message: Any) -> None:
        self._agent.steer(message)

    def follow_up_message(self, message: Any) -> None:
        self._agent.follow_up(message)

    def defer_message(self, message: Any) -> None:
        """Keep ``message`` until the run in progress settles (stored at once when idle)."""
        if not self._driver.defer(message):
            self._record.add(message)

    def store_message(self, message: Any) -> None:
        """Add a message to an idle session's transcript and file, and announce it."""
        from ..agent.events import MessageEndEvent, MessageStartEvent

        self._record.add(message)
        self._outbox.emit_soon(MessageStartEvent(message))
        self._outbox.emit_soon(MessageEndEvent(message))

    async def emit(self, event: Any) -> None:
        await self._outbox.emit(event)

    def emit_soon(self, event: Any) -> None:
        self._outbox.emit_soon(event)
