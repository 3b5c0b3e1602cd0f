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

import functools
import re

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


class _Rules:
    """What ``terminal_safe`` matches and drops. Built on first use (``_rules``): every provider and
    the HTTP client import this module for their error messages, and compiling the patterns at import
    cost ~1.5 ms of each ``pi -p`` start-up."""

    def __init__(self) -> None:
        self.sequences = re.compile(
            r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI ... final byte (colours, cursor moves, clear screen)
            r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC strings
            r"|\x1b[ -/]*[0-~]"  # other escapes (charset selection, reset, keypad modes)
        )
        controls = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)])
        drop: dict[int, str | None] = {ord(c): None for c in controls + _BIDI}
        self.one_line = {**drop, ord("\n"): " ", ord("\t"): " ", ord("\r"): " "}
        self.multiline = {**drop, ord("\n"): "\n", ord("\t"): "\t"}
        self.unsafe_in_lines = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
        self.unsafe_in_one_line = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")


@functools.cache
def _rules() -> _Rules:
    return _Rules()


def terminal_safe(text: str, *, multiline: bool = False) -> str:
    """``text`` without escape sequences, control characters or bidi overrides.

    Args:
        text: What a server (or any stranger) sent.
        multiline: Keep newlines and tabs (a message shown as several lines); otherwise each
            becomes a space (a name or one-line notice).

    Returns:
        The text with those removed; printable characters are untouched.
    """
    rules = _rules()
    if not (rules.unsafe_in_lines if multiline else rules.unsafe_in_one_line).search(text):
        return text  # the common case: nothing to do
    return rules.sequences.sub("", text).translate(rules.multiline if multiline else rules.one_line)
