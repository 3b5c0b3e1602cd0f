"""The ``codemode`` result as the model reads it (Pi's layout).

``Script completed`` or ``Script failed``, the wall time, then the output: text and image items in
order; with more than one text item each starts with ``==> text N/M <==``; ``console`` lines follow
in one ``<console_output>`` block; a failure adds ``Script error:`` and which calls had run. Text
past the token budget (characters / 4) keeps its start and end, and the whole of it goes to a temp
file named in the result. Every image is saved to a temp file named before it.
"""

from __future__ import annotations

import base64
import os
import secrets
import tempfile
from dataclasses import dataclass
from typing import Any

from ..ai.types import ImageContent, TextContent
from ..tools.truncate import format_size
from .declarations import js_json
from .sandbox import CallRecord, OutputItem, RunResult

CHARS_PER_TOKEN = 4
DEFAULT_MAX_OUTPUT_TOKENS = 10_000
_IMAGE_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

Block = TextContent | ImageContent


def write_output_file(prefix: str, extension: str, data: bytes) -> str:
    """A new file ``<tmp>/<prefix>-<16 hex><extension>`` only the user can read, holding ``data``."""
    path = os.path.join(tempfile.gettempdir(), f"{prefix}-{secrets.token_hex(8)}{extension}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # never follows a planted link
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


def value_text(value: Any) -> str:
    """A returned value as ``text()`` shows it: strings as they are, the rest as compact JSON."""
    return value if isinstance(value, str) else js_json(value)


def format_items(output: list[OutputItem]) -> list[Block]:
    """Text items numbered when there are several, console lines gathered at the end."""
    total = sum(1 for item in output if item.type == "text" and not item.console)
    items: list[Block] = []
    console: list[str] = []
    index = 0
    for item in output:
        if item.type == "image":
            items.append(ImageContent(data=item.data, mime_type=item.mime_type))
        elif item.console:
            console.append(item.text)
        else:
            index += 1
            items.append(TextContent(text=f"==> text {index}/{total} <==\n{item.text}" if total > 1 else item.text))
    if console:
        items.append(TextContent(text="<console_output>\n" + "\n".join(console) + "\n</console_output>"))
    return items


def join_text(items: list[Block]) -> list[Block]:
    """Adjacent text items as one, each part starting on its own line."""
    joined: list[Block] = []
    parts: list[str] = []
    last = ""
    for item in items:
        if not isinstance(item, TextContent):
            if parts:
                joined.append(TextContent(text="".join(parts)))
            parts, last = [], ""
            joined.append(item)
            continue
        if last and not last.endswith("\n"):
            parts.append("\n")
            last = "\n"
        parts.append(item.text)
        if item.text:
            last = item.text
    if parts:
        joined.append(TextContent(text="".join(parts)))
    return joined


@dataclass
class Truncated:
    items: list[Block]
    full_output_path: str | None = None


def truncate(items: list[Block], max_tokens: int) -> Truncated:
    """Keep the start and end of the text when it passes the budget; images follow it."""
    texts = [item.text for item in items if isinstance(item, TextContent)]
    combined = "\n".join(texts)
    budget = max_tokens * CHARS_PER_TOKEN
    if not texts or len(combined) <= budget:
        return Truncated(items)
    head_chars = budget // 2
    tail_chars = budget - head_chars
    removed = len(combined) - head_chars - tail_chars
    head = combined[:head_chars]
    tail = combined[len(combined) - tail_chars:] if tail_chars > 0 else ""
    text = (f"Warning: truncated output (original token count: {-(-len(combined) // CHARS_PER_TOKEN)})\n"
            f"Total output lines: {len(combined.split(chr(10)))}\n\n"
            f"{head}…{-(-removed // CHARS_PER_TOKEN)} tokens truncated…{tail}")
    path: str | None = None
    try:
        path = write_output_file("pi-codemode", ".txt", combined.encode("utf-8", errors="surrogatepass"))
        text += f"\n\n[Full output: {path} (read with offset/limit)]"
    except OSError as exc:
        text += f"\n\n[Could not save the full output: {exc.strerror or exc}]"
    images = [item for item in items if isinstance(item, ImageContent)]
    return Truncated([TextContent(text=text), *images], path)


def save_images(items: list[Block]) -> list[Block]:
    """Put ``[Image saved to <path> (<type>, <size>)]`` before each image (an image shown twice is saved once)."""
    labels: dict[str, str] = {}
    out: list[Block] = []
    for item in items:
        if not isinstance(item, ImageContent):
            out.append(item)
            continue
        label = labels.get(item.data)
        if label is None:
            data = base64.b64decode(item.data)
            kind = f"{item.mime_type}, {format_size(len(data))}"
            try:
                path = write_output_file("pi-codemode", _IMAGE_EXTENSIONS[item.mime_type], data)
                label = f"[Image saved to {path} ({kind})]"
            except (OSError, KeyError) as exc:
                label = f"[Image ({kind}) could not be saved: {exc}]"
            labels[item.data] = label
        out.extend([TextContent(text=label), item])
    return out


def call_summary(calls: list[CallRecord]) -> str:
    """Which tool calls ran before a failure."""
    if not calls:
        return "No tool calls were made."
    listed = ", ".join(f"{call.name} ({call.status})" for call in calls)
    return f"Tool calls made before the failure (they are not undone): {listed}"


def error_text(result: RunResult) -> str:
    """``Script error:`` body: the error (a script's stack) and the calls that had run."""
    error = result.error
    assert error is not None
    if error.kind == "script":
        head = error.stack or f"{error.name or 'Error'}: {error.message}"
    elif error.kind == "timeout":
        head = f"Script timed out: {error.message}"
    elif error.kind == "aborted":
        head = f"Script aborted: {error.message}"
    else:
        head = f"Script sandbox failed: {error.message}"
    return f"{head}\n\n{call_summary(result.calls)}"


def header(ok: bool, wall_seconds: float) -> TextContent:
    return TextContent(text=f"{'Script completed' if ok else 'Script failed'}\nWall time {wall_seconds:.1f} "
                            "seconds\nOutput:\n")


def not_started(error: str, wall_seconds: float) -> list[Block]:
    """The result of a script that never got a worker (or was aborted while it waited)."""
    return [header(False, wall_seconds), TextContent(text=f"Script error:\n{error}\n\nThe script did not start.")]


def result_blocks(result: RunResult, max_tokens: int, wall_seconds_now: Any,
                  generated_images: int = 0) -> tuple[list[Block], str | None]:
    """The whole result: header, output, error; and the file holding the full text when it was cut."""
    output = list(result.output)
    if result.ok and result.has_value:
        output.append(OutputItem("text", text=value_text(result.value)))
    items = format_items(output)
    if not result.ok:
        items.append(TextContent(text="Script error:\n" + error_text(result)))
    if generated_images and not any(isinstance(i, ImageContent) for i in items):
        plural = "" if generated_images == 1 else "s"
        items.append(TextContent(text=f"Note: models.generateImages() returned {generated_images} image{plural} "
                                      "that the script did not show. Show each image block of result.output "
                                      "with image(block)."))
    cut = truncate(join_text(items), max_tokens)
    blocks = join_text(save_images(cut.items))
    return [header(result.ok, wall_seconds_now()), *blocks], cut.full_output_path
