"""Text from strangers made safe to show a person in a terminal.

A server-supplied name or message can carry terminal escape sequences (one sets the window
title, another clears the screen), C0/C1 control characters, or Unicode bidi overrides that make
``tool_0\u202egnp.exe`` read as ``tool_0exe.png``. :func:`terminal_safe` removes all of them: whole
ANSI sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-character escapes, their 8-bit forms), every
other control character, and the bidi embedding/override/isolate marks. Newlines and tabs are kept
only where the caller shows several lines; elsewhere each becomes a space, so one name stays on
one line and cannot forge the next line of a listing.
"""

from __future__ import annotations

import re

_SEQUENCES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI ... final byte (colours, cursor moves, clear screen)
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC strings
    r"|\x1b[ -/]*[0-~]"  # other escapes (charset selection, reset, keypad modes)
)
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CONTROLS = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)])
_DROP = {ord(c): None for c in _CONTROLS + _BIDI}
_ONE_LINE = {**_DROP, ord("\n"): " ", ord("\t"): " ", ord("\r"): " "}
_MULTILINE = {**_DROP, ord("\n"): "\n", ord("\t"): "\t"}
_UNSAFE_IN_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_IN_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")


def terminal_safe(text: str, *, multiline: bool = False) -> str:
    """``text`` without escape sequences, control characters or bidi overrides.

    Args:
        text: What a server (or any stranger) sent.
        multiline: Keep newlines and tabs (a message shown as several lines); otherwise each
            becomes a space (a name or one-line notice).

    Returns:
        The text with those removed; printable characters are untouched.
    """
    if not (_UNSAFE_IN_LINES if multiline else _UNSAFE_IN_ONE_LINE).search(text):
        return text  # the common case: nothing to do
    return _SEQUENCES.sub("", text).translate(_MULTILINE if multiline else _ONE_LINE)
