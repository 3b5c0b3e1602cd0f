"""Python's full garbage collections wait while a session runs, and happen once the app is idle.

A full (generation 2) collection scans every object the collector tracks and was not frozen at
start-up. While an answer streams, the transcript's new blocks, strips and caches pile up and
trigger one: measured in the middle and at the end of a 20,000-word answer, pauses of 190 and
385 ms (load ~10 on 2 cores; 75 ms on a quiet machine), during which no key echoes and no frame
is drawn. So from the start of a run the collector keeps collecting the young generations (where
most garbage dies) but not the old one; once the last run has settled and the user has not typed
for a moment, one full collection runs (after the answer's last frame) and the old generation's
threshold comes back.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.timer import Timer


class IdleClock(Protocol):
    """What the deferral needs of the app: when the user last typed, and its timers."""

    @property
    def last_input_at(self) -> float:
        """``time.perf_counter()`` of the last key or paste."""
    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
    def set_timer(self, delay: float, callback: Callable[[], Any] | None = None, *, name: str | None = None,
                  pause: bool = False) -> Timer: ...

QUIET_SECONDS = 1.0
"""No key for this long (and no run) before the deferred full collection."""
_NO_FULL_COLLECTIONS = 1 << 30
"""A generation-2 threshold no run reaches."""


class FullCollections:
    """Tracks which open sessions run, and defers full collections past their runs."""

    def __init__(self, app: IdleClock) -> None:
        self._app = app
        self._running: set[object] = set()
        self._saved: tuple[int, int, int] | None = None
        self._pending = False

    def run_started(self, owner: object) -> None:
        """``owner``'s run began (``agent_start``)."""
        if self._saved is None:
            thresholds = gc.get_threshold()
            self._saved = thresholds
            gc.set_threshold(thresholds[0], thresholds[1], _NO_FULL_COLLECTIONS)
        self._running.add(owner)

    def run_settled(self, owner: object) -> None:
        """``owner``'s run is over (``agent_settled``), or ``owner`` was closed: after the last one,
        one full collection once the app is idle, and full collections come back."""
        if owner not in self._running:
            return
        self._running.discard(owner)
        if not self._running and not self._pending:
            self._pending = True
            self._app.call_after_refresh(self._collect_when_idle)  # after the answer's last frame

    def _collect_when_idle(self) -> None:
        if self._running:
            self._pending = False  # the next settle schedules it again
            return
        idle_for = time.perf_counter() - self._app.last_input_at
        if idle_for < QUIET_SECONDS:
            self._app.set_timer(min(QUIET_SECONDS, max(0.05, QUIET_SECONDS - idle_for)), self._collect_when_idle)
            return
        self._pending = False
        gc.collect()  # before the thresholds come back: their counts would start one at once
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
