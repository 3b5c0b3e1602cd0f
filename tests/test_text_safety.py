"""terminal_safe: what a server sends is shown without escapes, controls or bidi overrides."""

from __future__ import annotations

import pytest

from pi_runtime.text_safety import terminal_safe


@pytest.mark.parametrize(("text", "shown"), [
    ("get_time", "get_time"),
    ("tool_0\u202egnp.exe", "tool_0gnp.exe"),  # right-to-left override
    ("a\u2066b\u2069c\u200f", "abc"),  # isolates and marks
    ("name\nINJECTED: connected", "name INJECTED: connected"),
    ("tab\there\r", "tab here "),
    ("\x1b]0;pwned\x07title", "title"),  # OSC: sets the window title
    ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC 8 hyperlink, ST-terminated
    ("\x1b[31mred\x1b[0m \x1b[2J\x1b[H", "red "),  # colours, clear screen, cursor home
    ("\x9b31mred", "red"),  # 8-bit CSI
    ("\x1bPdcs string\x1b\\after", "after"),
    ("bell\x07 nul\x00 del\x7f c1\x85", "bell nul del c1"),
    ("\x1b(Bcharset \x1bcreset", "charset reset"),
    ("ünïcödé 名前 ✓", "ünïcödé 名前 ✓"),
])
def test_one_line(text, shown):
    assert terminal_safe(text) == shown


def test_multiline_keeps_newlines_and_tabs_only():
    assert terminal_safe("line 1\n\tline 2\x1b[1m\r\n\u202e", multiline=True) == "line 1\n\tline 2\n"
