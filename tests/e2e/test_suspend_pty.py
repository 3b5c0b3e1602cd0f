"""Ctrl+Z then ``fg``: the installed ``pi`` on a pty draws its whole screen again when it comes
back (issue #37: it stayed blank until the next message, as only changed cells were drawn)."""

from __future__ import annotations

import os
import signal

from test_interactive_pty import Terminal, answers_saved

from pi_runtime.testing.waiting import wait_until


def _stopped(pid: int) -> bool:
    done, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
    return bool(done) and os.WIFSTOPPED(status)


def test_the_screen_is_drawn_again_after_fg(env):
    term = Terminal(["--demo"], env)
    try:
        assert term.wait_for("demo-model"), term.screen[-2000:]
        term.type(b"first words\r")
        assert term.wait_for("Youasked:firstwords"), term.screen[-2000:]
        assert wait_until(lambda: (term.read(0.05), answers_saved(env))[1] == 1, timeout=30)  # idle: nothing moves
        term.type(b"\x1a")  # Ctrl+Z: pi leaves the screen and stops itself
        assert wait_until(lambda: (term.read(0.05), _stopped(term.pid))[1], timeout=15)
        since = term.mark()
        os.kill(term.pid, signal.SIGCONT)  # what the shell's fg does
        assert term.wait_for("Youasked:firstwords", since=since), term.screen[-2000:]
        assert term.wait_for("demo-model", since=since)  # the header too: every row, not just one
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()
