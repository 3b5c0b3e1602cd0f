"""The installed ``pi`` on a real pseudo-terminal: keys typed while it starts, and the terminal
it leaves behind."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from pathlib import Path

from e2e_support import PI

from pi_runtime.modes.typeahead import Typeahead
from pi_runtime.testing.waiting import wait_until

_ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x1b\][^\x07]*\x07")


class Terminal:
    """``pi`` on a pty; ``screen`` is everything it printed, escape sequences removed."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become pi, on a terminal of 100x30 as a real one reports it
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
            os.chdir(env["PI_TEST_PROJECT"])
            os.execve(PI, [PI, *args], {**env, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"})
        self.output = b""

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)

    def read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                self.output += os.read(self.fd, 65536)
            except OSError:  # the child has gone
                time.sleep(timeout)

    @property
    def screen(self) -> str:
        return _ANSI.sub(b"", self.output).decode("utf-8", "replace")

    def mark(self) -> int:
        """Where the output is now: ``wait_for(..., since=mark)`` looks only at what came after."""
        return len(self.output)

    def wait_for(self, *texts: str, timeout: float = 30, since: int = 0) -> bool:
        """True as soon as any of ``texts`` (spaces removed) is on the screen (printed after byte
        ``since``); False after ``timeout``."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = _ANSI.sub(b"", self.output[since:]).decode("utf-8", "replace").replace(" ", "")
            if any(text in screen for text in texts):
                return True
            self.read(0.05)
        return False

    def wait_for_bytes(self, data: bytes, timeout: float = 30, since: int = 0) -> bool:
        """True as soon as pi has written ``data`` as it is (escape sequences and all)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if data in self.output[since:]:
                return True
            self.read(0.05)
        return False

    def exit_status(self, timeout: float = 15) -> int | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self.read(0.05)
        return None

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def answers_saved(env: dict[str, str]) -> int:
    """How many session files hold a finished answer (pi saves it when the run settles)."""
    count = 0
    for path in (Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl"):
        entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        count += any(e.get("type") == "message" and e["message"].get("role") == "assistant" for e in entries)
    return count


def test_a_prompt_typed_the_moment_pi_starts_is_sent_and_the_next_one_kept(terminal):
    term = terminal("--demo")
    # Typed before pi has even started Python: the terminal is still in line mode, so Enter
    # arrives as a line feed. pi must send "abc" and keep "def" in the editor.
    term.type(b"abc\r")
    term.type(b"def")
    assert term.wait_for("Youasked:abc"), term.screen[-2000:]
    assert "Youasked:abcdef" not in term.screen.replace(" ", "")
    before_quit = len(term.output)
    term.type(b"\x15")  # Ctrl+U: the editor holds "def"; clear it so Ctrl+D quits
    term.type(b"\x03")  # Ctrl+C clears the editor
    term.type(b"\x04")  # Ctrl+D on an empty editor quits
    assert term.exit_status() == 0, term.screen[before_quit:]


def test_pi_leaves_the_terminal_in_line_mode_when_it_exits(terminal):
    term = terminal("--demo")
    assert term.wait_for("demo-model")
    term.type(b"\x04")
    assert term.exit_status() == 0
    iflag, _, _, lflag, *_ = termios.tcgetattr(term.fd)  # the slave's settings, through the master
    assert iflag & termios.ICRNL and lflag & termios.ICANON and lflag & termios.ECHO


def test_typeahead_splits_sent_lines_from_the_partial_one():
    typed = Typeahead.parse(b"fix the bug\n\x1b[Aagain\r\nand this")
    assert typed.lines == ["fix the bug", "again"]
    assert typed.partial == "and this"
    assert Typeahead.parse(b"").lines == [] and Typeahead.parse(b"").partial == ""


def test_quitting_leaves_the_conversation_and_the_resume_command_on_the_normal_screen(terminal, env):
    term = terminal("--demo")
    assert term.wait_for("demo-model")
    term.type(b"hello there\r")
    assert term.wait_for("forrealanswers")  # the end of the demo's answer
    assert wait_until(lambda: answers_saved(env) == 1)  # the run has settled: Ctrl+D quits, not aborts
    term.type(b"\x04")
    assert term.exit_status() == 0
    after = _ANSI.sub(b"", term.output.rsplit(b"\x1b[?1049l", 1)[-1]).decode("utf-8", "replace")
    assert "> hello there" in after
    # The answer's markdown is rendered (emphasis is a style, not asterisks), as Pi prints it.
    assert "You asked: hello there" in after and "*hello there*" not in after and "aborted" not in after
    sessions = list((Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl"))
    [session_id] = [json.loads(p.read_text().splitlines()[0])["id"] for p in sessions]
    assert f"To resume this session:\r\npi --session {session_id}" in after


def test_quitting_before_any_answer_offers_no_session_to_resume(terminal, env):
    term = terminal("--demo")
    assert term.wait_for("escapeinterrupt")  # the start help: the session is attached
    term.type(b"\x04")
    assert term.exit_status() == 0
    after = _ANSI.sub(b"", term.output.rsplit(b"\x1b[?1049l", 1)[-1]).decode("utf-8", "replace")
    assert "To resume this session" not in after  # no file was written: `pi --session` would not find it
    assert not list((Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl"))


def test_fullscreen_exit_output_resume_hint_prints_only_the_command(terminal, env):
    Path(env["PI_CODING_AGENT_DIR"], "settings.json").write_text('{"fullscreenExitOutput": "resume-hint"}')
    term = terminal("--demo")
    assert term.wait_for("demo-model")
    term.type(b"hello there\r")
    assert term.wait_for("Youasked:hellothere")
    term.type(b"\x04")
    assert term.exit_status() == 0
    after = _ANSI.sub(b"", term.output.rsplit(b"\x1b[?1049l", 1)[-1]).decode("utf-8", "replace")
    assert "To resume this session:" in after and "hello there" not in after


def test_an_untrusted_project_asks_before_its_resources_load_and_remembers(terminal, env):
    project = Path(env["PI_TEST_PROJECT"])
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text('{"hideThinkingBlock": true}')
    term = terminal("--demo")
    assert term.wait_for("Trustprojectfolder?")
    assert term.wait_for("Trustparentfolder")
    term.type(b"\r")  # Trust (saved)
    assert term.wait_for("Pressctrl+otoshowfullstartuphelp")  # the session is there
    term.type(b"\x04")
    assert term.exit_status() == 0, term.screen[-1500:]
    saved = json.loads((Path(env["PI_CODING_AGENT_DIR"]) / "trust.json").read_text())
    assert saved == {os.path.realpath(project): True}
    again = terminal("--demo")  # decided: no question the second time
    assert again.wait_for("demo-model")
    assert "Trustprojectfolder?" not in again.screen.replace(" ", "")


def test_esc_on_the_trust_question_ignores_the_project_this_time_only(terminal, env):
    project = Path(env["PI_TEST_PROJECT"])
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text("{}")
    term = terminal("--demo")
    assert term.wait_for("Trustprojectfolder?")
    term.type(b"\x1b")
    assert term.wait_for("escapeinterrupt")  # the session is attached: its start-up help is shown
    # The warning must outlast the attach (whose history replaced the transcript and took the
    # warning with it, so it only flashed, or, on a busy machine, never showed): a narrower
    # terminal wraps the transcript anew, so every line of it is drawn again and must still hold
    # it. (A terminal only taller redraws just what moved: a loaded run saw nothing but borders.)
    repaint = term.mark()
    fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 90, 0, 0))
    assert term.wait_for("Thisprojectisnottrusted", since=repaint), term.screen[-3000:]
    assert not (Path(env["PI_CODING_AGENT_DIR"]) / "trust.json").exists()


def test_a_resize_is_followed_even_with_columns_and_lines_exported(terminal):
    # The terminal runs pi with COLUMNS=100 and LINES=30 in its environment (as some shells
    # export them). Textual reads those before the terminal, so pi kept drawing for 100x30.
    term = terminal("--demo")
    assert term.wait_for("demo-model")
    resized = term.mark()
    fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 72, 0, 0))
    # The editor's box is drawn again, 72 columns wide.
    assert term.wait_for("╭" + "─" * 70 + "╮", since=resized), term.screen[-1500:]
    term.type(b"\x04")
    assert term.exit_status() == 0


def test_an_extensions_set_title_reaches_the_terminal(terminal, tmp_path):
    # Pi's setTitle sets the terminal's window title; Textual's App.title alone shows nowhere.
    ext = tmp_path / "title.py"
    ext.write_text("def extension(pi):\n"
                   "    pi.on('session_start', lambda event, ctx: ctx.ui.set_title('π - titled\\x1b]evil'))\n")
    term = terminal("--demo", "-e", str(ext))
    assert term.wait_for("demo-model")
    # (OSC 0, as Pi's setTitle), the escape in the title dropped
    assert term.wait_for_bytes("\x1b]0;π - titled]evil\x07".encode(), timeout=10), term.output[-500:]
    term.type(b"\x04")
    assert term.exit_status() == 0


def test_a_second_session_opens_in_a_tab_keeps_its_own_file_and_both_quit(terminal, env):
    term = terminal("--demo")
    assert term.wait_for("demo-model")
    term.type(b"hello one\r")
    assert term.wait_for("Youasked:helloone")
    term.type(b"/open\r")  # a second session in a new tab; the first stays open
    assert term.wait_for("2○newsession"), term.screen[-1500:]  # tab 2, idle, a new session
    mark = len(term.output)
    term.type(b"hello two\r")
    assert term.wait_for("Youasked:hellotwo")
    # The first tab's conversation is not drawn here (its tab's label names its first prompt).
    assert "Youasked:helloone" not in _ANSI.sub(b"", term.output[mark:]).decode("utf-8", "replace").replace(" ", "")
    mark = len(term.output)
    term.type(b"\x1b[5;3~")  # alt+pageUp: app.session.previous, back to the first
    end = time.monotonic() + 15
    while "Youasked:helloone" not in _ANSI.sub(b"", term.output[mark:]).decode("utf-8", "replace").replace(" ", ""):
        assert time.monotonic() < end, term.screen[-1500:]
        term.read(0.05)
    assert wait_until(lambda: answers_saved(env) == 2)  # both runs have settled
    term.type(b"\x04")  # both idle: quits at once
    assert term.exit_status() == 0, term.screen[-1500:]
    files = list((Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl"))
    texts = sorted(p.read_text() for p in files)
    assert len(files) == 2 and "hello one" in texts[0] + texts[1]
    assert sum("hello one" in t for t in texts) == 1 and sum("hello two" in t for t in texts) == 1



def test_keys_typed_in_one_burst_arrive_whole_and_in_order(terminal, env):
    # A key macro or a paste without bracketed paste: hundreds of keys in one read, which the
    # app's input thread hands to the editor as runs (terminal/typed_runs.py), Home and End among them.
    term = terminal("--demo")
    assert term.wait_for("escapeinterrupt")  # the session is attached
    words = " ".join(f"word{i}" for i in range(150))
    term.type(b"abc\x1b[HXY\x1b[F" + words.encode() + b"\r")
    assert wait_until(lambda: answers_saved(env) == 1, timeout=30), term.screen[-1500:]
    [path] = (Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    [user] = [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "user"]
    content = user["content"]
    text = content if isinstance(content, str) else "".join(block.get("text", "") for block in content)
    assert text == "XYabc" + words


def _without_editors(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in ("VISUAL", "EDITOR")}


def test_an_editor_that_cannot_start_is_named_and_pi_keeps_taking_keys(env, tmp_path):
    # Ctrl+G (a BEL byte in pasted text is one too) with no editor installed: pi stayed suspended,
    # its input and output threads stopped, and never drew again.
    term = Terminal(["--demo"], {**_without_editors(env), "EDITOR": str(tmp_path / "no-such-editor")})
    try:
        assert term.wait_for("demo-model"), term.screen[-2000:]
        term.type(b"hello")
        assert term.wait_for("hello")
        since = term.mark()
        term.type(b"\x07")
        assert term.wait_for("Failedtolaunchexternaleditor", since=since), term.screen[-2000:]
        term.type(b" world\r")
        assert term.wait_for("Youasked:helloworld", since=since), term.screen[-2000:]
    finally:
        term.close()


def test_ctrl_g_edits_the_prompt_in_the_users_editor(env, tmp_path):
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "%s edited\\n" "$(cat "$1")" > "$1"\n', encoding="utf-8")
    editor.chmod(0o755)
    failing = tmp_path / "failing.sh"
    failing.write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    failing.chmod(0o755)
    term = Terminal(["--demo"], {**_without_editors(env), "VISUAL": str(editor), "EDITOR": str(failing)})
    try:
        assert term.wait_for("demo-model"), term.screen[-2000:]
        term.type(b"hello")
        assert term.wait_for("hello")
        since = term.mark()
        term.type(b"\x07")
        assert term.wait_for("helloedited", since=since), term.screen[-2000:]
        term.type(b"\r")
        assert term.wait_for("Youasked:helloedited", since=since), term.screen[-2000:]
    finally:
        term.close()


def test_an_app_key_typed_with_text_in_one_read_comes_after_the_text(env, tmp_path):
    """The app's own keys run at the app, ahead of keys the editor had been handed: "hello" and
    Ctrl+G in one read (a fast typist, tmux) opened the editor on an empty prompt, then typed
    "hello" after what it returned; "draft" and Ctrl+C left "draft" and armed the quit."""
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "%s edited\\n" "$(cat "$1")" > "$1"\n', encoding="utf-8")
    editor.chmod(0o755)
    term = Terminal(["--demo"], {**_without_editors(env), "VISUAL": str(editor)})
    try:
        assert term.wait_for("demo-model"), term.screen[-2000:]
        since = term.mark()
        term.type(b"draft\x03")  # Ctrl+C clears a prompt that is not empty
        term.type(b"hello\x07")
        assert term.wait_for("helloedited", since=since), term.screen[-2000:]
        term.type(b"\r")
        assert term.wait_for("Youasked:helloedited", since=since), term.screen[-2000:]  # not "drafthello…"
    finally:
        term.close()

