"""Output budgets shared by the built-in tools (Pi's limits: 2,000 lines or 50 KB).

Two limits apply and whichever is hit first wins. ``truncate_head`` keeps the beginning
(file reads, search results) and never returns a partial line; ``truncate_tail`` keeps the
end (command output) and only cuts a line when the last line alone is over the byte limit.
A single trailing newline is treated as a terminator, not as an extra empty line; text that
fits both limits comes back unchanged (its final newline kept), text that is cut is whole lines
joined by newlines, as Pi's ``truncateHead``/``truncateTail`` give them.
"""

from __future__ import annotations

from typing import Any, Literal

from ..records import record

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
"""Characters kept from one grep match line."""

_UNLIMITED = 1 << 62


@record(slots=True)
class TruncationResult:
    """What a truncation kept and why; ``to_dict`` gives Pi's camelCase ``truncation`` details."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool = False
    first_line_exceeds_limit: bool = False
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_dict(self) -> dict[str, Any]:
        """The details shape front ends expect (content left out: it is already in the result)."""
        return {
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def format_size(num_bytes: int) -> str:
    """Human-readable size as Pi prints it: ``512B``, ``50.0KB``, ``1.5MB``.

    Args:
        num_bytes: A byte count.

    Returns:
        The formatted size.
    """
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    return f"{num_bytes / (1024 * 1024):.1f}MB"


def _split_lines(content: str) -> list[str]:
    if not content:
        return []
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _utf8_len(text: str) -> int:
    # ASCII is the common case and len() is free; only encode when it matters.
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the first lines that fit both limits; never cut a line in half.

    Args:
        content: The full text.
        max_lines: Line budget (pass a huge number to only limit bytes).
        max_bytes: UTF-8 byte budget.

    Returns:
        The result; ``first_line_exceeds_limit`` is set (and content empty) when the very
        first line alone is over ``max_bytes``.
    """
    lines = _split_lines(content)
    total_bytes = _utf8_len(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        # As Pi: what fits is returned as it came, a final newline included.
        return TruncationResult(content, False, None, total_lines, total_bytes, total_lines,
                                total_bytes, max_lines=max_lines, max_bytes=max_bytes)
    if _utf8_len(lines[0]) > max_bytes:
        return TruncationResult("", True, "bytes", total_lines, total_bytes, 0, 0,
                                first_line_exceeds_limit=True, max_lines=max_lines, max_bytes=max_bytes)
    kept: list[str] = []
    used = 0
    by: Literal["lines", "bytes"] = "lines"
    for line in lines:
        if len(kept) >= max_lines:
            break
        cost = _utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += cost
    text = "\n".join(kept)
    return TruncationResult(text, True, by, total_lines, total_bytes, len(kept), used,
                            max_lines=max_lines, max_bytes=max_bytes)


def _tail_bytes(line: str, max_bytes: int) -> str:
    data = line.encode("utf-8")
    start = len(data) - max_bytes
    # Step forward to a character boundary (skip UTF-8 continuation bytes).
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8")


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the last lines that fit both limits.

    Args:
        content: The full text.
        max_lines: Line budget.
        max_bytes: UTF-8 byte budget.

    Returns:
        The result; ``last_line_partial`` is set when the last line alone was over the
        byte limit and only its end is kept.
    """
    lines = _split_lines(content)
    total_bytes = _utf8_len(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        # As Pi: what fits is returned as it came, a final newline included.
        return TruncationResult(content, False, None, total_lines, total_bytes, total_lines,
                                total_bytes, max_lines=max_lines, max_bytes=max_bytes)
    kept: list[str] = []
    used = 0
    by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = _utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            by = "bytes"
            if not kept:
                piece = _tail_bytes(line, max_bytes)
                kept.append(piece)
                used = _utf8_len(piece)
                partial = True
            break
        kept.append(line)
        used += cost
    kept.reverse()
    return TruncationResult("\n".join(kept), True, by, total_lines, total_bytes, len(kept), used,
                            last_line_partial=partial, max_lines=max_lines, max_bytes=max_bytes)


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters with a ``... [truncated]`` marker.

    Args:
        line: The line (no newline).
        max_chars: Characters to keep (code points, so emoji are never split).

    Returns:
        ``(text, was_truncated)``.
    """
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True


UNLIMITED_LINES = _UNLIMITED
"""Pass as ``max_lines`` when only the byte budget should apply."""
