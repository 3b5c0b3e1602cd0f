"""Newline-delimited messages from a stdio MCP server, split in linear time with a size cap.

Joining every chunk onto the buffer and splitting it again made one long line quadratic (a
100 MB answer never finished). Here each chunk is searched once; a line over the cap is not
kept: only its first and last few kilobytes are, so the caller can still find the request id
the server was answering and fail that request at once with a clear error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""The largest message pi reads from a server; a larger one fails the request it answers."""
KEPT_BYTES = 4096
"""Bytes kept from each end of an over-long line (a response's ``id`` is at one end or the other)."""
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')


@dataclass(slots=True)
class OverlongLine:
    """A line longer than the cap, with what was kept of it."""

    head: bytes
    tail: bytes
    size: int
    """Its length in bytes."""

    def request_id(self) -> int | str | None:
        """The ``id`` at the start or end of the line, if one is there (a response's)."""
        for part in (self.head, self.tail):
            found = _ID.search(part)
            if found is not None:
                text = found.group(1).decode("utf-8", "replace")
                return int(text) if not text.startswith('"') else text[1:-1]
        return None


class LineSplitter:
    """Feed chunks, get complete lines (without the newline) and :class:`OverlongLine` markers."""

    def __init__(self, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._overlong: OverlongLine | None = None

    def feed(self, chunk: bytes) -> Iterator[bytes | OverlongLine]:
        """The lines ``chunk`` completes, in order."""
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._add(piece)
            if end < 0:
                return
            start = end + 1
            yield self._finish()

    def _add(self, piece: bytes) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._overlong is not None:
            self._overlong.tail = (self._overlong.tail + piece)[-KEPT_BYTES:]
            self._overlong.size = self._size
            return
        self._parts.append(piece)
        if self._size > self.limit:
            whole = b"".join(self._parts)
            self._overlong = OverlongLine(whole[:KEPT_BYTES], whole[-KEPT_BYTES:], self._size)
            self._parts = []

    def _finish(self) -> bytes | OverlongLine:
        line: bytes | OverlongLine = self._overlong if self._overlong is not None else b"".join(self._parts)
        self._parts, self._size, self._overlong = [], 0, None
        return line

    @property
    def overlong_pending(self) -> OverlongLine | None:
        """The over-long line being read now (its end not seen yet), if any."""
        return self._overlong
