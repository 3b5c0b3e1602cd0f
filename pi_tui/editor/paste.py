"""Large pastes: kept whole for sending, shown as ``[pasted 1,200 lines]`` markers."""

from __future__ import annotations

import re

PASTE_LINES = 10
"""Pastes with more lines than this are collapsed in the editor and transcript."""
PASTE_CHARS = 1000
"""...or more characters than this."""

_MARKER = re.compile(r"\[pasted (#\d+ )?[\d,]+ (lines|chars)\]")


def is_large(text: str) -> bool:
    return text.count("\n") + 1 > PASTE_LINES or len(text) > PASTE_CHARS


def marker(text: str, number: int) -> str:
    """The placeholder put in the editor for paste number ``number``."""
    lines = text.count("\n") + 1
    if lines > 1:
        return f"[pasted #{number} {lines:,} lines]"
    return f"[pasted #{number} {len(text):,} chars]"


def expand(text: str, pastes: dict[str, str]) -> str:
    """Replace every known marker with the pasted text."""
    for mark, content in pastes.items():
        text = text.replace(mark, content)
    return text


def display_text(text: str) -> str:
    """A sent message as shown in the transcript: long messages are cut with a line count."""
    lines = text.splitlines()
    if len(lines) > 40:
        return "\n".join(lines[:20]) + f"\n… [{len(lines) - 20:,} more lines]"
    return text
