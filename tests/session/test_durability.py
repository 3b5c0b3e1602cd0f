"""Durability with real processes: kill -9 mid-append, torn last lines, malformed lines, two writers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from session_helpers import assistant, user

from pi_runtime.session import SessionLockedError, SessionManager

ROOT = Path(__file__).resolve().parents[2]


def run_py(code: str, *args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def make_session(tmp_path: Path, n: int = 2) -> Path:
    m = SessionManager.create("/proj", tmp_path)
    for i in range(n):
        m.append_message(user(f"q{i}"))
        m.append_message(assistant(f"a{i}"))
    m.close()
    return m.session_file


def test_half_json_last_line_is_reported_and_next_append_starts_fresh(tmp_path):
    path = make_session(tmp_path)
    with open(path, "ab") as fh:
        fh.write(b'{"type":"message","id":"deadbeef","parentId":null,"message":{"role":"us')
    m = SessionManager.open(path)
    assert m.load_report.torn_tail and m.load_report.malformed_lines == 1
    assert any("incomplete" in w for w in m.load_report.warnings)
    assert len(m.raw_entries()) == 4
    new_id = m.append_message(user("after crash"))
    m.close()
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert json.loads(lines[-2])["id"] == new_id
    again = SessionManager.open(path)
    assert not again.load_report.torn_tail and again.load_report.malformed_lines == 1
    assert again.leaf_id == new_id and len(again.raw_entries()) == 5
    again.close()


def test_complete_last_line_without_newline_is_kept(tmp_path):
    path = make_session(tmp_path)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    m = SessionManager.open(path)
    assert not m.load_report.torn_tail and len(m.raw_entries()) == 4
    m.append_message(user("next"))
    m.close()
    assert [json.loads(x)["type"] for x in path.read_text().splitlines()][-2:] == ["message", "message"]


def test_malformed_lines_are_skipped_and_counted(tmp_path):
    path = make_session(tmp_path)
    lines = path.read_text().splitlines()
    lines.insert(2, "this is not json")
    lines.insert(4, "[1, 2, 3]")
    lines.insert(5, "")
    path.write_text("\n".join(lines) + "\n")
    m = SessionManager.open(path)
    assert m.load_report.malformed_lines == 2 and not m.load_report.torn_tail
    assert len(m.raw_entries()) == 4
    m.close()


def test_lines_named_in_warnings_count_blank_and_whitespace_lines(tmp_path):
    # A whitespace-only line (skipped silently) and a line of two objects (malformed, as in
    # Pi) must not shift the line numbers reported for the damage after them.
    path = make_session(tmp_path)
    lines = path.read_text().splitlines()
    lines.insert(2, "   ")
    lines.insert(3, '{"type":"custom","id":"x1","parentId":null} {"type":"custom"}')
    path.write_text("\n".join(lines) + "\n")
    m = SessionManager.open(path)
    assert m.load_report.malformed_lines == 1
    assert any("line 4:" in w for w in m.load_report.warnings), m.load_report.warnings
    assert len(m.raw_entries()) == 4
    m.close()


WRITER = """
    import sys
    from pi_runtime.ai.types import UserMessage, AssistantMessage, TextContent
    from pi_runtime.session import SessionManager
    m = SessionManager.create("/proj", sys.argv[1])
    m.append_message(UserMessage(content="start"))
    m.append_message(AssistantMessage(content=[TextContent(text="ok")], stop_reason="stop"))
    print(m.session_file, flush=True)
    big = "x" * int(sys.argv[2])
    i = 0
    while True:
        m.append_message(UserMessage(content=f"{i}:" + big))
        i += 1
