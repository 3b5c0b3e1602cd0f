"""Esc is the Esc key at once, and even when the next key follows it quickly.

A terminal sends Esc as a lone ESC byte and Alt+S as ESC then ``s`` in one write, so a parser
tells them apart by waiting a moment after an ESC. Textual waits ``ESCAPE_DELAY`` (pi sets
Pi's 10 ms, see ``pi_tui/__init__.py``), but its input thread only looks at that wait when
its ``select`` returns, which is on the next bytes or after 100 ms. So:

- bytes arriving within 100 ms were parsed before the wait was settled: Esc followed by a
  letter (stop the run, then type the next message at once) read as Alt+letter, and the run
  went on while the message was queued behind it;
- a lone Esc (closing a dialog, stopping a run) took effect 100-125 ms after the press.

Two small wrappers fix both without replacing Textual's input loop: the parser settles an
expired wait before it is fed, and the thread's ``select`` wakes up when a wait runs out.
"""

from __future__ import annotations

import selectors
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from .textual_internals import escape_wait_deadline, linux_driver_module, textual_time, xterm_parser_class

_installed = False
_wake_at: float | None = None
"""When the parser's wait after a lone ESC runs out (Textual's clock); None: no wait pending."""


class _WakingSelector(selectors.SelectSelector):
    """Textual's input selector, returning when the parser's wait runs out."""

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        wake_at = _wake_at
        if wake_at is not None:
            left = max(0.0, wake_at - textual_time())
            timeout = left if timeout is None else min(timeout, left)
        return super().select(timeout)


def install() -> None:
    """Idempotent; wraps the xterm parser's ``feed`` and the Linux driver's selector."""
    global _installed
    if _installed:
        return
    _installed = True
    parser = xterm_parser_class()
    feed, tick = parser.feed, parser.tick

    def feed_after_expired_wait(self: Any, data: str) -> Iterable[Any]:
        global _wake_at
        yield from self.tick()  # a lone ESC whose wait is over is the Esc key, whatever comes next
        yield from feed(self, data)
        _wake_at = escape_wait_deadline(self)

    def tick_noting_the_wait(self: Any) -> Iterable[Any]:
        global _wake_at
        yield from tick(self)
        _wake_at = escape_wait_deadline(self)  # settled (None), or still to come

    parser.feed = feed_after_expired_wait
    parser.tick = tick_noting_the_wait
    # The input thread builds `selectors.SelectSelector()` from its module's globals, so this module name
    # (checked by textual_internals) is where the waking selector goes in.
    linux_driver_module().selectors = SimpleNamespace(**{**vars(selectors), "SelectSelector": _WakingSelector})
