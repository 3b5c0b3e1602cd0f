"""Terminal escapes an extension writes to stdout reach the terminal, as in Pi.

Textual captures ``sys.stdout`` while the app runs (a ``print()`` would scribble over the
screen), so Pi's notify example, which writes OSC 777 / OSC 99 desktop notifications with
``process.stdout.write``, notified nobody. OSC sequences (``ESC ]`` … ``BEL`` or ``ESC \\``) do
not draw or move the cursor, so they are passed to the terminal; everything else stays in
Textual's capture (its log), as before.
"""

from __future__ import annotations

import re
from typing import Any

from .textual_internals import running_driver

_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_OPEN = "\x1b]"
_LIMIT = 4096
"""An unterminated sequence longer than this is dropped rather than held forever."""


class TerminalPassthrough:
    """Receives the app's captured stdout (``on_print``) and forwards whole OSC sequences."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._partial = ""

    def feed(self, text: str) -> None:
        data = self._partial + text
        self._partial = ""
        found = _OSC.findall(data)
        tail = data.rfind(_OPEN)
        if tail != -1 and not _OSC.match(data, tail) and len(data) - tail < _LIMIT:
            self._partial = data[tail:]  # the rest comes with the next write
        if found:
            self._write("".join(found))

    def _write(self, data: str) -> None:
        driver = running_driver(self.app)
        if driver is None or self.app.is_headless:
            return
        driver.write(data)
        driver.flush()
