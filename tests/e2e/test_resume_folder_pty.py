"""A session of another project, resumed from the installed ``pi`` on a real terminal (``/resume``
and ``/open resume``, the picker's "all" scope): it runs in the folder it was recorded in, as Pi
1.6 runs it (its tools, context files and footer are that folder's). When that folder is gone,
Pi's question decides; "continue" runs it in the current folder.

The model asks for ``pwd`` through the bash tool; the tool result the loopback server receives
says where the tool ran.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from e2e_support import MODEL, run_pi, text_reply, tool_reply
from test_interactive_pty import Terminal

from pi_runtime.testing.waiting import wait_until

TAB = b"\t"


def tool_output(request) -> str:
    [result] = [m for m in request.json()["messages"] if m["role"] == "tool"]
    content = result["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def record_session_in(folder: Path, env: dict[str, str], loopback, words: str) -> None:
    """A saved session whose header records ``folder`` (``pi -p`` run there)."""
    folder.mkdir(exist_ok=True)
    loopback.push(text_reply(f"Noted: {words}"))
    done = run_pi(["--model", MODEL, "-p", words], {**env, "PI_TEST_PROJECT": str(folder)})
    assert done.returncode == 0, done.stderr


@pytest.fixture
def folders(env, loopback, tmp_path):
    """(project A with a saved session and an AGENTS.md, project B where pi starts)."""
    a, b = Path(env["PI_TEST_PROJECT"]), tmp_path / "project-b"
    b.mkdir()
    (a / "AGENTS.md").write_text("Project A's rules\n", encoding="utf-8")
    record_session_in(a, env, loopback, "remember project a")
    return a, b


def start_in(folder: Path, env: dict[str, str]) -> Terminal:
    term = Terminal(["--model", MODEL], {**env, "PI_TEST_PROJECT": str(folder)})
    assert term.wait_for("loop-model"), term.screen[-2000:]
    return term


def pick_from_all_folders(term: Terminal, command: bytes, folder: Path, search: str = "remember") -> None:
    """Run ``command`` (``/resume`` or ``/open resume``) and pick the session recorded in ``folder``
    (the only one whose first message has ``search`` in it)."""
    mark = term.mark()
    term.type(command)
    assert term.wait_for("Resumeasession", since=mark), term.screen[-2000:]
    mark = term.mark()
    term.type(TAB)  # all folders
    assert term.wait_for("allfolders", since=mark), term.screen[-2000:]
    assert term.wait_for(str(folder), since=mark), term.screen[-2000:]  # the row names its folder
    mark = term.mark()
    term.type(search.encode())
    assert term.wait_for("1/1", since=mark), term.screen[-2000:]  # only that session is left
    term.type(b"\r")


def ask_for_pwd(term: Terminal, loopback) -> str:
    """Send a prompt whose answer runs ``pwd``; returns what the tool printed."""
    before = len(loopback.requests)
    loopback.push(tool_reply("bash", {"command": "pwd"}), text_reply("That is where I am."))
    term.type(b"where are we\r")
    # Reading while waiting: a pty nobody reads fills up and stops pi at its next write.
    assert wait_until(lambda: term.read(0.05) or len(loopback.requests) == before + 2, timeout=30), term.screen[-2000:]
    assert term.wait_for("ThatiswhereIam"), term.screen[-2000:]
    return tool_output(loopback.requests[-1]).strip()


def system_prompt(request) -> str:
    return next(m["content"] for m in request.json()["messages"] if m["role"] == "system")


def test_resume_runs_a_session_of_another_folder_in_that_folder(folders, env, loopback):
    a, b = folders
    term = start_in(b, env)
    try:
        pick_from_all_folders(term, b"/resume\r", a)
        assert term.wait_for("Resumedsessionin"), term.screen[-2000:]
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(a)
        assert "Project A's rules" in system_prompt(loopback.requests[-1])  # A's context file
        sessions = list(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
        assert len(sessions) == 1  # the resumed file grew; no session was started in B
        assert "where are we" in sessions[0].read_text(encoding="utf-8")
    finally:
        term.close()


def test_open_resume_runs_it_in_its_folder_in_a_new_tab_beside_this_one(folders, env, loopback):
    a, b = folders
    term = start_in(b, env)
    try:
        pick_from_all_folders(term, b"/open resume\r", a)
        assert term.wait_for("2○", "2●"), term.screen[-2000:]  # the second tab (its number, then its state)
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(a)
        mark = term.mark()
        term.type(b"\x1b[5;3~")  # Alt+PageUp: back to the first tab, which still runs in B
        assert term.wait_for(str(b), since=mark), term.screen[-2000:]  # its footer names B
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(b)
        # /resume of the session the second tab has open shows that tab (its file is locked there).
        pick_from_all_folders(term, b"/resume\r", a)
        assert term.wait_for("Alreadyopen:rememberprojecta"), term.screen[-2000:]  # the tab, by its first prompt
        assert "Couldnotresume" not in term.screen.replace(" ", "")
    finally:
        term.close()


def test_a_session_whose_folder_is_gone_asks_and_continues_here(env, loopback, tmp_path):
    # A short path for the folder that goes: the picker's row (100 columns) cuts a long one at its
    # end, as Pi does, and pytest's own folders (pytest-1069/popen-gw1/test_…0/) leave no room.
    gone, b = Path(tempfile.mkdtemp(prefix="pi-gone-")), tmp_path / "project-b"
    gone.rmdir()  # made again, by record_session_in
    b.mkdir()
    record_session_in(gone, env, loopback, "remember the old folder")
    shutil.rmtree(gone)
    term = start_in(b, env)
    try:
        pick_from_all_folders(term, b"/resume\r", gone)
        assert term.wait_for("Sessioncwddoesnotexist"), term.screen[-2000:]
        term.type(b"\r")  # the first choice: continue in the current folder
        assert term.wait_for("Resumedsessionin"), term.screen[-2000:]
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(b)
    finally:
        term.close()


def test_a_folder_with_its_own_settings_asks_for_trust_before_its_session_opens(folders, env, loopback):
    a, b = folders
    (a / ".pi").mkdir()
    (a / ".pi" / "settings.json").write_text("{}", encoding="utf-8")
    term = start_in(b, env)
    try:
        pick_from_all_folders(term, b"/resume\r", a)
        assert term.wait_for("Trustprojectfolder?"), term.screen[-2000:]
        term.type(b"\x1b")  # Esc: not trusted, this session only
        assert term.wait_for("Thisprojectisnottrusted"), term.screen[-2000:]  # said in the resumed session
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(a)
    finally:
        term.close()


def project_extension_that_leaves_a_mark(folder: Path, mark: Path) -> None:
    (folder / ".pi" / "extensions").mkdir(parents=True)
    (folder / ".pi" / "extensions" / "mark.py").write_text(
        f"import pathlib\n\ndef extension(pi):\n    pathlib.Path({str(mark)!r}).write_text('loaded')\n", encoding="utf-8")


def test_session_flag_from_another_folder_takes_that_folders_trust_not_the_launch_folders(folders, env, loopback,
                                                                                         tmp_path):
    """``pi --session <A's file>`` started in B (which has no project resources, so it needs no
    trust) ran A's project extension without A ever being trusted; Pi 1.6 does not load it."""
    a, b = folders
    mark = tmp_path / "extension-ran"
    project_extension_that_leaves_a_mark(a, mark)
    [recorded] = list(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
    loopback.push(text_reply("Still here."))
    done = run_pi(["--model", MODEL, "-p", "--session", str(recorded), "go on"], {**env, "PI_TEST_PROJECT": str(b)})
    assert done.returncode == 0, done.stderr
    assert not mark.exists()  # headless: A's trust is an open question, taken as "no"

    term = Terminal(["--model", MODEL, "--session", str(recorded)], {**env, "PI_TEST_PROJECT": str(b)})
    try:
        assert term.wait_for("Trustprojectfolder?"), term.screen[-2000:]  # asked about A, where it runs
        assert term.wait_for(str(a).replace(" ", "")), term.screen[-2000:]
        assert not mark.exists()
        term.type(b"\x1b")  # not trusted, this time only
        assert term.wait_for("Thisprojectisnottrusted"), term.screen[-2000:]
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(a)
        assert not mark.exists()
    finally:
        term.close()


def session_of_a_gone_folder(env, loopback, tmp_path) -> tuple[Path, Path]:
    """(the session file of a folder since deleted, the folder pi starts in)."""
    gone, b = tmp_path / "project-gone", tmp_path / "project-b"
    b.mkdir()
    record_session_in(gone, env, loopback, "remember the old folder")
    shutil.rmtree(gone)
    [file] = Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl")
    return file, b


@pytest.mark.parametrize("choice", ["continue", "fork", "cancel"])
def test_pi_session_on_a_file_whose_folder_is_gone_asks_first(env, loopback, tmp_path, choice):
    # Pi 1.6 asks before the session opens: continue here, fork into a new session here, or cancel.
    file, b = session_of_a_gone_folder(env, loopback, tmp_path)
    original = file.read_bytes()
    term = Terminal(["--model", MODEL, "--session", str(file)], {**env, "PI_TEST_PROJECT": str(b)})
    try:
        assert term.wait_for("Sessioncwddoesnotexist"), term.screen[-2000:]
        assert term.wait_for("Forkinto"), term.screen[-2000:]
        if choice == "cancel":
            term.type(b"\x1b")
            assert term.exit_status() == 0, term.screen[-2000:]
            assert file.read_bytes() == original
            return
        mark = term.mark()
        term.type(b"\r" if choice == "continue" else b"\x1b[B\r")
        assert term.wait_for("loop-model", since=mark), term.screen[-2000:]  # the session is attached
        assert os.path.realpath(ask_for_pwd(term, loopback)) == os.path.realpath(b)
        sessions = sorted(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
        if choice == "continue":
            assert sessions == [file] and "where are we" in file.read_text(encoding="utf-8")
        else:
            assert file.read_bytes() == original  # the original is kept as it was
            [fork] = [s for s in sessions if s != file]
            text = fork.read_text(encoding="utf-8")
            assert "remember the old folder" in text and "where are we" in text and str(file) in text
    finally:
        term.close()


def test_headless_modes_stop_on_a_session_whose_folder_is_gone(env, loopback, tmp_path):
    file, b = session_of_a_gone_folder(env, loopback, tmp_path)
    original = file.read_bytes()
    done = run_pi(["--model", MODEL, "--session", str(file), "-p", "hello"], {**env, "PI_TEST_PROJECT": str(b)})
    assert done.returncode == 1
    assert "Stored session working directory does not exist" in done.stderr and str(file) in done.stderr
    assert file.read_bytes() == original
