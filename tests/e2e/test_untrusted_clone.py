"""A stranger's clone cannot stop pi (issue #34).

Its ``.pi/settings.json`` holds a number of 100,000 digits or arrays nested 100,000 deep. pi
used to parse it before the trust question (for ``sessionDir``): ``pi -p`` ended with a
traceback, and in the app even "Do not trust" exited. Now an untrusted project's files are not
read at all, and a trusted one's bad value is one warning line, the rest of the file applies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import MODEL, run_pi, session_files, text_reply
from test_interactive_pty import Terminal

HOSTILE = {
    "digits": '{"theme": ' + "9" * 100_000 + ', "sessionDir": "stolen"}',
    "nested": '{"theme": ' + "[" * 100_000 + "]" * 100_000 + ', "sessionDir": "stolen"}',
}


def clone(env: dict[str, str], kind: str) -> Path:
    project = Path(env["PI_TEST_PROJECT"])
    (project / ".pi").mkdir()
    path = project / ".pi" / "settings.json"
    path.write_text(HOSTILE[kind])
    return path


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_print_mode_in_an_untrusted_clone_does_not_read_its_settings(loopback, env, kind):
    clone(env, kind)
    loopback.push(text_reply("Fine."))
    result = run_pi(["-p", "hello", "--model", MODEL], env)
    assert (result.returncode, result.stdout, result.stderr) == (0, "Fine.\n", "")
    # Its sessionDir was not used: the conversation went where the user's settings say.
    assert not (Path(env["PI_TEST_PROJECT"]) / "stolen").exists() and len(session_files(env)) == 1


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_trusted_clone_with_a_bad_value_is_one_warning_and_the_rest_applies(loopback, env, kind):
    path = clone(env, kind)
    loopback.push(text_reply("Fine."))
    result = run_pi(["-p", "hello", "--model", MODEL, "--approve"], env)
    reason = "a number of 100,000 digits, too large to use" if kind == "digits" else "nested more than 64 levels deep"
    assert (result.returncode, result.stdout) == (0, "Fine.\n")
    assert result.stderr == f"pi: {path}: theme: {reason}; ignored\n"
    stolen = Path(env["PI_TEST_PROJECT"]) / "stolen"
    assert len(list(stolen.glob("*.jsonl"))) == 1  # trusted: its sessionDir applies


@pytest.mark.parametrize("choice", ["trust", "do-not-trust"])
def test_the_app_in_a_hostile_clone_goes_on_after_either_answer(loopback, env, choice):
    path = clone(env, "digits")
    theme = Path(env["PI_TEST_PROJECT"]) / ".pi" / "themes"
    theme.mkdir()
    (theme / "clone.json").write_text(json.dumps({"name": "clone-theme", "colors": {"accent": "#ff0000"}}))
    loopback.push(text_reply("Still here."))
    term = Terminal(["--model", MODEL], env)
    try:
        assert term.wait_for("Trustprojectfolder?"), term.screen[-2000:]
        assert term.wait_for("Trustparentfolder"), term.screen[-2000:]
        # "Trust" is the first row; "Do not trust" the fourth.
        term.type(b"\r" if choice == "trust" else b"\x1b[B\x1b[B\x1b[B\r")
        if choice == "trust":
            assert term.wait_for("anumberof100,000digits"), term.screen[-2000:]
        else:
            assert term.wait_for("Thisprojectisnottrusted"), term.screen[-2000:]
        term.type(b"hello\r")
        assert term.wait_for("Stillhere."), term.screen[-3000:]
        assert term.exit_status(timeout=0.5) is None  # still running
    finally:
        term.close()
    assert path.exists()
