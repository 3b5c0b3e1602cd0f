"""Cancellation shared by providers, tools and the agent loop (Python's take on AbortSignal).

A signal is cheap to create and can be checked (``aborted``), awaited (``wait()``) or
observed with a callback. It is loop-agnostic until something awaits it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class AbortError(Exception):
    """Raised by :meth:`AbortSignal.throw_if_aborted` (Pi's ``AbortError``)."""


class AbortSignal:
    __slots__ = ("_event", "_listeners", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: str | None = None
        self._event: asyncio.Event | None = None
        self._listeners: list[Callable[[], None]] = []

    def add_listener(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` once on abort (at once if already aborted). Returns a remover."""
        if self.aborted:
            callback()
            return lambda: None
        self._listeners.append(callback)

        def remove() -> None:
            try:
                self._listeners.remove(callback)
            except ValueError:
                pass

        return remove

    def throw_if_aborted(self) -> None:
        """Raise :class:`AbortError` if the signal has fired (Pi's ``signal.throwIfAborted()``)."""
        if self.aborted:
            raise AbortError(self.reason or "aborted")

    async def wait(self) -> None:
        """Return when the signal is aborted."""
        if self.aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def _fire(self, reason: str | None) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        listeners, self._listeners = self._listeners, []
        for callback in listeners:
            # A listener must not break the others; errors here are programming errors.
            try:
                callback()
            except Exception:  # noqa: BLE001
                pass


class AbortController:
    """Owns a signal and is the only thing that can abort it."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str | None = None) -> None:
        self.signal._fire(reason)


async def sleep_or_abort(seconds: float, signal: AbortSignal | None) -> bool:
    """Sleep, waking early on abort. Returns True if the sleep was cut short by an abort."""
    if signal is None:
        await asyncio.sleep(seconds)
        return False
    if signal.aborted:
        return True
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({waiter}, timeout=seconds)
    finally:
        waiter.cancel()
    return signal.aborted


async def done_before_abort(task: asyncio.Future[Any], signal: AbortSignal) -> bool:
    """Wait for ``task`` or ``signal``, whichever comes first; True when ``task`` is done.

    ``task`` is never cancelled here (``asyncio.wait`` leaves it running): the caller decides
    whether work cut short by an abort is cancelled or left to finish.
    """
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    return task.done()
