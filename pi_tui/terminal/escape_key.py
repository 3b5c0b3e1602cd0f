"""Esc is the Esc key even when the next key follows it quickly.

A terminal sends Esc as a lone ESC byte and Alt+S as ESC then ``s`` in one write, so a parser
tells them apart by waiting a moment after an ESC. Textual waits ``ESCAPE_DELAY`` (pi sets
Pi's 10 ms, see ``pi_tui/__init__.py``), but its input thread only checks that wait when
``select`` times out, every 100 ms: bytes arriving sooner are parsed first. So Esc followed
within 100 ms by a letter (stop the run, then type the next message at once) read as
Alt+letter, and the run went on while the message was queued behind it.

The parser is asked to settle an expired wait before it is fed, which is what the timeout
would have done had the thread been awake.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

_installed = False


def install() -> None:
    """Idempotent; wraps the xterm parser's ``feed``."""
    global _installed
    if _installed:
        return
    _installed = True
    from textual._xterm_parser import XTermParser

    feed = XTermParser.feed

    def feed_after_expired_wait(self: Any, data: str) -> Iterable[Any]:
        yield from self.tick()  # a lone ESC whose wait is over is the Esc key
        yield from feed(self, data)

    XTermParser.feed = feed_after_expired_wait  # type: ignore[method-assign]
