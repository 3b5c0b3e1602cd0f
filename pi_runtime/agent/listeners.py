"""An ordered list of event listeners, sync or async, awaited one after the other."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

Listener = Callable[[Any], Any]
log = logging.getLogger("pi")


class Listeners:
    """Listeners run in registration order; async ones are awaited before the next runs.

    Args:
        isolate: Log and swallow a listener's exception instead of raising it, so one broken
            subscriber (a UI, a logger) cannot stop the run that emits.
    """

    def __init__(self, *, isolate: bool = False) -> None:
        self._items: list[Listener] = []
        self._isolate = isolate

    def add(self, listener: Listener) -> Callable[[], None]:
        """Add a listener; returns a function that removes it (idempotent)."""
        self._items.append(listener)

        def remove() -> None:
            if listener in self._items:
                self._items.remove(listener)

        return remove

    def clear(self) -> None:
        self._items.clear()

    async def emit(self, event: Any) -> None:
        for listener in list(self._items):
            try:
                result = listener(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                if not self._isolate:
                    raise
                log.exception("event listener failed on %s", getattr(event, "type", event))
