"""The one place where kernel events enter the UI.

``Bridge`` subscribes to an ``AgentSession``, queues its events and tells its target (the
app) with a ``KernelEvents`` Textual message that some are waiting. Nothing else in
``pi_tui`` subscribes to the kernel; the widgets get what they need through message handlers
and attributes. The listener is synchronous and only enqueues, so a slow frame never stalls
the agent loop.

One message stands for however many events arrived before the app got to it: a fast stream
sends thousands of deltas a second, and a Textual message per delta cost more than drawing
them (dispatch is ~0.1 ms each). Keys typed meanwhile still get their turn between batches.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort


REBUILD_EVENTS = frozenset({"compaction_end", "session_changed"})
"""Events after which a view is rebuilt from the session's messages (see ``messages_when``)."""

EVENT_BATCH_SECONDS = 0.03
"""How long the app works through queued events before the keys typed meanwhile get their turn."""


class KernelEvents(Message):
    """Kernel or agent events are waiting in ``bridge`` (take them with ``Bridge.drain``)."""

    def __init__(self, bridge: Bridge) -> None:
        super().__init__()
        self.bridge = bridge


class Bridge:
    """Subscribes to a session and forwards its events to a message pump."""

    def __init__(self, session: SessionPort, target: MessagePump) -> None:
        """
        Args:
            session: the ``AgentSession`` to listen to.
            target: who receives the ``KernelEvent`` messages (the app).
        """
        self.session = session
        self.target = target
        self._unsubscribe: Callable[[], None] | None = None
        self._pending: deque[Any] = deque()
        self._posted = False
        """A ``KernelEvents`` message is on its way and will see newly queued events too."""
        self._lengths: dict[int, int] = {}
        """For each waiting rebuild event (by ``id``): how many messages the session had then."""

    def start(self) -> None:
        """Begin forwarding (idempotent)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.session.subscribe(self._on_event)

    @property
    def idle(self) -> bool:
        """Every event the session sent has been taken by the app (tests wait on this, not on time)."""
        return not self._pending

    def stop(self) -> None:
        """Stop forwarding."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def drain(self, budget: float | None = None) -> Iterator[Any]:
        """The events queued so far, oldest first (``event.type`` says which kind).

        Events that arrive while the caller works through these get a new message, so one
        busy stream cannot keep a single handler running for ever.

        Args:
            budget: Seconds the caller may spend on this batch; what is left when they are up
                comes with a new message, after the keys typed meanwhile. (A reply with 200 tool
                calls queues a thousand events, each mounting or updating a widget: handled in
                one go they held a typed key back for over a second.)
        """
        self._posted = False
        deadline = None if budget is None else time.perf_counter() + budget
        for _ in range(len(self._pending)):
            if deadline is not None and time.perf_counter() > deadline:
                if not self._posted:
                    self._posted = True
                    self.target.post_message(KernelEvents(self))
                return
            yield self._pending.popleft()

    def messages_when(self, event: Any) -> list[Any]:
        """The session's messages as they were when ``event`` (a rebuild event) was emitted.

        The app works through events after the kernel went on: by the time it rebuilds the view
        for a compaction before a prompt, the prompt is already in the session's messages, and
        its own ``message_start`` is next in the queue. Messages are only appended between
        rebuilds, so the ones the event saw are the first ``n``.
        """
        messages = self.session.messages
        length = self._lengths.pop(id(event), None)
        return messages if length is None or length >= len(messages) else list(messages[:length])

    def _on_event(self, event: Any) -> None:
        if getattr(event, "type", None) in REBUILD_EVENTS:
            self._lengths[id(event)] = len(self.session.messages)
        self._pending.append(event)
        if not self._posted:
            self._posted = True
            self.target.post_message(KernelEvents(self))
