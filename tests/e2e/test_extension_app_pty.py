"""Extensions in the installed app on a real terminal, where Pilot does not show the bug: a
dialog asked from ``session_start`` at start-up froze pi (no key reached it), because the
handlers ran inside the message handler that attached the session."""

from __future__ import annotations

import textwrap

from test_interactive_pty import Terminal

PROFILE = """
    def extension(pi):
        async def start(event, ctx):
            choice = await ctx.ui.select("Which profile?", ["fast", "careful"])
            ctx.ui.set_status("profile", f"profile-{choice}")
        pi.on("session_start", start)
"""


def test_a_select_from_session_start_takes_the_keys(env, tmp_path):
    ext = tmp_path / "profile.py"
    ext.write_text(textwrap.dedent(PROFILE))
    term = Terminal(["--demo", "-e", str(ext)], env)
    try:
        assert term.wait_for("Whichprofile?"), term.screen[-2000:]
        term.type(b"\x1b[B")  # Down
        term.type(b"\r")
        assert term.wait_for("profile-careful", timeout=10), term.screen[-2000:]
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()


NOTIFY = """
    import sys

    def extension(pi):
        def start(event, ctx):
            sys.stdout.write("\\x1b]777;notify;Pi;Ready ")  # one sequence in two writes
            sys.stdout.write("for input\\x07")
            sys.stdout.write("\\x1b]99;i=1:d=0;Pi\\x1b\\\\")
            print("plain words stay in the log")
            ctx.ui.set_status("notify", "notified-now")
        pi.on("session_start", start)
"""


def test_osc_notifications_an_extension_writes_reach_the_terminal(env, tmp_path):
    # Pi's notify example writes them with process.stdout.write; Textual captured them.
    ext = tmp_path / "notify.py"
    ext.write_text(textwrap.dedent(NOTIFY))
    term = Terminal(["--demo", "-e", str(ext)], env)
    try:
        assert term.wait_for("notified-now"), term.screen[-2000:]
        term.read(0.3)
        assert b"\x1b]777;notify;Pi;Ready for input\x07" in term.output
        assert b"\x1b]99;i=1:d=0;Pi\x1b\\" in term.output
        assert "plain words" not in term.screen
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()


SHUTDOWN_MARK = """
    from pathlib import Path

    def extension(pi):
        def start(event, ctx):
            ctx.ui.set_status("mark", "extension-started")

        def shutdown(event, ctx):
            Path({mark!r}).write_text(event.reason if hasattr(event, "reason") else "shutdown")

        pi.on("session_start", start)
        pi.on("session_shutdown", shutdown)
"""


def test_sigterm_and_sighup_end_the_app_as_quitting_does(env, tmp_path):
    # As Pi: extensions get session_shutdown, the terminal is given back (alternate screen left),
    # exit status 0; before, the default action killed pi and left the terminal in raw mode.
    import os
    import signal

    for signum in (signal.SIGTERM, signal.SIGHUP):
        mark = tmp_path / f"shutdown-{signum}"
        ext = tmp_path / f"mark_{signum}.py"
        ext.write_text(textwrap.dedent(SHUTDOWN_MARK.format(mark=str(mark))))
        term = Terminal(["--demo", "-e", str(ext)], env)
        try:
            assert term.wait_for("extension-started"), term.screen[-2000:]
            before = term.mark()
            os.kill(term.pid, signum)
            assert term.exit_status() == 0, term.screen[-2000:]
            assert mark.exists()
            assert b"\x1b[?1049l" in term.output[before:]  # back from the alternate screen
        finally:
            term.close()


def test_a_signal_while_pi_starts_gives_the_terminal_back(env, tmp_path):
    # From the moment the launcher holds the terminal (typeahead, before the app's imports) a
    # SIGTERM used to kill pi with echo and line editing off: the shell's terminal stayed mute.
    import os
    import signal
    import termios
    import time

    from pi_runtime.testing.waiting import wait_until

    term = Terminal(["--demo"], env)
    try:
        assert wait_until(lambda: not termios.tcgetattr(term.fd)[3] & termios.ICANON, timeout=30, interval=0.001)
        os.kill(term.pid, signal.SIGTERM)
        started = time.monotonic()
        status = term.exit_status()
        assert status is not None, term.screen[-2000:]
        assert time.monotonic() - started < 10
        flags = termios.tcgetattr(term.fd)[3]
        assert flags & termios.ICANON and flags & termios.ECHO
    finally:
        term.close()


