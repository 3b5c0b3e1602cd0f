"""``fsync`` of an open session file on a thread of its own, so appends never wait for the disk
on the event loop.

The append itself stays a synchronous ``write`` (to the page cache: fast, and the order of lines
is the order of calls). Each append then asks the ``Syncer`` for an ``fsync``; requests that pile up
while one is running are served by the next one, which covers every write before it. ``close``
waits for the last, so a session that was closed is on disk. A failed ``fsync`` is kept and
raised by the next append or ``close`` (``take_error``), never lost.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable


class Syncer:
    """Flushes one file descriptor to disk in the background.

    Args:
        fd: The open file.
        new_entry: The directory of a file just created: its entry is flushed first, with the file's
            first ``fsync`` (on the event loop it took 13 ms, more on a busy disk, in front of a
            new session's first request).
    """

    def __init__(self, fd: int, new_entry: Callable[[], None] | None = None) -> None:
        self._fd = fd
        self._new_entry = new_entry
        self._cond = threading.Condition()
        self._requested = 0
        self._synced = 0
        self._error: OSError | None = None
        self._closing = False
        self._thread: threading.Thread | None = None

    def request(self) -> None:
        """Everything written so far should reach the disk (soon)."""
        with self._cond:
            self._requested += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pi-session-fsync", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def take_error(self) -> OSError | None:
        """The last ``fsync`` failure since the previous call (None if there was none)."""
        with self._cond:
            error, self._error = self._error, None
        return error

    def wait(self) -> None:
        """Until every requested ``fsync`` has run."""
        with self._cond:
            while self._synced < self._requested and self._thread is not None:
                self._cond.wait()

    def close(self) -> None:
        """Wait for the last ``fsync`` and stop the thread (the descriptor stays open)."""
        if sys.is_finalizing():
            # A writer closed at interpreter exit: daemon threads no longer run, so waiting for
            # ours would hang the exit. The fsync is done here instead.
            if self._new_entry is not None:
                self._new_entry()
            try:
                os.fsync(self._fd)
            except OSError:
                pass
            return
        self.wait()
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._synced >= self._requested and not self._closing:
                    self._cond.wait()
                if self._synced >= self._requested:
                    return  # closing, nothing left to flush
                target = self._requested
            if self._new_entry is not None:
                flush_entry, self._new_entry = self._new_entry, None
                flush_entry()  # best effort, as before (not every system lets a directory be synced)
            try:
                os.fsync(self._fd)
            except OSError as exc:
                with self._cond:
                    self._error = exc
            with self._cond:
                self._synced = target
                self._cond.notify_all()
