"""Shift+Enter and Ctrl+Shift+F under tmux: the installed ``pi`` on a pty asks for xterm's
modifyOtherKeys as Pi does, reads the keys in both of tmux's formats, gives the terminal back
as it found it, and warns (Pi's words) when tmux's extended keys are off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_interactive_pty import Terminal

from pi_tui.terminal import extended_keys

REQUEST = b"\x1b[>4;2m"
RESET = b"\x1b[>4;0m"


@pytest.fixture
def terminal(env):
    opened: list[Terminal] = []

    def start(*args: str, extra_env: dict[str, str] | None = None) -> Terminal:
        term = Terminal(list(args), {**env, **(extra_env or {})})
        opened.append(term)
        return term

    yield start
    for term in opened:
        term.close()


def _user_texts(env: dict[str, str]) -> list[str]:
    [session] = list((Path(env["PI_CODING_AGENT_DIR"]) / "sessions").rglob("*.jsonl"))
    texts = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if message.get("role") == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return texts


@pytest.mark.parametrize("shift_enter", [b"\x1b[13;2u", b"\x1b[27;2;13~"], ids=["csi-u", "xterm"])
def test_modified_keys_are_requested_read_and_the_request_withdrawn_on_exit(terminal, env, shift_enter):
    term = terminal("--demo")
    assert term.wait_for("escapeinterrupt")  # the session is attached
    assert REQUEST in term.output  # asked for modifyOtherKeys, as Pi does
    term.type(b"first" + shift_enter + b"second\r")
    assert term.wait_for("Youasked:")
    term.type(b"\x1b[70;6u")  # Ctrl+Shift+F as tmux sends it (csi-u)
    assert term.wait_for("searchthetranscript")
    term.type(b"\x1b")
    term.type(b"\x04")
    assert term.exit_status() == 0, term.screen[-1500:]
    assert _user_texts(env) == ["first\nsecond"]
    # Withdrawn after the last request and before the normal screen comes back.
    last_request = term.output.rindex(REQUEST)
    reset = term.output.index(RESET, last_request)
    assert reset < term.output.rindex(b"\x1b[?1049l")


@pytest.fixture
def tmux_server(tmp_path):
    """A real tmux server of the test's own; yields a function that sets extended-keys and
    returns the ``TMUX`` value a program inside it would see."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    socket = tmp_path / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-s", "t"], check=True)

    def configure(extended_keys_value: str) -> str:
        subprocess.run(["tmux", "-S", str(socket), "set", "-g", "extended-keys", extended_keys_value], check=True)
        pid = subprocess.run(["tmux", "-S", str(socket), "display", "-p", "#{pid}"], check=True,
                             capture_output=True, text=True).stdout.strip()
        return f"{socket},{pid},0"

    yield configure
    subprocess.run(["tmux", "-S", str(socket), "kill-server"], check=False)


def test_pi_warns_at_start_when_tmux_extended_keys_are_off(terminal, tmux_server):
    term = terminal("--demo", extra_env={"TMUX": tmux_server("off")})
    assert term.wait_for("tmuxextended-keysisoff.ModifiedEnterkeysmaynotwork.")
    assert term.wait_for("restarttmux.")


def test_no_warning_when_tmux_extended_keys_are_on_or_outside_tmux(tmux_server, monkeypatch):
    monkeypatch.setenv("TMUX", tmux_server("on"))
    assert extended_keys.tmux_warning() is None
    monkeypatch.setenv("TMUX", tmux_server("off"))
    assert extended_keys.tmux_warning() == extended_keys.TMUX_EXTENDED_KEYS_OFF
    monkeypatch.delenv("TMUX")
    assert extended_keys.tmux_warning() is None
    assert "TMUX" not in os.environ
