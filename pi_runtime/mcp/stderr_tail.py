"""A stdio MCP server's stderr, kept to its last few thousand characters."""

from __future__ import annotations

import asyncio
import os
from typing import Any

STDERR_TAIL_CHARS = 2000

class StderrTail:
    """A pipe for a stdio server's stderr that keeps only its last few thousand characters.

    Read with ``add_reader`` on the event loop, so a server that logs a lot to stderr for hours
    costs a bounded string, not a growing file.
    """

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        self._read_fd: int | None = read_fd
        self.write_end: Any = os.fdopen(write_fd, "w")
        """What the SDK passes to the server process as its stderr."""
        self._text = ""
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(read_fd, self._read)

    def _read(self) -> None:
        if self._read_fd is None:
            return
        try:
            data = os.read(self._read_fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._stop_reading()
            return
        self._text = (self._text + data.decode("utf-8", "replace"))[-4 * STDERR_TAIL_CHARS:]

    def _stop_reading(self) -> None:
        if self._read_fd is not None:
            self._loop.remove_reader(self._read_fd)
            os.close(self._read_fd)
            self._read_fd = None

    def release_write_end(self) -> None:
        """Close pi's copy of the write end (after the server started, or when it never will)."""
        if not self.write_end.closed:
            self.write_end.close()

    def tail(self) -> str:
        """The last characters the server wrote, drained up to now."""
        self._read()
        return self._text.strip()[-STDERR_TAIL_CHARS:]

    def close(self) -> None:
        """Stop reading and close both ends."""
        self.release_write_end()
        self._stop_reading()
