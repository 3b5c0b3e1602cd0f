"""``pi.events``: a channel extensions use to talk to each other (Pi's shared event bus)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..background import spawn
from .loader import summarize_error
from .reporter import ErrorReporter


class EventBus:
    """Named channels shared by every extension of a session.

    Args:
        reporter: Where a failing listener is reported.
    """

    def __init__(self, reporter: ErrorReporter) -> None:
        self._reporter = reporter
        self._listeners: dict[str, list[Callable[[Any], Any]]] = {}

    def on(self, name: str, listener: Callable[[Any], Any]) -> Callable[[], None]:
        """Listen to ``name``. Returns an unsubscriber."""
        self._listeners.setdefault(name, []).append(listener)

        def off() -> None:
            if listener in self._listeners.get(name, []):
                self._listeners[name].remove(listener)

        return off

    def emit(self, name: str, data: Any = None) -> None:
        """Call every listener of ``name`` (async ones are scheduled); failures are reported."""
        for listener in list(self._listeners.get(name, [])):
            try:
                result = listener(data)
                if inspect.iscoroutine(result):
                    spawn(result, name=f"listener:{name}")
            except Exception as exc:  # noqa: BLE001 - one listener's bug must not stop the others
                self._reporter.report_soon("(events)", f"events:{name}", summarize_error(exc))

    def clear(self) -> None:
        """Forget every listener (a reload re-registers them)."""
        self._listeners.clear()
