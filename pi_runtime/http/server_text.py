"""Text a server supplied, made safe to show a person: no terminal control sequences.

An error body can carry escape sequences that retitle the terminal (OSC), move the cursor or
recolour what follows (CSI), or reset the screen. Everything pi prints from a server goes
through ``printable`` first; newlines and tabs stay, as they are part of ordinary messages.
"""

from __future__ import annotations

import re

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI (ESC [ ... final byte); a cut-off one is dropped too
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # 8-bit CSI
    r"|(?:\x1b\]|\x9d|\x1bP|\x90|\x1b_|\x9f|\x1b\^|\x9e|\x1bX|\x98)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, APC, PM, SOS
    r"|\x1b[ -/]*[0-~]?"  # any other escape sequence (ESC c resets the terminal)
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without terminal control sequences and control characters other than newline and tab."""
    if text.isprintable():  # the common case: nothing to do
        return text
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))
