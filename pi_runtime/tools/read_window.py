"""Select a window of lines from a file in one streaming pass, as Pi's ``read`` counts them.

Pi's line model: the lines are what ``text.split("\\n")`` gives, so a file ending with a
newline has an empty last line (``"a\\nb\\n"`` is three lines) and a carriage return stays part
of its line. The selection is lines ``start..end`` joined with newlines; only what a budget can
show is kept in memory (one line past each budget, so the caller can tell it was reached), the
rest is counted in raw chunks, and a line longer than the byte budget is measured, never held.
"""

from __future__ import annotations

from dataclasses import field
from typing import BinaryIO

from ..ai.abort import AbortSignal
from ..records import record

_CHUNK = 256 * 1024


class WindowAborted(Exception):
    """The abort signal fired while the file was being read."""


@record(slots=True)
class Window:
    """What one pass over a file selected."""

    lines: list[str] = field(default_factory=list)
    """The first selected lines, decoded (invalid UTF-8 replaced)."""
    sizes: list[int] = field(default_factory=list)
    """UTF-8 size of each kept line (an over-long line is kept as ``""`` with its real size)."""
    total_lines: int = 1
    """Lines in the file (newlines + 1)."""
    selected_lines: int = 0
    selected_bytes: int = 0
    """Size of the selected lines joined with newlines."""
    last_selected_empty: bool = True


class _Reader:
    """Tracks the byte position and the last two bytes passed (to tell whether a line was empty)."""

    def __init__(self, fh: BinaryIO, signal: AbortSignal | None) -> None:
        self.fh = fh
        self.signal = signal
        self.pos = 0
        self.tail = b"\n\n"
        """The two bytes before ``pos`` (start of file counts as newlines)."""

    def _check(self) -> None:
        if self.signal is not None and self.signal.aborted:
            raise WindowAborted

    def skip_newlines(self, count: int) -> int:
        """Move just past the next ``count`` newlines (or to EOF); returns how many were passed."""
        passed = 0
        while passed < count:
            self._check()
            chunk = self.fh.read(_CHUNK)
            if not chunk:
                break
            found = chunk.count(b"\n")
            if passed + found < count:
                passed += found
                self._advance(chunk)
                continue
            # The count-th newline is in this chunk: stop right after it.
            cut = -1
            for _ in range(count - passed):
                cut = chunk.index(b"\n", cut + 1)
            passed = count
            self._advance(chunk[: cut + 1])
            self.fh.seek(self.pos)
        return passed

    def readline(self, budget: int) -> tuple[bytes | None, int, bool]:
        """The next line: (its bytes, or None when longer than ``budget``; its size; ended by newline)."""
        self._check()
        piece = self.fh.readline(budget + 1)
        ends = piece.endswith(b"\n")
        self._advance(piece)
        size = len(piece) - int(ends)
        if ends or len(piece) <= budget:
            return (piece[:-1] if ends else piece), size, ends
        while True:  # an over-long line: measure the rest without holding it
            self._check()
            more = self.fh.readline(_CHUNK)
            if not more:
                return None, size, False
            self._advance(more)
            ends = more.endswith(b"\n")
            size += len(more) - int(ends)
            if ends:
                return None, size, True

    def _advance(self, data: bytes) -> None:
        if data:
            self.pos += len(data)
            self.tail = (self.tail + data[-2:])[-2:]


def read_window(fh: BinaryIO, start: int, end: int | None, max_lines: int, max_bytes: int,
                signal: AbortSignal | None = None) -> Window:
    """Select lines ``start..end`` (0-based, ``end`` exclusive; None: to the end of the file).

    Args:
        fh: The file, opened for binary reading at offset 0.
        start: First selected line.
        end: Line after the last selected one.
        max_lines: Line budget of what is shown.
        max_bytes: Byte budget of what is shown.
        signal: Checked between chunks; raises ``WindowAborted`` when it fires.

    Returns:
        The window. When ``start`` is past the last line, nothing is selected and
        ``total_lines`` says how many lines there are.
    """
    reader = _Reader(fh, signal)
    win = Window()
    before = reader.skip_newlines(start)
    if before < start:
        win.total_lines = before + 1
        return win
    begin = reader.pos
    index = start
    last_empty = True
    kept_bytes = -1  # the first line has no newline before it
    while end is None or index < end:
        if len(win.lines) > max_lines or kept_bytes > max_bytes:
            break
        body, size, ended = reader.readline(max_bytes)
        win.lines.append("" if body is None else body.decode("utf-8", errors="replace"))
        win.sizes.append(size)
        kept_bytes += size + 1
        last_empty = size == 0
        index += 1
        if not ended:  # the last line of the file
            win.selected_lines = index - start
            win.selected_bytes = reader.pos - begin
            win.total_lines = index
            win.last_selected_empty = last_empty
            return win
    if end is not None and index >= end:
        # Every selected line was read: the selection ends before the newline just passed.
        selection_end = reader.pos - 1 if index > start else begin
    else:
        wanted = None if end is None else end - index
        passed = reader.skip_newlines(wanted if wanted is not None else 1 << 62)
        if wanted is not None and passed == wanted:
            selection_end = reader.pos - 1
            last_empty = reader.tail == b"\n\n"
            index += passed
        else:  # the file ended inside the selection
            selection_end = reader.pos
            last_empty = reader.tail[-1:] == b"\n"
            win.selected_lines = index + passed + 1 - start
            win.selected_bytes = selection_end - begin
            win.total_lines = index + passed + 1
            win.last_selected_empty = last_empty
            return win
    win.selected_lines = index - start
    win.selected_bytes = max(0, selection_end - begin)
    win.last_selected_empty = last_empty
    win.total_lines = index + reader.skip_newlines(1 << 62) + 1
    return win
