"""The one place where kernel events enter the UI.

``Bridge`` subscribes to an ``AgentSession`` and posts one ``KernelEvent`` Textual message
per event to its target (the app). Nothing else in ``pi_tui`` subscribes to the kernel; the
widgets get what they need through message handlers and attributes. The listener is
synchronous and only enqueues, so a slow frame never stalls the agent loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump


class KernelEvent(Message):
    """A kernel or agent event (``event.type`` says which: ``message_update``, ``agent_settled``...)."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event
        """The kernel's event object (see pi_runtime.agent.events / pi_runtime.kernel.events)."""


class Bridge:
    """Subscribes to a session and forwards its events to a message pump."""

    def __init__(self, session: Any, target: MessagePump) -> None:
        """
        Args:
            session: the ``AgentSession`` to listen to.
            target: who receives the ``KernelEvent`` messages (the app).
        """
        self.session = session
        self.target = target
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        """Begin forwarding (idempotent)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.session.subscribe(self._on_event)

    def stop(self) -> None:
        """Stop forwarding."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_event(self, event: Any) -> None:
        self.target.post_message(KernelEvent(event))
