"""The ``read`` tool: a window of a text file, or an image as an attachment.

Text comes back as plain lines (no line numbers, as in Pi) limited to 2,000 lines / 50 KB,
with a footer telling the model which ``offset`` continues; lines are counted and shown as Pi
does (``read_window``), so the text and every notice are Pi's to the byte. The file is
streamed: only the shown lines are kept in memory, the rest is only counted, so a huge file
read with an offset costs one pass and little memory. Images (PNG, JPEG, GIF, WebP and BMP, recognised by
their magic bytes as Pi does) come back as base64 image content with a short text note, fitted
to Pi's size limits unless ``images.autoResize`` is off (``image_resize``). Files with NUL bytes
are refused as binary.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, BinaryIO, Literal

from ..agent.tool import PREFER_STRICT_SCHEMA, AgentTool, ToolError, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..ai.types import ImageContent, Model, TextContent
from ..jsonmodel import Field
from .operations import FileOperations, LocalFileOperations
from .paths import resolve_read_path
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size

_SNIFF_BYTES = 8192
"""More than Pi's 4,100: enough for the PNG chunks before the image data."""


class ReadParams(ToolParams):
    path: str = Field(description="Path to the file to read (relative or absolute)")
    # Numbers, as Pi declares them: a model that sends 10.0 or 2.5 gets lines, not a refusal (a
    # fraction counts as its whole part, as Pi's slicing does).
    offset: float | None = Field(default=None, description="Line number to start reading from (1-indexed)")
    limit: float | None = Field(default=None, description="Maximum number of lines to read")


def detect_image_mime(head: bytes) -> str | None:
    """MIME type of an image from its first bytes, by Pi's rules, or ``None``.

    Args:
        head: The first bytes of the file (a few KB: an animated PNG is told by a chunk
            before its image data).

    Returns:
        ``image/png``, ``image/jpeg``, ``image/gif``, ``image/webp``, ``image/bmp`` or ``None``
        (JPEG-LS and animated PNG are not images a model takes).
    """
    if head.startswith(b"\xff\xd8\xff"):
        return None if head[3:4] == b"\xf7" else "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png" if _is_still_png(head) else None
    # The full signature: a text file that merely starts with "GIF" is not an image.
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"BM") and _is_bmp(head):
        return "image/bmp"
    return None


def _is_still_png(head: bytes) -> bool:
    if len(head) < 16 or int.from_bytes(head[8:12], "big") != 13 or head[12:16] != b"IHDR":
        return False
    offset = 8
    while offset + 8 <= len(head):
        kind = head[offset + 4 : offset + 8]
        if kind == b"acTL":
            return False  # animated
        if kind == b"IDAT":
            return True
        following = offset + 12 + int.from_bytes(head[offset : offset + 4], "big")
        if following <= offset or following > len(head):
            return True
        offset = following
    return True


def _is_bmp(head: bytes) -> bool:
    if len(head) < 26:
        return False
    declared = int.from_bytes(head[2:6], "little")
    pixels_at = int.from_bytes(head[10:14], "little")
    dib = int.from_bytes(head[14:18], "little")
    if (declared and declared < 26) or pixels_at < 14 + dib or (declared and pixels_at >= declared):
        return False
    if dib == 12:
        planes, bits = int.from_bytes(head[22:24], "little"), int.from_bytes(head[24:26], "little")
    elif 40 <= dib <= 124 and len(head) >= 30:
        planes, bits = int.from_bytes(head[26:28], "little"), int.from_bytes(head[28:30], "little")
    else:
        return False
    return planes == 1 and bits in (1, 4, 8, 16, 24, 32)


READ_OUTPUT_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": "string"},
    {"type": "object", "required": ["type", "data", "mimeType", "note"], "properties": {
        "type": {"const": "image"}, "data": {"type": "string"}, "mimeType": {"type": "string"},
        "note": {"type": "string"}}},
]}
"""What a codemode script's ``tools.read()`` resolves to: the text, or an image block with its note."""


def _script_value(result: ToolResult) -> Any:
    text = next((b.text for b in result.content if isinstance(b, TextContent)), "")
    image = next((b for b in result.content if isinstance(b, ImageContent)), None)
    if image is None:
        return text
    return {"type": "image", "data": image.data, "mimeType": image.mime_type, "note": text}


class ReadTool(AgentTool):
    name = "read"
    label = "read"
    output_schema = READ_OUTPUT_SCHEMA
    constrained_sampling = PREFER_STRICT_SCHEMA
    description = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). "
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
        auto_resize_images: bool | Callable[[], bool] = True,
        current_model: Callable[[], Model | None] | None = None,
    ) -> None:
        """Args:
        cwd: Directory relative paths resolve against.
        file_ops: File system backend; defaults to the local one.
        max_lines: Line budget per call.
        max_bytes: Byte budget per call.
        auto_resize_images: Fit images to Pi's limits (``images.autoResize``); a callable is
            asked at each read, so a settings change applies at once.
        current_model: The session's model, asked at each image read: when it takes no images the
            result's details name it (``imageUnsupportedByModel``, as Pi records it), so the app can
            say that the model saw a placeholder.
        """
        self.cwd = cwd
        self.file_ops: FileOperations = file_ops or LocalFileOperations()
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.auto_resize_images = auto_resize_images
        self.current_model = current_model

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
        result.structured_content = _script_value(result)
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
                    return self._image_result(head + fh.read(), mime)
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

    def _image_result(self, data: bytes, mime: str) -> ToolResult:
        resize = self.auto_resize_images() if callable(self.auto_resize_images) else self.auto_resize_images
        from .image_resize import process_image  # with the first image read, not at start-up

        image = process_image(data, mime, auto_resize=bool(resize))
        if image.data is None:
            return ToolResult.text("\n".join([f"Read image file [{mime}]", *image.hints]))
        note = "\n".join([f"Read image file [{image.mime_type}]", *image.hints])
        model = self.current_model() if self.current_model is not None else None
        details = None if model is None or "image" in model.input else {"imageUnsupportedByModel": model.id}
        return ToolResult(content=[TextContent(text=note), ImageContent(data=image.data, mime_type=image.mime_type)],
                          details=details)

    def _text_result(self, fh: BinaryIO, params: ReadParams, signal: AbortSignal | None) -> ToolResult:
        start = max(0, int(params.offset or 1) - 1)
        end = None if params.limit is None else start + max(0, int(params.limit))
        from .read_window import WindowAborted, read_window  # with the first read, not at start-up

        try:
            win = read_window(fh, start, end, self.max_lines, self.max_bytes, signal)
        except WindowAborted:
            raise ToolError("Operation aborted") from None
        total = win.total_lines
        if start >= total:
            raise ToolError(f"Offset {params.offset:g} is beyond end of file ({total} lines total)")
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
