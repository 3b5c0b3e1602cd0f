"""``ctx.ui.on_terminal_input``: extensions see each key before the editor and the app's keys.

Pi hands listeners the raw terminal bytes; Textual has already parsed them into key events, so
a listener gets the text a printable key types (``"a"``, ``"#"``, ``" "``) and otherwise the
key's name (``"escape"``, ``"enter"``, ``"ctrl+x"``, ``"up"``). It returns ``{"consume": True}``
(or ``{"data": ""}``, or True) to swallow the key; anything else lets it through. Listeners run
in the order they were added, on every screen, as Pi's do. A listener that raises is logged and
skipped: a broken extension must not take the keyboard away.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from textual import events

log = logging.getLogger("pi.extensions")


def key_data(event: events.Key) -> str:
    """What a listener is given for ``event``."""
    if event.is_printable and event.character:
        return event.character
    return event.key


def consumes(result: Any) -> bool:
    """Whether a listener's answer swallows the key."""
    if result is True:
        return True
    if isinstance(result, dict):
        return bool(result.get("consume")) or result.get("data") == ""
    return bool(getattr(result, "consume", False))


class TerminalInput:
    """The app's terminal input listeners."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[str], Any]] = []
        self._tasks: set[asyncio.Future[Any]] = set()
        """Async listeners still running (kept so they are not collected half way)."""

    def add(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        """Listen; returns the unsubscriber (calling it twice is harmless)."""
        self._listeners.append(handler)

        def unsubscribe() -> None:
            if handler in self._listeners:
                self._listeners.remove(handler)

        return unsubscribe

    def clear(self) -> None:
        self._listeners.clear()

    def dispatch(self, event: events.Key) -> bool:
        """Offer ``event`` to every listener; True when one consumed it (the rest do not see it)."""
        if not self._listeners:
            return False
        data = key_data(event)
        for handler in list(self._listeners):
            try:
                result = handler(data)
            except Exception:
                log.exception("terminal input listener failed")
                continue
            if inspect.isawaitable(result):
                # Pi's listeners answer at once; an async one runs on but cannot consume the key.
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                continue
            if consumes(result):
                return True
        return False
