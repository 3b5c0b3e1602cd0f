"""MCP results and resource contents as what the model sees: text and images (mcp.md).

Text and images pass through; embedded text resources become text and embedded images images;
audio becomes a placeholder; a resource link names ``read_mcp_resource``; other binary
resources are saved to a temporary file whose path the model gets. A result without content but
with ``structuredContent`` becomes that JSON. Text over 20 KB keeps its start and end around a
``…N chars truncated…`` marker, and the full text is saved to a temporary file named in the result.

Everything here works on wire-form dicts (``model_dump(by_alias=True)``), so it needs no SDK import.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import json
import os
import re
import tempfile
from typing import Any
from urllib.parse import urlsplit

from ..ai.types import ImageContent, TextContent
from ..tools.truncate import format_size

MAX_OUTPUT_BYTES = 20 * 1024
READ_RESOURCE_TOOL = "read_mcp_resource"

Block = TextContent | ImageContent


_saved: list[str] = []
"""Temporary files this process wrote, removed when it exits."""


def save_temp(data: bytes | str, suffix: str) -> str:
    """Write ``data`` to a new temporary file (``pi-mcp-*``) and return its path.

    The file is there for the rest of the run (the model may read it) and removed when pi exits:
    Pi leaves them in the temporary folder for good, one per large result.
    """
    fd, path = tempfile.mkstemp(prefix="pi-mcp-", suffix=suffix)
    if not _saved:
        atexit.register(_remove_saved)
    _saved.append(path)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _remove_saved() -> None:
    while _saved:
        with contextlib.suppress(OSError):
            os.unlink(_saved.pop())


def _extension(uri: str) -> str:
    path = urlsplit(uri).path or uri
    found = re.search(r"\.[A-Za-z0-9]{1,8}$", path)
    return found.group(0) if found else ".bin"


def is_text_mime(mime: str | None) -> bool:
    """Blobs of these types are shown as text (``text/*``, JSON, XML)."""
    if not mime:
        return False
    kind = mime.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml"))


def _binary(uri: str, mime: str | None, blob: str) -> Block:
    data = base64.b64decode(blob or "")
    if is_text_mime(mime):
        return TextContent(text=data.decode("utf-8", "replace"))
    kind = f"{mime or 'unknown type'}, {format_size(len(data))}"
    try:
        path = save_temp(data, _extension(uri))
    except OSError as exc:
        return TextContent(text=f"[Binary resource {uri} ({kind}) could not be saved: {exc}]")
    return TextContent(text=f"[Binary resource {uri} ({kind}) saved to {path}]")


def block_content(server: str, block: dict[str, Any], *, readable_resources: bool) -> Block:
    """One MCP content block as model content."""
    kind = block.get("type")
    if kind == "text":
        return TextContent(text=str(block.get("text", "")))
    if kind == "image":
        return ImageContent(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", "image/png")))
    if kind == "audio":
        return TextContent(text=f"[audio {block.get('mimeType')} omitted]")
    if kind == "resource_link":
        details = [d for d in (block.get("mimeType"), format_size(block["size"]) if isinstance(block.get("size"), int) else None) if d]
        shown = f" ({', '.join(details)})" if details else ""
        description = f": {block['description']}" if block.get("description") else ""
        read = f'. Read it with {READ_RESOURCE_TOOL} (server "{server}")' if readable_resources else ""
        return TextContent(text=f'[Resource {block.get("uri")} "{block.get("title") or block.get("name")}"{shown}{description}{read}]')
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return TextContent(text=str(resource["text"]))
        mime = resource.get("mimeType")
        if isinstance(mime, str) and mime.startswith("image/"):
            return ImageContent(data=str(resource.get("blob", "")), mime_type=mime)
        return _binary(str(resource.get("uri", "")), mime, str(resource.get("blob", "")))
    return TextContent(text=f"[unsupported MCP content {kind}]")


def _cut_middle(text: str, limit: int) -> tuple[str, int, int] | None:
    """``text`` with its middle replaced by ``…N chars truncated…`` to fit ``limit`` bytes, with its
    byte and line counts; None when it fits."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return None

    def boundary(i: int) -> bool:
        return i >= len(data) or (data[i] & 0xC0) != 0x80

    head_end = limit // 2
    while head_end > 0 and not boundary(head_end):
        head_end -= 1
    tail_start = len(data) - (limit - limit // 2)
    while tail_start < len(data) and not boundary(tail_start):
        tail_start += 1
    removed = len(data[head_end:tail_start].decode("utf-8"))
    lines = text.count("\n") + 1 - (1 if text.endswith("\n") else 0)
    cut = f"{data[:head_end].decode('utf-8')}…{removed} chars truncated…{data[tail_start:].decode('utf-8')}"
    return cut, len(data), lines


def limit_content(content: list[Block]) -> tuple[list[Block], str | None]:
    """Keep the text within :data:`MAX_OUTPUT_BYTES`; returns the content and the full-output file."""
    combined = "\n".join(b.text for b in content if isinstance(b, TextContent))
    cut = _cut_middle(combined, MAX_OUTPUT_BYTES)
    if cut is None:
        return content, None
    text, total_bytes, total_lines = cut
    path: str | None = None
    try:
        path = save_temp(combined, ".txt")
        where = f"\n\n[Full output: {path} (read it with offset/limit)]"
    except OSError as exc:
        where = f"\n\n[Could not save the full output: {exc}]"
    tokens = -(-total_bytes // 4)
    head = f"Warning: truncated output (original token count: {tokens})\nTotal output lines: {total_lines}\n\n"
    images = [b for b in content if isinstance(b, ImageContent)]
    return [TextContent(text=head + text + where), *images], path


def result_content(server: str, tool: str, result: dict[str, Any], *, readable_resources: bool) -> tuple[list[Block], str | None]:
    """A ``CallToolResult`` (wire form) as model content, limited; returns it and the full-output file."""
    blocks = result.get("content") or []
    content = [block_content(server, b, readable_resources=readable_resources) for b in blocks]
    if not blocks and result.get("structuredContent") is not None:
        content = [TextContent(text=json.dumps(result["structuredContent"], indent=2, ensure_ascii=False))]
    if result.get("isError") and not "".join(b.text for b in content if isinstance(b, TextContent)):
        content.append(TextContent(text=f"MCP tool {server}/{tool} returned an error"))
    return limit_content(content)
