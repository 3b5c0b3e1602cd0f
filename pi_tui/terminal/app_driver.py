"""The app's terminal driver: Textual's Linux driver with modifyOtherKeys (``extended_keys``),
made safe for a terminal that goes away under it.

When a terminal window closes (or an ssh link drops) the kernel hangs the pty up and sends
SIGHUP, then SIGCONT. Two things in Textual's driver then left pi running forever, holding its
session's lock:

- its SIGCONT handler starts application mode again, meant for coming back from Ctrl+Z, and so
  ran on a hangup too (or on any ``kill -CONT``), starting a second writer thread;
- a writer thread dies on its first write to the dead terminal (EIO), and every later write
  waits for room in its queue, which nobody empties.

So SIGCONT resumes only what Ctrl+Z suspended, and output to a terminal that is gone is dropped.
"""

from __future__ import annotations

import io
from typing import Any, TextIO, cast

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver

from .extended_keys import ExtendedKeysDriver
from .safe_strips import guard_strip_output
from .textual_internals import driver_output, replace_driver_output, resume_was_requested
from .typed_runs import group_runs_in_this_thread


class _HangupTolerantOutput:
    """The terminal's output file for Textual's writer thread; once the terminal is gone
    (writing fails) everything after is dropped instead of killing the thread."""

    def __init__(self, file: TextIO) -> None:
        self._file = file
        self.gone = False

    def write(self, text: str) -> None:
        if self.gone:
            return
        try:
            self._file.write(text)
        except OSError:
            self.gone = True

    def flush(self) -> None:
        if self.gone:
            return
        try:
            self._file.flush()
        except OSError:
            self.gone = True

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()


class AppDriver(ExtendedKeysDriver):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        output = driver_output(self)
        if output is not None:
            # Textual's writer thread only writes, flushes and asks for the file number.
            replace_driver_output(self, cast(io.TextIOWrapper, _HangupTolerantOutput(output)))

    def _sigcont_application(self, *args: Any) -> None:
        # Overrides Textual's private handler (textual_internals checks it is still there).
        # Textual marks a suspend it made itself (Ctrl+Z) and clears the mark when it resumes.
        if resume_was_requested(self):
            super()._sigcont_application(*args)


class TypedRunsDriver(AppDriver):
    """``AppDriver`` whose input thread hands printable keys that arrive together over as one
    ``TypedRun`` (:mod:`.typed_runs`), for an app that takes them (pi's main app)."""

    def run_input_thread(self) -> None:
        group_runs_in_this_thread()
        super().run_input_thread()


def driver_class_for(chosen: type[Driver], *, typed_runs: bool = False) -> type[Driver]:
    """``AppDriver`` in place of Textual's ordinary Linux driver; any other (headless, web) kept.
    Whichever it is, no text it draws can act on the terminal (:mod:`.safe_strips`).

    Args:
        chosen: the driver Textual picked.
        typed_runs: the app handles ``TypedRun`` events (keys typed together, see :mod:`.typed_runs`).
    """
    guard_strip_output()
    if chosen is not LinuxDriver:
        return chosen
    return TypedRunsDriver if typed_runs else AppDriver
