"""What strangers write cannot command the user's terminal, and the window says which pi it is.

A model's answer, a command's output (the model's bash tool or the user's ``!``) can hold escape
sequences: ``ESC ]0;…`` retitles the window, ``ESC [5;7r`` shrinks its scrolling region, ``ESC [2J``
clears it. Before, pi wrote them to the terminal as they were (Textual passes ESC through). The
installed ``pi`` runs on a real pty here and the bytes it writes are read back.
"""

from __future__ import annotations

from e2e_support import MODEL, text_reply, tool_reply
from test_interactive_pty import Terminal

TITLE = "\x1b]0;pwned\x07"
SCROLL_REGION = "\x1b[5;7r"


def test_escape_sequences_from_answers_and_commands_reach_the_screen_as_text(env, loopback):
    loopback.push(text_reply(f"model says {TITLE}hello{SCROLL_REGION} world"),
                  tool_reply("bash", {"command": r"printf 'tool\033]0;owned\007out\033[31mred\n'"}),
                  text_reply("listed"))
    term = Terminal(["--model", MODEL], env)
    try:
        assert term.wait_for("loop-model"), term.screen[-2000:]
        term.type(b"first\r")
        assert term.wait_for("hello[5;7r"), term.screen[-2000:]  # the sequence, shown as text
        term.type(b"second\r")
        assert term.wait_for("listed"), term.screen[-2000:]
        assert term.wait_for("tooloutred"), term.screen[-2000:]  # a command's output: sequences removed
        term.type(b"!printf 'user\\033]0;mine\\007cmd\\n'\r")
        assert term.wait_for("usercmd"), term.screen[-2000:]
        written = term.output
        for sequence in (b"\x1b]0;pwned", b"\x1b[5;7r", b"\x1b]0;owned", b"\x1b]0;mine", b"\x1b[31mred"):
            assert sequence not in written, sequence
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()


def test_the_window_title_names_the_folder_and_the_session_as_pi_does(env, loopback):
    term = Terminal(["--model", MODEL], env)
    try:
        assert term.wait_for("loop-model"), term.screen[-2000:]
        assert term.wait_for_bytes(b"\x1b]0;\xcf\x80 - project\x07")  # π - <folder>
        term.type(b"/name bug hunt\r")
        assert term.wait_for_bytes(b"\x1b]0;\xcf\x80 - bug hunt - project\x07"), term.screen[-2000:]
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()
