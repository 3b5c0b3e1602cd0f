"""Keys typed while ``pi`` starts, before the full-screen app owns the terminal.

Until the app switches the terminal to raw mode (after ~0.5 s of imports), the terminal is
in its normal line mode: what the user types is echoed onto the shell's screen, and Enter
reaches the program as a line feed, which the app reads as Ctrl+J (a new line in the editor),
so ``hi`` + Enter typed at once would end up as an unsent line. The launcher therefore takes
the terminal out of line mode the moment it knows it is interactive, collects what was typed
before that (whole lines, already edited by the terminal, and a partial last line), and hands
it to the app, which sends each line as if Enter had been pressed there. Keys typed after the
switch reach the app unchanged (Enter as Enter). The terminal's own settings are put back
when pi exits.
"""

from __future__ import annotations

import os
import re
import select
import sys
from dataclasses import field
from typing import Any

from ..records import record

_ESCAPES = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?")
"""Arrow keys and other escape sequences typed at the shell's prompt (dropped)."""


@record
class Typeahead:
    """What was typed before the app started."""

    lines: list[str] = field(default_factory=list)
    """Lines ended with Enter, oldest first (each is sent)."""
    partial: str = ""
    """Text typed after the last Enter (put in the editor)."""

    @classmethod
    def parse(cls, data: bytes) -> Typeahead:
        """Split raw typeahead (Enter as ``\\n``, as the terminal's line mode delivers it)."""
        text = _ESCAPES.sub("", data.decode("utf-8", "replace")).replace("\r\n", "\n").replace("\r", "\n")
        *done, rest = text.split("\n")
        printable = [_printable(line) for line in done]
        return cls([line for line in printable if line.strip()], _printable(rest))


def _printable(text: str) -> str:
    return "".join(ch for ch in text if ch == "\t" or ch >= " ")


class TerminalHold:
    """Takes the terminal out of line mode early and restores its settings at the end."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._saved: list[Any] | None = None

    @classmethod
    def start(cls) -> TerminalHold | None:
        """Hold stdin's terminal (None when stdin is not a terminal or cannot be changed).
        SIGTERM and SIGHUP put its settings back from before they are changed
        (:meth:`restore_on_signals`): a signal just after the change, on a loaded machine, left
        the shell's terminal mute."""
        try:
            import termios
        except ImportError:  # not a POSIX system
            return None
        fd = sys.stdin.fileno() if sys.stdin is not None else -1
        if fd < 0 or not os.isatty(fd):
            return None
        hold = cls(fd)
        try:
            hold._saved = termios.tcgetattr(fd)
            hold.restore_on_signals()
            mode = termios.tcgetattr(fd)
            mode[0] &= ~termios.ICRNL  # Enter stays a carriage return
            mode[3] &= ~(termios.ICANON | termios.ECHO)  # no line buffering, nothing echoed
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
            termios.tcsetattr(fd, termios.TCSANOW, mode)
        except (OSError, termios.error):
            return None
        return hold

    def take_typeahead(self) -> Typeahead:
        """What was typed before :meth:`start` (read without waiting)."""
        chunks: list[bytes] = []
        try:
            while select.select([self._fd], [], [], 0)[0]:
                chunk = os.read(self._fd, 4096)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            pass
        return Typeahead.parse(b"".join(chunks))

    def restore_on_signals(self) -> None:
        """SIGTERM or SIGHUP before the app takes them over (``pi_tui/terminal/exit_signals.py``)
        put the terminal's settings back, then end pi as the signal would have: killed outright,
        the shell would be left with nothing echoed."""
        import signal

        def restore_and_end(signum: int, frame: Any) -> None:
            self.restore()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, restore_and_end)

    def restore(self) -> None:
        """Put the terminal's settings back as they were when pi started."""
        if self._saved is None:
            return
        import termios

        try:
            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
        except (OSError, termios.error):
            pass
