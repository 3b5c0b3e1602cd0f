"""``EventDelivery``: a served session's typed events to its subscribers, in order, off the reader.

Subscribers are awaited one after the other (as the kernel's are), in a task of their own: the
client's reader never waits on a subscriber, so a subscriber may itself call the session (whose
answer the reader must read). It also counts settled runs, for ``prompt(wait=True)`` and
``wait_for_idle``: a run counts as settled once the subscribers have had its ``agent_settled``, as
with a local session, whose subscribers are awaited before its prompt returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..agent.listeners import Listeners
from ..frontend.events import AgentSettledEvent


class EventDelivery:
    def __init__(self) -> None:
        self._listeners = Listeners(isolate=True)
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task = asyncio.ensure_future(self._run())
        self.received_settles = 0
        """``agent_settled`` events received so far."""
        self.settles = 0
        """``agent_settled`` events the subscribers have had."""
        self._wake = asyncio.Event()

    def subscribe(self, listener: Callable[[Any], Any]) -> Callable[[], None]:
        return self._listeners.add(listener)

    def put(self, event: Any) -> None:
        """Queue an event for the subscribers (they get it after the ones before it)."""
        if isinstance(event, AgentSettledEvent):
            self.received_settles += 1
        self._queue.put_nowait(event)

    @property
    def behind(self) -> bool:
        """Whether a received ``agent_settled`` has not reached the subscribers yet."""
        return self.settles < self.received_settles

    def wake(self) -> None:
        """Wake the waiters (a run settled, the session closed or the connection was lost)."""
        self._wake.set()
        self._wake = asyncio.Event()

    async def changed(self) -> None:
        """Until the next :meth:`wake`."""
        await self._wake.wait()

    async def _run(self) -> None:
        while True:
            event = await self._queue.get()
            await self._listeners.emit(event)
            if isinstance(event, AgentSettledEvent):
                self.settles += 1
                self.wake()

    def close(self) -> None:
        self._task.cancel()
