"""The resume command pi prints on exit works when pasted: a session opened by path
(``--session /somewhere/x.jsonl``) is found again with Pi's ``--session-dir``."""

from __future__ import annotations

import shlex
import subprocess

from e2e_support import PI
from test_interactive_pty import _ANSI


def test_the_printed_resume_command_finds_a_session_opened_by_path(terminal, env, tmp_path):
    elsewhere = tmp_path / "kept sessions"
    elsewhere.mkdir()
    term = terminal("--demo", "--session", str(elsewhere / "x.jsonl"))
    assert term.wait_for("escapeinterrupt")
    term.type(b"hello there\r")
    assert term.wait_for("Youasked:hellothere")
    assert term.wait_for("demo-model")
    term.type(b"\x04")
    assert term.exit_status() == 0
    after = _ANSI.sub(b"", term.output.rsplit(b"\x1b[?1049l", 1)[-1]).decode("utf-8", "replace")
    command = after.split("To resume this session:\r\n", 1)[1].splitlines()[0]
    assert "--session-dir" in command, command
    words = shlex.split(command)
    assert words[0] == "pi"
    # What the user pastes, in print mode so it ends: the same session goes on.
    done = subprocess.run([PI, "--demo", *words[1:], "-p", "again"], env=env, cwd=env["PI_TEST_PROJECT"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "No session found" not in done.stderr
    assert "hello there" in (elsewhere / "x.jsonl").read_text() and "again" in (elsewhere / "x.jsonl").read_text()
