"""The app on a disk that fills up while it runs: quitting says what the session file lacks.

The error notice shown when a save fails goes with the app's screen; before, the user was left
with "To resume this session" as if everything were in the file. A real full tmpfs (root only;
skipped elsewhere) holds the session folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from e2e_support import MODEL, text_reply
from test_interactive_pty import Terminal

from pi_runtime.testing.tmpfs import small_tmpfs


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def user_texts(disk: Path) -> list[str]:
    [path] = disk.rglob("*.jsonl")
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [e["message"]["content"] if isinstance(e["message"]["content"], str) else e["message"]["content"][0]["text"]
            for e in entries if e["type"] == "message" and e["message"]["role"] == "user"]


def start_then_fill(env: dict[str, str], loopback, disk: Path) -> tuple[Terminal, Path]:
    loopback.push(text_reply("first answer"), text_reply("second answer"))
    term = Terminal(["--model", MODEL, "--session-dir", str(disk)], env)
    assert term.wait_for("loop-model"), term.screen[-2000:]
    term.type(b"first prompt\r")
    assert term.wait_for("firstanswer"), term.screen[-2000:]
    filler = fill(disk)
    mark = term.mark()
    term.type(b"second prompt " + b"x" * 6000 + b"\r")
    assert term.wait_for("secondanswer", since=mark), term.screen[-2000:]
    assert term.wait_for("Couldnotsave", since=mark), term.screen[-2000:]  # said when it failed
    return term, filler


def test_quitting_with_entries_the_full_disk_refused_says_so_and_exits_1(env, loopback, tmp_path):
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        term, _ = start_then_fill(env, loopback, disk)
        try:
            term.type(b"\x04")  # Ctrl+D on an empty editor quits
            assert term.exit_status() == 1
            tail = term.screen[-3000:].replace("\r", "")
            assert "No space left on device" in tail and "session entries are not in the file" in tail, tail
            assert "To resume this session" in tail  # what is in the file can still be resumed
        finally:
            term.close()
        assert user_texts(disk) == ["first prompt"]


def test_room_again_before_quitting_saves_everything_at_the_close(env, loopback, tmp_path):
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        term, filler = start_then_fill(env, loopback, disk)
        try:
            filler.unlink()  # no entry comes after this: only closing the session can save them
            term.type(b"\x04")
            assert term.exit_status() == 0
            assert "not in the file" not in term.screen
        finally:
            term.close()
        assert user_texts(disk) == ["first prompt", "second prompt " + "x" * 6000]
