"""``Dispatcher``: calls extension handlers so that no handler can take pi down or hold it up.

Every handler, sync or async, is called through :meth:`Dispatcher.call`:

- whatever it raises is contained and reported as ``extension_error`` — ``Exception``, but
  also ``SystemExit`` (``sys.exit()``), ``KeyboardInterrupt`` and a ``CancelledError`` of its
  own making, which would otherwise end pi or the run silently;
- an async handler runs in its own task with a time limit (:attr:`Dispatcher.timeout`, time
  spent waiting on a ``ctx.ui`` dialog not counted); past it the handler is cancelled and
  reported, and the caller goes on as if it had failed;
- ``abort`` wins: :meth:`Dispatcher.abort` cancels every in-flight handler of a run's events
  (``input``, ``tool_call``, ``context``, ``message_*``...), so a handler that never returns
  cannot keep the session busy.

The caller decides what a failure means for its event (``tool_call`` blocks the call, a gate
does not cancel, a transform keeps the value so far): see :mod:`.agent_hooks` and
:mod:`.kernel_hooks`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

from ..records import record
from .loader import summarize_error
from .registry import Extension, ExtensionRegistry
from .reporter import ErrorReporter

DEFAULT_TIMEOUT = 120.0
"""Seconds an async handler may run (not counting time a dialog waits for the user)."""
SHUTDOWN_TIMEOUT = 3.0
"""Seconds each ``session_shutdown`` handler gets: pi must be able to exit."""
ABORT_GRACE = 0.5
"""While a run is being aborted, seconds a handler of its events (``agent_end``, ``agent_settled``...) gets."""
_SLICE = 0.5


@record(slots=True)
class CallOutcome:
    """How one handler call ended."""

    value: Any = None
    """What it returned (None when it failed)."""
    failed: bool = False
    """It raised, overran its time, or was aborted."""
    error: str | None = None
    """The reported failure (None for an abort, which is not the extension's fault)."""
    aborted: bool = False


class EscapeAttempt(Exception):
    """A ``SystemExit`` or ``KeyboardInterrupt`` raised by extension code, held as an ordinary exception.

    asyncio re-raises those two out of the event loop when a task's coroutine raises them, which
    would end pi; extension work is wrapped so they arrive as this instead.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(describe_escape(original))
        self.original = original


def describe_escape(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): an extension may not exit pi (sys.exit in extension code)"
    return "KeyboardInterrupt raised by extension code"


async def contained(awaitable: Any) -> Any:
    """Await extension work; ``SystemExit``/``KeyboardInterrupt`` become :class:`EscapeAttempt`."""
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as exc:
        raise EscapeAttempt(exc) from exc


async def resume_coroutine(coro: Any, waiting_on: Any) -> Any:
    """Carry on a coroutine that suspended on its first step, as an asyncio task would.

    Most handlers finish without ever suspending, so :meth:`Dispatcher.call` runs that first
    step in place (no task, no loop round trip: ``message_update`` fires per streamed delta)
    and hands only the rest to a task running this; ``ExtensionCall`` does the same.
    ``SystemExit``/``KeyboardInterrupt`` come out as :class:`EscapeAttempt`.
    """
    try:
        while True:
            failure: BaseException | None = None
            try:
                if waiting_on is None:  # a bare yield (asyncio.sleep(0))
                    await asyncio.sleep(0)
                else:
                    # As a task does: the future was handed up to be waited on, not awaited again.
                    waiting_on._asyncio_future_blocking = False
                    await waiting_on  # its result or exception is the coroutine's to read
            except asyncio.CancelledError as exc:
                if waiting_on is None or not waiting_on.cancelled():
                    failure = exc  # nothing the coroutine awaits carries the cancel: throw it in
            except BaseException:  # noqa: BLE001 - the coroutine reads the future's outcome itself
                pass
            try:
                waiting_on = coro.throw(failure) if failure is not None else coro.send(None)
            except StopIteration as stop:
                return stop.value
    except (SystemExit, KeyboardInterrupt) as exc:
        raise EscapeAttempt(exc) from exc


@functools.lru_cache(maxsize=4096)
def positional_count(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` takes (5 when it takes ``*args`` or cannot be inspected)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 5
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 5
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class Dispatcher:
    """Calls handlers of one runner's extensions (see the module docstring).

    Args:
        registry: Who handles which event.
        reporter: Where failures go.
        context_for: Builds the ``ctx`` a handler of an extension receives.
        waiting_on_user: True while a ``ctx.ui`` dialog is open (that time does not count).
        timeout: Seconds an async handler may take; None for no limit.
    """

    def __init__(
        self,
        registry: ExtensionRegistry,
        reporter: ErrorReporter,
        context_for: Callable[[Extension], Any],
        *,
        waiting_on_user: Callable[[], bool] = lambda: False,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        self._registry = registry
        self._reporter = reporter
        self._context_for = context_for
        self._waiting_on_user = waiting_on_user
        self.timeout = timeout
        self._abortable: set[asyncio.Future[Any]] = set()
        self._aborted: set[asyncio.Future[Any]] = set()
        self._abandoned: set[asyncio.Future[Any]] = set()
        self._abort_signal: asyncio.Future[None] | None = None
        self._aborting = False

    # ------------------------------------------------------------------ one call

    async def call(
        self,
        ext: Extension,
        handler: Callable[..., Any],
        args: tuple[Any, ...],
        *,
        event: str,
        ctx: Any = None,
        abortable: bool = True,
        timeout: float | bool | None = True,
    ) -> CallOutcome:
        """Call ``handler(*args, ctx)`` (trimmed to what it accepts) and contain whatever happens.

        Args:
            ext: The extension the handler belongs to (named in reports).
            handler: Sync or async callable.
            args: Positional arguments before ``ctx``.
            event: What is reported as the failing event (``tool_call``, ``command:name``...).
            ctx: The context to pass; the extension's default context when None.
            abortable: Whether :meth:`abort` cancels it.
            timeout: True for :attr:`timeout`, else seconds or None (no limit).
        """
        full = (*args, ctx if ctx is not None else self._context_for(ext))
        wanted = positional_count(handler)
        try:
            result = handler(*full[: max(1, min(wanted, len(full)))])
        except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt too: contained, reported
            return await self._failed(ext, event, exc)
        if not inspect.isawaitable(result):
            return CallOutcome(value=result)
        if inspect.iscoroutine(result):
            try:
                waiting_on = result.send(None)
            except StopIteration as stop:  # finished without suspending: the common case
                return CallOutcome(value=stop.value)
            except BaseException as exc:  # noqa: BLE001 - as for a sync handler
                return await self._failed(ext, event, exc)
            result = resume_coroutine(result, waiting_on)
        limit = self.timeout if timeout is True else (None if timeout is False else timeout)
        return await self._await(ext, event, result, abortable, limit)

    def _limit(self, limit: float | None, abortable: bool) -> float | None:
        if abortable and self._aborting:
            return ABORT_GRACE if limit is None else min(limit, ABORT_GRACE)
        return limit

    async def run(self, ext: Extension, awaitable: Any, *, event: str, abortable: bool = True,
                  timeout: float | bool | None = True) -> CallOutcome:
        """Await work an extension started (an async factory) with the same containment as :meth:`call`."""
        limit = self.timeout if timeout is True else (None if timeout is False else timeout)
        return await self._await(ext, event, awaitable, abortable, limit)

    async def _await(self, ext: Extension, event: str, awaitable: Any, abortable: bool,
                     limit: float | None) -> CallOutcome:
        task = asyncio.ensure_future(contained(awaitable))
        if abortable:
            self._abortable.add(task)
        in_abort = abortable and self._aborting
        limit = self._limit(limit, abortable)
        try:
            if not await self._wait(task, limit, abortable):
                task.cancel()
                self._abandon(task)
                if in_abort:  # the run is being aborted: not the extension's fault
                    return CallOutcome(failed=True, aborted=True)
                error = f"TimeoutError: the handler did not return within {limit:g} s and was cancelled"
                await self._reporter.report(ext.path, event, error)
                return CallOutcome(failed=True, error=error)
        except asyncio.CancelledError:
            # Our caller is being cancelled: take the handler down with it.
            task.cancel()
            self._abandon(task)
            raise
        finally:
            self._abortable.discard(task)
        if task in self._aborted:
            self._aborted.discard(task)
            self._abandon(task)
            return CallOutcome(failed=True, aborted=True)
        if task.cancelled():
            return await self._failed(ext, event, asyncio.CancelledError())
        raised = task.exception()
        if raised is not None:
            return await self._failed(ext, event, raised)
        return CallOutcome(value=task.result())

    async def _wait(self, task: asyncio.Future[Any], limit: float | None, abortable: bool) -> bool:
        """Wait for ``task`` (or an abort); False when it overran ``limit`` (dialog time excluded)."""
        waiters: set[asyncio.Future[Any]] = {task}
        if abortable:
            if self._abort_signal is None or self._abort_signal.done():
                self._abort_signal = asyncio.get_running_loop().create_future()
            waiters.add(self._abort_signal)
        if limit is None:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            return True
        remaining = limit
        while True:
            started = time.monotonic()
            done, _ = await asyncio.wait(waiters, timeout=min(remaining, _SLICE), return_when=asyncio.FIRST_COMPLETED)
            if done:
                return True
            if not self._waiting_on_user():
                remaining -= time.monotonic() - started
            if remaining <= 0:
                return False

    def _abandon(self, task: asyncio.Future[Any]) -> None:
        # A handler that swallows cancellation may linger; keep a reference so it is not
        # collected mid-flight, and never wait for it.
        if not task.done():
            self._abandoned.add(task)
            task.add_done_callback(self._abandoned.discard)

    async def _failed(self, ext: Extension, event: str, exc: BaseException) -> CallOutcome:
        if isinstance(exc, asyncio.CancelledError):
            error = "CancelledError: the handler was cancelled from inside (it raised CancelledError)"
        elif isinstance(exc, (SystemExit, KeyboardInterrupt)):
            error = describe_escape(exc)
        elif isinstance(exc, EscapeAttempt):
            error = str(exc)
        else:
            error = summarize_error(exc, ext.path)
        await self._reporter.report(ext.path, event, error)
        return CallOutcome(failed=True, error=error)

    # ------------------------------------------------------------------ all handlers of an event

    async def emit(self, name: str, event: Any, *, abortable: bool = True,
                   timeout: float | bool | None = True) -> list[Any]:
        """Run every handler of ``name``; a failure is reported and the next handler runs.

        Returns:
            The non-None results, in order.
        """
        results = []
        for ext, handler in self._registry.handlers(name):
            outcome = await self.call(ext, handler, (event,), event=name, abortable=abortable, timeout=timeout)
            if outcome.aborted:
                break
            if outcome.value is not None:
                results.append(outcome.value)
        return results

    # ------------------------------------------------------------------ abort

    def abort(self, *, run_in_progress: bool = True) -> None:
        """Cancel every in-flight handler of a run's events (the session is aborting).

        Until :meth:`settled`, handlers of the aborted run's remaining events get only
        :data:`ABORT_GRACE` seconds each, so a handler that hangs on every event cannot hold it up.
        """
        self._aborting = run_in_progress
        for task in list(self._abortable):
            self._aborted.add(task)
            task.cancel()
        # Wake the waiters even when a handler swallows its cancellation.
        if self._abort_signal is not None and not self._abort_signal.done():
            self._abort_signal.set_result(None)
        self._abort_signal = None

    def settled(self) -> None:
        """The aborted run has settled (or a new one starts): handlers get their full time again."""
        self._aborting = False
