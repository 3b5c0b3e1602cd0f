"""Collect command output with bounded memory: a rolling tail plus a full copy on disk.

Only the tail of a command's output is shown to the model, so only the tail stays in
memory (at least twice the byte budget, so the kept lines are always complete). Once the
output outgrows the budget, everything — including what was already buffered — is
streamed to a temp file readable only by the user, whose path goes into the result.
"""

from __future__ import annotations

import os
import tempfile
from collections import deque
from typing import Any

from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size, truncate_tail


class OutputCollector:
    """Feed raw chunks with :meth:`add`; read the tail with :meth:`tail`; :meth:`close` at the end."""

    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_prefix: str = "pi-bash-",
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._keep = max_bytes * 2
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self.total_bytes = 0
        self.newlines = 0
        self._last_byte = b""
        self._cur_line = 0
        self._last_done_line = 0
        self._prefix = temp_prefix
        self._file: Any = None
        self._closed = False
        self.full_output_path: str | None = None

    def add(self, chunk: bytes) -> None:
        """Record one chunk of output.

        Args:
            chunk: Raw bytes as read from the pipe.
        """
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        self._last_byte = chunk[-1:]
        last_nl = chunk.rfind(b"\n")
        if last_nl < 0:
            self._cur_line += len(chunk)
        else:
            prev_nl = chunk.rfind(b"\n", 0, last_nl)
            self._last_done_line = last_nl - prev_nl - 1 if prev_nl >= 0 else self._cur_line + last_nl
            self._cur_line = len(chunk) - last_nl - 1
        if self._file is None and self.total_bytes > self.max_bytes:
            fd, self.full_output_path = tempfile.mkstemp(prefix=self._prefix, suffix=".log")
            self._file = os.fdopen(fd, "wb")
            for old in self._chunks:
                self._file.write(old)
        if self._file is not None:
            self._file.write(chunk)
        self._chunks.append(chunk)
        self._buffered += len(chunk)
        # Drop old chunks only while what remains still covers the keep window.
        while len(self._chunks) > 1 and self._buffered - len(self._chunks[0]) >= self._keep:
            self._buffered -= len(self._chunks.popleft())

    @property
    def buffered_bytes(self) -> int:
        """Bytes still held in memory (the whole output while it is short)."""
        return self._buffered

    @property
    def total_lines(self) -> int:
        """Lines in the whole output (a final newline ends a line, it does not start one)."""
        if self.total_bytes == 0:
            return 0
        return self.newlines + (0 if self._last_byte == b"\n" else 1)

    @property
    def last_line_bytes(self) -> int:
        """Size of the last line of the whole output (without its newline)."""
        return self._cur_line if self._cur_line else self._last_done_line

    def text(self) -> str:
        """The buffered tail decoded (the first line may be partial once chunks were dropped)."""
        return b"".join(self._chunks).decode("utf-8", errors="replace")

    def tail(self) -> TruncationResult:
        """Tail-truncate the buffer, with totals taken from the whole output.

        Returns:
            The truncation of the kept tail; ``total_lines``/``total_bytes`` describe
            everything that was written.
        """
        result = truncate_tail(self.text(), self.max_lines, self.max_bytes)
        if result.truncated or self.total_bytes > self._buffered:
            result.truncated = True
            result.truncated_by = result.truncated_by or "bytes"
        result.total_lines = self.total_lines
        result.total_bytes = self.total_bytes
        return result

    def ensure_file(self) -> str:
        """Save the output to the temp file now (short output cut by the line limit).

        Returns:
            The file's path.
        """
        if self.full_output_path is None:
            # Nothing was dropped yet: the buffer still holds every byte. While the command
            # runs, the file stays open and gets the rest of the output too.
            fd, self.full_output_path = tempfile.mkstemp(prefix=self._prefix, suffix=".log")
            fh = os.fdopen(fd, "wb")
            for chunk in self._chunks:
                fh.write(chunk)
            if self._closed:
                fh.close()
            else:
                self._file = fh
        return self.full_output_path

    def close(self) -> None:
        """Flush and close the temp file (it stays on disk for the model to read)."""
        self._closed = True
        if self._file is not None:
            self._file.close()
            self._file = None

    def discard_file(self) -> None:
        """Remove the temp file when the output turned out not to need it."""
        self.close()
        if self.full_output_path:
            try:
                os.unlink(self.full_output_path)
            except FileNotFoundError:
                pass
            self.full_output_path = None


def truncation_notice(
    result: TruncationResult, full_output_path: str | None, last_line_bytes: int
) -> str:
    """The bracketed footer Pi appends to truncated command output.

    Args:
        result: The tail truncation.
        full_output_path: Where the full output was saved.
        last_line_bytes: Size of the last line (for the partial-line wording).

    Returns:
        The notice, starting with a blank line.
    """
    end = result.total_lines
    start = end - result.output_lines + 1
    where = f" Full output: {full_output_path}" if full_output_path else ""
    if result.last_line_partial:
        return (f"\n\n[Showing last {format_size(result.output_bytes)} of line {end} "
                f"(line is {format_size(last_line_bytes)}).{where}]")
    if result.truncated_by == "lines":
        return f"\n\n[Showing lines {start}-{end} of {end}.{where}]"
    return f"\n\n[Showing lines {start}-{end} of {end} ({format_size(result.max_bytes)} limit).{where}]"