"""


@pytest.mark.parametrize("line_size", [200, 4_000_000])
def test_kill_9_during_appends_leaves_a_loadable_file(tmp_path, line_size):
    proc = run_py(WRITER, str(tmp_path), str(line_size))
    path = Path(proc.stdout.readline().strip())
    deadline = time.time() + 10
    while path.stat().st_size < 3 * line_size + 2000 and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    m = SessionManager.open(path)
    report = m.load_report
    # At most the one line being written can be lost; everything before it is intact.
    assert report.malformed_lines <= 1 and report.malformed_lines == int(report.torn_tail)
    contents = [e["message"]["content"] for e in m.raw_entries()][2:]
    assert len(contents) >= 3
    assert [c.split(":", 1)[0] for c in contents] == [str(i) for i in range(len(contents))]
    assert all(len(c) == len(str(i)) + 1 + line_size for i, c in enumerate(contents))
    last = m.append_message(user("recovered"))
    m.close()
    again = SessionManager.open(path)
    assert again.leaf_id == last and again.load_report.malformed_lines == report.malformed_lines
    again.close()


def test_process_killed_after_writing_half_a_line(tmp_path):
    path = make_session(tmp_path)
    code = """
        import os, signal, sys
        from pi_runtime.session import SessionManager
        m = SessionManager.open(sys.argv[1])
        fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
        os.write(fd, b'{"type":"message","id":"0badf00d","parentId":"x","message":{"ro')
        os.kill(os.getpid(), signal.SIGKILL)
    """
    proc = run_py(code, str(path))
    proc.communicate(timeout=20)
    assert proc.returncode == -signal.SIGKILL
    m = SessionManager.open(path)  # the dead process's lock is gone with it
    assert m.load_report.torn_tail
    m.append_message(user("fresh line"))
    m.close()
    reopened = SessionManager.open(path, read_only=True)
    assert reopened.build_session_context().messages[-1].content == "fresh line"


HOLDER = """
    import sys, time
    from pi_runtime.session import SessionManager
    from pi_runtime.ai.types import UserMessage
    m = SessionManager.open(sys.argv[1])
    print("locked", flush=True)
    sys.stdin.readline()
    m.append_message(UserMessage(content="from holder"))
    m.close()
"""


def test_second_writer_gets_a_clear_error_or_read_only(tmp_path):
    path = make_session(tmp_path)
    holder = run_py(HOLDER, str(path), stdin=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(SessionLockedError, match="in use by another pi process") as refused:
            SessionManager.open(path)
        assert str(refused.value).endswith(f"continue in a copy: pi --fork {path}")  # what a user can do
        viewer = SessionManager.open(path, if_locked="read_only")
        assert viewer.read_only and len(viewer.raw_entries()) == 4
        second = run_py("""
            import sys
            from pi_runtime.session import SessionManager, SessionLockedError
            try:
                SessionManager.open(sys.argv[1])
            except SessionLockedError as exc:
                print("refused:", exc)
        """, str(path))
        out, _ = second.communicate(timeout=20)
        assert out.startswith("refused:") and str(path) in out
    finally:
        holder.communicate("go\n", timeout=20)
    m = SessionManager.open(path)
    assert m.build_session_context().messages[-1].content == "from holder"
    m.close()


def test_two_managers_in_one_process_also_conflict(tmp_path):
    path = make_session(tmp_path)
    first = SessionManager.open(path)
    with pytest.raises(SessionLockedError):
        SessionManager.open(path)
    first.close()
    SessionManager.open(path).close()


def test_two_processes_racing_never_interleave_lines(tmp_path):
    path = make_session(tmp_path)
    code = """
        import sys
        from pi_runtime.session import SessionManager, SessionLockedError
        from pi_runtime.ai.types import UserMessage
        written = 0
        for attempt in range(60):
            try:
                m = SessionManager.open(sys.argv[1])
            except SessionLockedError:
                continue
            for i in range(5):
                m.append_message(UserMessage(content=sys.argv[2] * 5000))
                written += 1
            m.close()
        print(written)
    """
    procs = [run_py(code, str(path), tag) for tag in ("A", "B")]
    counts = [int(p.communicate(timeout=60)[0]) for p in procs]
    m = SessionManager.open(path, read_only=True)
    assert m.load_report.malformed_lines == 0
    bodies = [e["message"]["content"] for e in m.raw_entries()[4:]]
    assert len(bodies) == sum(counts)
    assert all(b in ("A" * 5000, "B" * 5000) for b in bodies)


def test_fsync_per_append_can_be_relaxed(tmp_path, monkeypatch):
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd)))  # the writer thread calls it
    durable = SessionManager.create("/p", tmp_path / "d")
    durable.append_message(user("q"))
    durable.append_message(assistant("a"))
    durable.append_message(user("q2"))
    durable.close()
    durable_calls = len(calls)
    calls.clear()
    relaxed = SessionManager.create("/p", tmp_path / "r", fsync=False)
    relaxed.append_message(user("q"))
    relaxed.append_message(assistant("a"))
    relaxed.append_message(user("q2"))
    relaxed.close()
    assert durable_calls >= 2 and len(calls) < durable_calls
    assert len(relaxed.session_file.read_text().splitlines()) == 4


def test_dropping_a_manager_without_close_releases_the_lock(tmp_path):
    import gc

    path = make_session(tmp_path)
    m = SessionManager.open(path)
    m.append_message(user("x"))
    del m
    gc.collect()
    SessionManager.open(path).close()
