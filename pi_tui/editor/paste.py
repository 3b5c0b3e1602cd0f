"""Large pastes: kept whole for sending, shown as Pi's ``[paste #1 +1200 lines]`` markers."""

from __future__ import annotations

PASTE_LINES = 10
"""Pastes with more lines than this are collapsed in the editor and transcript."""
PASTE_CHARS = 1000
"""...or more characters than this."""

def is_large(text: str) -> bool:
    return text.count("\n") + 1 > PASTE_LINES or len(text) > PASTE_CHARS


def marker(text: str, number: int) -> str:
    """The placeholder put in the editor for paste number ``number``, worded as Pi's: by lines
    when there are more than ``PASTE_LINES``, else by characters."""
    lines = text.count("\n") + 1
    if lines > PASTE_LINES:
        return f"[paste #{number} +{lines} lines]"
    return f"[paste #{number} {len(text)} chars]"


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