def test_sigterm_in_the_resume_picker_gives_the_terminal_back(env):
    import os
    import signal

    term = Terminal(["-r"], env)
    try:
        assert term.wait_for("Resumeasession", "Nosessions"), term.screen[-2000:]
        before = term.mark()
        os.kill(term.pid, signal.SIGTERM)
        assert term.exit_status() == 0, term.screen[-2000:]
        assert b"\x1b[?1049l" in term.output[before:]
    finally:
        term.close()



def _hang_up(term: Terminal) -> int | None:
    """Close the terminal under pi (as a closed window or a dropped ssh link does: the kernel
    sends SIGHUP, then SIGCONT); pi's exit status, or None when it is still running 15 s later."""
    import os

    from pi_runtime.testing.waiting import wait_until

    status: list[int] = []

    def ended() -> bool:
        pid, code = os.waitpid(term.pid, os.WNOHANG)
        if pid:
            status.append(os.waitstatus_to_exitcode(code))
        return bool(status)

    os.close(term.fd)
    if not wait_until(ended, timeout=15, interval=0.02):
        os.kill(term.pid, 9)
        os.waitpid(term.pid, 0)
        return None
    return status[0]


def test_the_terminal_closing_ends_the_app(env, tmp_path):
    # Textual's SIGCONT handler started application mode a second time, on a writer thread that
    # died on its first write to the dead terminal; the next writes waited forever for room in
    # its queue, and pi stayed behind holding the session's lock.
    mark = tmp_path / "shutdown"
    ext = tmp_path / "mark.py"
    ext.write_text(textwrap.dedent(SHUTDOWN_MARK.format(mark=str(mark))))
    term = Terminal(["--demo", "-e", str(ext)], env)
    assert term.wait_for("extension-started"), term.screen[-2000:]
    assert _hang_up(term) is not None, "pi was still running after its terminal closed"
    assert mark.exists()  # extensions were told the session ended


def test_the_terminal_closing_ends_the_resume_picker(env):
    term = Terminal(["-r"], env)
    assert term.wait_for("Resumeasession", "Nosessions"), term.screen[-2000:]
    assert _hang_up(term) is not None, "pi -r was still running after its terminal closed"


def test_ctrl_z_suspends_and_only_its_sigcont_resumes(env):
    # SIGCONT resumes the app only after its own Ctrl+Z (the hang-up fix above): a stray
    # ``kill -CONT`` leaves the running app alone, and fg after Ctrl+Z brings it back.
    import os
    import signal
    from pathlib import Path

    from pi_runtime.testing.waiting import wait_until

    def state() -> str:
        return Path(f"/proc/{term.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]

    term = Terminal(["--demo"], env)
    try:
        assert term.wait_for("demo-model"), term.screen[-2000:]
        before = term.mark()
        os.kill(term.pid, signal.SIGCONT)  # not stopped: nothing to resume
        term.type(b"one")
        assert term.wait_for("one", since=before)
        assert b"\x1b[?1049h" not in term.output[before:]  # the alternate screen was not entered again

        term.type(b"\x15\x1a")  # Ctrl+U clears the editor, Ctrl+Z suspends
        assert wait_until(lambda: state() == "T", timeout=10, interval=0.02)
        assert wait_until(lambda: term.read(0.05) or b"\x1b[?1049l" in term.output[before:],
                          timeout=10)  # the shell's screen is back
        resumed = term.mark()
        os.kill(term.pid, signal.SIGCONT)  # what the shell's fg sends
        term.type(b"two")
        assert term.wait_for("two", since=resumed), term.screen[-2000:]
        assert b"\x1b[?1049h" in term.output[resumed:]
    finally:
        term.close()
