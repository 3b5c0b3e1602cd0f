"""The ``read`` tool: a window of a text file, or an image as an attachment.

Text comes back as plain lines (no line numbers, as in Pi) limited to 2,000 lines / 50 KB,
with a footer telling the model which ``offset`` continues; lines are counted and shown as Pi
does (``read_window``), so the text and every notice are Pi's to the byte. The file is
streamed: only the shown lines are kept in memory, the rest is only counted, so a huge file
read with an offset costs one pass and little memory. Images (PNG, JPEG, GIF, WebP, recognised by their
magic bytes) come back as base64 image content with a short text note. Files with NUL bytes
are refused as binary.
"""

from __future__ import annotations

import asyncio
import base64
from typing import BinaryIO, Literal

from pydantic import Field

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..ai.types import ImageContent, TextContent
from .operations import FileOperations, LocalFileOperations
from .paths import resolve_read_path
from .read_window import WindowAborted, read_window
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size

_SNIFF_BYTES = 8192


class ReadParams(ToolParams):
    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | None = Field(default=None, description="Line number to start reading from (1-indexed)")
    limit: int | None = Field(default=None, description="Maximum number of lines to read")


def detect_image_mime(head: bytes) -> str | None:
    """MIME type of a supported image from its first bytes, or ``None``.

    Args:
        head: The first bytes of the file (12 are enough).

    Returns:
        ``image/png``, ``image/jpeg``, ``image/gif``, ``image/webp`` or ``None``.
    """
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    # The full signature: a text file that merely starts with "GIF" is not an image.
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class ReadTool(AgentTool):
    name = "read"
    label = "read"
    description = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "
        "Images are sent as attachments. For text files, output is truncated to "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset "
        "until complete."
    )
    Params = ReadParams

    def __init__(
        self,
        cwd: str,
        *,
        file_ops: FileOperations | None = None,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        """Args:
        cwd: Directory relative paths resolve against.
        file_ops: File system backend; defaults to the local one.
        max_lines: Line budget per call.
        max_bytes: Byte budget per call.
        """
        self.cwd = cwd
        self.file_ops: FileOperations = file_ops or LocalFileOperations()
        self.max_lines = max_lines
        self.max_bytes = max_bytes

    async def execute(
        self,
        call_id: str,
        params: ReadParams,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        result = await asyncio.to_thread(self._read, params, signal)
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        return result

    def _read(self, params: ReadParams, signal: AbortSignal | None) -> ToolResult:
        ops = self.file_ops
        path = resolve_read_path(params.path, self.cwd, lambda p: ops.stat(p) is not None)
        info = ops.stat(path)
        if info is None:
            raise ToolError(f"File not found: {params.path}")
        if info.is_dir:
            raise ToolError(f"Path is a directory: {params.path}. Use ls (or bash) to list its contents.")
        if not info.is_file:
            # A FIFO or device could block or never end.
            raise ToolError(f"Not a regular file: {params.path}")
        try:
            with ops.open_read(path) as fh:
                head = fh.read(_SNIFF_BYTES)
                mime = detect_image_mime(head)
                if mime is not None:
                    data = head + fh.read()
                    return ToolResult(content=[
                        TextContent(text=f"Read image file [{mime}]"),
                        ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime),
                    ])
                if b"\x00" in head:
                    raise ToolError(
                        f"Cannot read {params.path}: it is a binary file (it contains NUL bytes). "
                        "Use bash to inspect it, e.g. `file` or `xxd | head`."
                    )
            with ops.open_read(path) as fh:
                return self._text_result(fh, params, signal)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        except IsADirectoryError as exc:
            raise ToolError(f"Path is a directory: {params.path}") from exc

    def _text_result(self, fh: BinaryIO, params: ReadParams, signal: AbortSignal | None) -> ToolResult:
        start = max(0, (params.offset or 1) - 1)
        end = None if params.limit is None else start + max(0, params.limit)
        try:
            win = read_window(fh, start, end, self.max_lines, self.max_bytes, signal)
        except WindowAborted:
            raise ToolError("Operation aborted") from None
        total = win.total_lines
        if start >= total:
            raise ToolError(f"Offset {params.offset} is beyond end of file ({total} lines total)")
        first = start + 1
        # What Pi's truncateHead sees: the selected lines joined, a final empty line not counted.
        counted = 0 if win.selected_bytes == 0 else win.selected_lines - int(win.last_selected_empty)
        if counted <= self.max_lines and win.selected_bytes <= self.max_bytes:
            text = "\n".join(win.lines)
            if end is not None and min(end, total) < total:
                shown_to = min(end, total)
                text += f"\n\n[{total - shown_to} more lines in file. Use offset={shown_to + 1} to continue.]"
            return ToolResult.text(text)
        if win.sizes[0] > self.max_bytes:
            trunc = TruncationResult("", True, "bytes", counted, win.selected_bytes, 0, 0,
                                     first_line_exceeds_limit=True, max_lines=self.max_lines,
                                     max_bytes=self.max_bytes)
            return ToolResult.text(
                f"[Line {first} is {format_size(win.sizes[0])}, exceeds {format_size(self.max_bytes)} limit. "
                f"Use bash: sed -n '{first}p' {params.path} | head -c {self.max_bytes}]",
                {"truncation": trunc.to_dict()},
            )
        shown: list[str] = []
        used = 0
        by: Literal["lines", "bytes"] = "lines"
        for line, size in zip(win.lines[: self.max_lines], win.sizes):
            cost = size + (1 if shown else 0)
            if used + cost > self.max_bytes:
                by = "bytes"
                break
            shown.append(line)
            used += cost
        text = "\n".join(shown)
        trunc = TruncationResult(text, True, by, counted, win.selected_bytes, len(shown), used,
                                 max_lines=self.max_lines, max_bytes=self.max_bytes)
        last = start + len(shown)
        limit_note = "" if by == "lines" else f" ({format_size(self.max_bytes)} limit)"
        text += f"\n\n[Showing lines {first}-{last} of {total}{limit_note}. Use offset={last + 1} to continue.]"
        return ToolResult.text(text, {"truncation": trunc.to_dict()})
