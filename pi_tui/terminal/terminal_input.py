"""``ctx.ui.on_terminal_input``: extensions see terminal input before the editor and the app's keys.

As in Pi, a listener gets the raw terminal data: Textual has already parsed the bytes into key
events, so ``key_sequences.sequence_for`` rebuilds the sequence the key sends (``"\\x1b"``,
``"\\x1b[A"``, ``"\\x18"``, ``"a"``), and a paste arrives as one string wrapped in the bracketed
paste markers. A listener returns ``{"consume": True}`` (or True) to swallow the input,
``{"data": "..."}`` to replace it (the next listener sees the replacement; ``""`` swallows), and
anything else to let it through. Listeners run in the order they were added, on every screen, as
Pi's do. A listener that raises (or returns ``data`` that is not a string) is skipped and
reported once as an ``extension_error``: a broken extension must not take the keyboard away.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from textual import events

log = logging.getLogger("pi.extensions")


def editor_key(event: events.Key) -> str:
    """What an extension's ``CustomEditor.handle_input`` is given: the character a printable key
    types, else the key's Textual name (``"escape"``, ``"ctrl+x"``)."""
    if event.is_printable and event.character:
        return event.character
    return event.key


def _answer(result: Any, data: str, complain: Callable[[str], None]) -> str | None:
    """A listener's answer applied to ``data``: the data to carry on with, None when swallowed."""
    if result is True:
        return None
    if isinstance(result, dict):
        consume, replacement = result.get("consume"), result.get("data")
    else:
        consume, replacement = getattr(result, "consume", False), getattr(result, "data", None)
    if consume:
        return None
    if isinstance(replacement, str):
        return replacement or None
    if replacement is not None:
        # The key must not vanish or become garbage: it goes on unchanged, and the author hears why.
        complain(f"on_terminal_input listener returned data that is not a string ({type(replacement).__name__}); "
                 "the input was kept")
    return data


def _origin(handler: Callable[..., Any]) -> str:
    """The file a listener was written in: where its extension_error points."""
    code = getattr(handler, "__code__", None) or getattr(getattr(handler, "__func__", None), "__code__", None)
    return str(code.co_filename) if code is not None else "<extension>"


class TerminalInput:
    """The app's terminal input listeners."""

    def __init__(self, report: Callable[[str, str], None] | None = None) -> None:
        self.report = report
        """``report(path, message)``: a listener's failure as an ``extension_error`` (set by the app)."""
        self._listeners: list[Callable[[str], Any]] = []
        self._reported: set[tuple[int, str]] = set()
        """What was reported already: a listener that breaks on every key is reported once."""
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

    @property
    def active(self) -> bool:
        return bool(self._listeners)

    def dispatch(self, data: str) -> str | None:
        """Offer ``data`` to every listener in turn; returns what is left of it (``data`` itself
        when no one changed it), or None when a listener swallowed it (the rest do not see it)."""
        for handler in list(self._listeners):
            try:
                result = handler(data)
            except Exception as exc:
                log.exception("terminal input listener failed")
                self._complain(handler, f"on_terminal_input listener failed: {type(exc).__name__}: {exc}")
                continue
            if inspect.isawaitable(result):
                # Pi's listeners answer at once; an async one runs on but cannot change the input.
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(functools.partial(self._settled, handler))
                continue
            answered = _answer(result, data, functools.partial(self._complain, handler))
            if answered is None:
                return None
            data = answered
        return data

    def _settled(self, handler: Callable[[str], Any], task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            self._complain(handler, f"on_terminal_input listener failed: {type(exc).__name__}: {exc}")

    def _complain(self, handler: Callable[[str], Any], message: str) -> None:
        if self.report is not None and (id(handler), message) not in self._reported:
            self._reported.add((id(handler), message))
            try:
                self.report(_origin(handler), message)
            except Exception:  # reporting must never cost the key stream
                log.exception("reporting a terminal input listener failed")
