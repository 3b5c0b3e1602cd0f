"""``ErrorReporter``: the one channel every extension failure goes through.

A failure to load, an exception (or a ``SystemExit``, ``KeyboardInterrupt``, stray
``CancelledError``) in a handler, command, tool hook or the UI, a handler that overran its
time, a result of the wrong shape: each is logged (``pi.extensions``) and emitted as the
kernel event ``extension_error {extensionPath, event, error}``. Print mode writes it to stderr,
JSON/RPC write it, the app shows it. Failures before a session is attached wait until the
runner starts, then go out in order, once each.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..background import spawn
from .loader import LoadFailure

log = logging.getLogger("pi.extensions")

Emit = Callable[[Any], Awaitable[None]]


class ErrorReporter:
    """Collects extension failures and emits them as ``extension_error`` once the session is live."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str, str]] = []
        """Every emitted (extension path, event, error), oldest first."""
        self.failures: list[LoadFailure] = []
        """Extensions that could not be loaded."""
        self._pending: list[tuple[str, str, str]] = []
        self._emit: Emit | None = None

    def attach(self, emit: Emit | None) -> None:
        """Where ``extension_error`` events go from now on (None: keep them until attached)."""
        self._emit = emit

    def load_failed(self, failure: LoadFailure) -> None:
        """Record an extension that could not be loaded (reported once the runner starts)."""
        self.failures.append(failure)
        self.queue(failure.path, "load", failure.error)

    def queue(self, path: str, event: str, error: str) -> None:
        """Keep a failure for the next :meth:`flush` (no loop or no session yet)."""
        log.debug("extension %s failed in %s: %s", path, event, error)
        self._pending.append((path, event, error))

    async def report(self, path: str, event: str, error: str) -> None:
        """Emit a failure now, or keep it until :meth:`flush` when no session is attached."""
        if self._emit is None:
            self.queue(path, event, error)
            return
        await self._send(path, event, error)

    def report_soon(self, path: str, event: str, error: str) -> None:
        """:meth:`report` from synchronous code."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.queue(path, event, error)
            return
        spawn(self.report(path, event, error), name="extension-error")

    async def flush(self) -> None:
        """Emit what was kept, in order (called when the runner starts)."""
        pending, self._pending = self._pending, []
        for path, event, error in pending:
            await self._send(path, event, error)

    async def _send(self, path: str, event: str, error: str) -> None:
        from ..kernel.events import ExtensionErrorEvent

        # Logged at debug only: the event is the report, and hosts print it (print mode to
        # stderr); a warning here would print the same failure twice.
        log.debug("extension %s failed in %s: %s", path, event, error)
        self.errors.append((path, event, error))
        if self._emit is not None:
            await self._emit(ExtensionErrorEvent(path, event, error))
