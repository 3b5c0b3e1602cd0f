"""``ExtensionCall``: the API's asynchronous calls, made impossible to get wrong.

In Pi ``pi.setThinkingLevel("high")`` or ``ctx.abort()`` act at once; in Python an ``async def``
called without ``await`` does nothing at all. So every asynchronous call of ``pi`` and ``ctx``
(``set_model``, ``set_thinking_level``, ``exec``, ``send_user_message``, ``ctx.ui.confirm``...)
starts its work immediately and returns an ``ExtensionCall``:

- ``await`` it for the result (or the exception);
- leave it, and the work still happens; a failure is reported as ``extension_error``;
- use it as a value by mistake (``if ctx.ui.confirm(...):``, an f-string) and it raises a
  ``TypeError`` that says to add ``await`` — a gate can never read an un-awaited dialog as "yes";
- a dialog whose answer is dropped unread is reported, since that is always a bug.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_running: set[asyncio.Future[Any]] = set()


class ExtensionCall(Generic[T]):
    """A call that is already running; ``await`` it for its result.

    Args:
        work: The coroutine doing the call (scheduled at once on the running loop).
        what: How the call reads in code (``ctx.ui.confirm(...)``), for messages.
        report: Called with an error text when the work fails and nobody awaits it, or when an
            answer that matters is dropped unread.
        answer_matters: A dialog: dropping the answer unread is reported.
    """

    __slots__ = ("_answer_matters", "_awaited", "_report", "_task", "_what")

    def __init__(self, work: Coroutine[Any, Any, T], what: str, report: Callable[[str], None] | None = None,
                 *, answer_matters: bool = False) -> None:
        from .dispatch import resume_coroutine

        self._what = what
        self._report = report
        self._answer_matters = answer_matters
        self._awaited = False
        loop = asyncio.get_running_loop()
        # The first step runs now, so what a call does before it first waits has happened when
        # it returns (Pi's pi.setThinkingLevel() is synchronous; get_thinking_level() sees it).
        future: asyncio.Future[T]
        try:
            waiting_on = work.send(None)
        except StopIteration as stop:
            future = loop.create_future()
            future.set_result(stop.value)
        except BaseException as exc:  # noqa: BLE001 - kept for whoever awaits, or reported
            future = loop.create_future()
            future.set_exception(exc)
        else:
            future = loop.create_task(resume_coroutine(work, waiting_on))
        self._task = future
        _running.add(future)
        future.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Future[Any]) -> None:
        _running.discard(task)
        if task.cancelled() or self._awaited:
            return
        exc = task.exception()
        if exc is not None and self._report is not None:
            self._report(f"{type(exc).__name__}: {exc} (in {self._what}, which was not awaited)")

    def __await__(self) -> Generator[Any, None, T]:
        self._awaited = True
        return self._task.__await__()

    def done(self) -> bool:
        """Whether the call has finished."""
        return self._task.done()

    def cancel(self) -> bool:
        """Stop the call (a dialog closes with its default)."""
        return self._task.cancel()

    def _misused(self) -> TypeError:
        return TypeError(f"{self._what} is asynchronous: write `await {self._what}` to get its result")

    def __bool__(self) -> bool:
        raise self._misused()

    def __str__(self) -> str:
        raise self._misused()

    def __format__(self, spec: str) -> str:
        raise self._misused()

    def __iter__(self) -> Any:
        raise self._misused()

    def __repr__(self) -> str:
        state = "done" if self._task.done() else "running"
        return f"<ExtensionCall {self._what} {state}>"

    def __del__(self) -> None:
        try:
            if self._answer_matters and not self._awaited and self._report is not None:
                self._report(f"{self._what} was not awaited: its answer was dropped (write `await {self._what}`)")
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass
