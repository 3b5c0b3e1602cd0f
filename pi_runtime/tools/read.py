"""The ``read`` tool: a window of a text file, or an image as an attachment.

Text comes back as plain lines (no line numbers, as in Pi) limited to 2,000 lines / 50 KB,
with a footer telling the model which ``offset`` continues. The file is streamed: only the
shown lines are kept in memory, the rest is only counted, so a huge file read with an
offset costs one pass and little memory. Images (PNG, JPEG, GIF, WebP, recognised by their
magic bytes) come back as base64 image content with a short text note. Files with NUL bytes
are refused as binary.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from typing import BinaryIO

from pydantic import Field

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..ai.types import ImageContent, TextContent
from .operations import FileOperations, LocalFileOperations
from .paths import resolve_read_path
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size

_SNIFF_BYTES = 8192
_COUNT_CHUNK = 256 * 1024


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


@dataclass(slots=True)
class _Window:
    lines: list[str]
    kept_bytes: int
    total_lines: int
    stopped_by: str | None  # "lines" | "bytes" | "limit" | None
    first_line_bytes: int = 0


def _read_window(fh: BinaryIO, start: int, user_limit: int | None, max_lines: int, max_bytes: int) -> _Window:
    """Stream ``fh`` once: keep lines ``start..`` within the budgets, count the rest."""
    cap = max_bytes + 2
    seen = 0
    kept: list[str] = []
    kept_bytes = 0
    stopped: str | None = None
    first_line_bytes = 0
    while True:
        piece = fh.readline(cap)
        if not piece:
            break
        length = len(piece)
        ends_nl = piece.endswith(b"\n")
        overlong = False
        if not ends_nl and length == cap:
            # A line longer than the whole budget: skip its rest without holding it.
            overlong = True
            while True:
                more = fh.readline(_COUNT_CHUNK)
                if not more:
                    break
                length += len(more)
                if more.endswith(b"\n"):
                    ends_nl = True
                    break
        index = seen
        seen += 1
        if index < start:
            continue
        if user_limit is not None and len(kept) >= user_limit:
            stopped = "limit"
        elif len(kept) >= max_lines:
            stopped = "lines"
        else:
            body_len = length - (1 if ends_nl else 0)
            cost = body_len + (1 if kept else 0)
            if overlong or kept_bytes + cost > max_bytes:
                stopped = "bytes"
                if not kept:
                    first_line_bytes = body_len
            else:
                text = piece[:-1] if ends_nl else piece
                if text.endswith(b"\r"):
                    text = text[:-1]
                kept.append(text.decode("utf-8", errors="replace"))
                kept_bytes += cost
                continue
        break
    if stopped is not None:
        # Only count what is left: one fast pass over raw chunks.
        last = b"\n"
        while True:
            chunk = fh.read(_COUNT_CHUNK)
            if not chunk:
                break
            seen += chunk.count(b"\n")
            last = chunk[-1:]
        if last != b"\n":
            seen += 1
    return _Window(kept, kept_bytes, seen, stopped, first_line_bytes)


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
        result = await asyncio.to_thread(self._read, params)
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        return result

    def _read(self, params: ReadParams) -> ToolResult:
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
                return self._text_result(fh, params, info.size)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        except IsADirectoryError as exc:
            raise ToolError(f"Path is a directory: {params.path}") from exc

    def _text_result(self, fh: BinaryIO, params: ReadParams, size: int) -> ToolResult:
        start = max(0, (params.offset or 1) - 1)
        limit = None if params.limit is None else max(1, params.limit)
        win = _read_window(fh, start, limit, self.max_lines, self.max_bytes)
        total = win.total_lines
        if start > 0 and start >= total:
            raise ToolError(f"Offset {params.offset} is beyond end of file ({total} lines total)")
        first = start + 1
        text = "\n".join(win.lines)
        shown = len(win.lines)
        last = start + shown
        if win.stopped_by in ("lines", "bytes"):
            trunc = TruncationResult(
                text, True, "bytes" if win.stopped_by == "bytes" else "lines", total - start, size,
                shown, win.kept_bytes, first_line_exceeds_limit=shown == 0,
                max_lines=self.max_lines, max_bytes=self.max_bytes,
            )
            details = {"truncation": trunc.to_dict()}
            if shown == 0:
                size = format_size(win.first_line_bytes)
                return ToolResult.text(
                    f"[Line {first} is {size}, exceeds {format_size(self.max_bytes)} limit. "
                    f"Use bash: sed -n '{first}p' {params.path} | head -c {self.max_bytes}]",
                    details,
                )
            limit_note = "" if win.stopped_by == "lines" else f" ({format_size(self.max_bytes)} limit)"
            text += f"\n\n[Showing lines {first}-{last} of {total}{limit_note}. Use offset={last + 1} to continue]"
            return ToolResult.text(text, details)
        if win.stopped_by == "limit":
            text += f"\n\n[{total - last} more lines in file. Use offset={last + 1} to continue]"
        return ToolResult.text(text)
