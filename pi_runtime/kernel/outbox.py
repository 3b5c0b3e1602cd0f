"""The kernel's single way out for events.

Every part of the kernel emits through one ``EventOutbox``: awaited ``emit`` from async code,
``emit_soon`` from synchronous code (a queue callback, an extension's ``append_entry``). Events
queued with ``emit_soon`` are delivered by one task the outbox keeps a reference to, and any
later ``emit`` delivers them first, so subscribers see events in the order they happened.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from ..agent.listeners import Listener, Listeners


class EventOutbox:
    """Ordered delivery of kernel events to subscribers (a broken subscriber never stops a run)."""

    def __init__(self) -> None:
        self._listeners = Listeners(isolate=True)
        self._pending: deque[Any] = deque()
        self._drain: asyncio.Task[None] | None = None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event (sync or async listener). Returns an unsubscriber."""
        return self._listeners.add(listener)

    async def emit(self, event: Any) -> None:
        """Deliver ``event`` after anything queued before it."""
        if self._pending:
            await self._flush()
        await self._listeners.emit(event)

    def emit_soon(self, event: Any) -> None:
        """Queue ``event`` from synchronous code; it is delivered in order by the outbox's task."""
        self._pending.append(event)
        if self._drain is not None and not self._drain.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the next emit delivers it
        self._drain = loop.create_task(self._flush())

    async def settle(self) -> None:
        """Wait until queued events have been delivered."""
        await self._flush()
        if self._drain is not None and not self._drain.done():
            await asyncio.shield(self._drain)

    async def _flush(self) -> None:
        while self._pending:
            await self._listeners.emit(self._pending.popleft())

    def close(self) -> None:
        """Drop subscribers and anything not yet delivered."""
        self._pending.clear()
        self._listeners.clear()
        if self._drain is not None and not self._drain.done():
            self._drain.cancel()
