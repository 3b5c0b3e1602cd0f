"""The first prompt as Pi builds it: piped stdin, ``@file`` arguments and the messages.

Text files are inlined as ``<file name="/abs/path">…</file>`` blocks; images (recognised
by their magic bytes) are attached as ``ImageContent`` with an empty ``<file>`` marker in
the text. Piped stdin is prepended to the first message.
"""

from __future__ import annotations

import base64
import os
import sys
from dataclasses import field
from pathlib import Path
from typing import Any

from ..records import record
from .startup import StartupError


@record
class PromptInput:
    text: str
    images: list[Any] = field(default_factory=list)


def read_piped_stdin() -> str | None:
    """All of stdin when it is not a terminal, else None."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        data = sys.stdin.buffer.read()
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", errors="replace")
    return text if text.strip() else None


def file_arguments(paths: list[str], cwd: str) -> tuple[str, list[Any]]:
    """Inline text files and attach images.

    Returns:
        (text to prepend to the first prompt, images to attach).

    Raises:
        StartupError: A file is missing, a folder, or unreadable.
    """
    from ..ai.types import ImageContent
    from ..tools.read import detect_image_mime

    parts: list[str] = []
    images: list[Any] = []
    for raw in paths:
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = Path(cwd) / path
        path = path.resolve()
        if not path.exists():
            raise StartupError(f"File not found: {raw}")
        if path.is_dir():
            raise StartupError(f"{raw} is a directory; @ takes files")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StartupError(f"Cannot read {raw}: {exc.strerror or exc}") from exc
        if not data:
            continue  # Pi skips empty files
        mime = detect_image_mime(data[:16])
        if mime is not None:
            images.append(ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime))
            parts.append(f'<file name="{path}"></file>\n')
        else:
            parts.append(f'<file name="{path}">\n{data.decode("utf-8", errors="replace")}\n</file>\n')
    return "".join(parts), images


def initial_prompts(messages: list[str], files: list[str], stdin_text: str | None, cwd: str) -> list[PromptInput]:
    """The prompts to run, in order; the first carries stdin and the ``@file`` content."""
    messages = list(messages)
    if stdin_text is not None:
        stdin_text = stdin_text.rstrip("\n")
        messages = [stdin_text + ("\n\n" + messages[0] if messages else "")] + messages[1:]
    file_text, images = file_arguments(files, cwd) if files else ("", [])
    if not messages and not file_text and not images:
        return []
    first = file_text + (messages[0] if messages else "")
    return [PromptInput(first, images)] + [PromptInput(m) for m in messages[1:]]
