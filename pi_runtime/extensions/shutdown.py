"""``ShutdownRequest``: ``ctx.shutdown()`` — end pi gracefully, once the agent is idle.

The host installs the callback that ends its front end (RPC: as on end of input; the app:
quit). Print mode installs none, so the request is ignored there, as in Pi (the process ends
when its prompts are done). The callback runs once, after the run in progress settles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..background import spawn


class ShutdownRequest:
    """Holds the host's shutdown callback and whether a request is waiting for idle."""

    def __init__(self) -> None:
        self.callback: Callable[[], Any] | None = None
        self._waiting = False

    def request(self, session: Any) -> None:
        """Ask for shutdown: now when ``session`` is idle, else once it has settled."""
        callback = self.callback
        if callback is None:
            return
        if session is None or not session.is_streaming:
            callback()
            return
        if self._waiting:
            return
        self._waiting = True

        async def when_idle() -> None:
            await session.wait_for_idle()
            callback()

        spawn(when_idle(), name="shutdown-when-idle")
