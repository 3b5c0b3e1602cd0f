"""Appends are written at once and flushed to disk off the caller's thread, in order, and a
closed file has been flushed."""

from __future__ import annotations

import os
import threading

from pi_runtime.session.storage import SessionWriter


def test_fsync_runs_on_its_own_thread_and_close_waits_for_it(tmp_path, monkeypatch):
    calls: list[tuple[str, int]] = []
    real_fsync = os.fsync
    release = threading.Event()

    def slow_fsync(fd: int) -> None:  # the real fsync, after the disk "takes a while"
        release.wait(5)
        calls.append((threading.current_thread().name, os.fstat(fd).st_size))
        real_fsync(fd)

    path = tmp_path / "s.jsonl"
    writer = SessionWriter(path)
    monkeypatch.setattr(os, "fsync", slow_fsync)
    writer.append([{"type": "message", "id": "a"}])
    writer.append([{"type": "message", "id": "b"}])
    # Both lines are in the file already; nothing has been flushed yet, and append did not wait.
    assert path.read_text().count("\n") == 2 and calls == []
    release.set()
    writer.close()  # waits for the flush
    assert calls and all(name == "pi-session-fsync" for name, _ in calls)
    assert calls[-1][1] == path.stat().st_size  # the last flush covered both lines


def test_a_failed_fsync_is_raised_by_the_next_append(tmp_path, monkeypatch):
    from pi_runtime.session.storage import SessionWriteError

    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    writer = SessionWriter(tmp_path / "s.jsonl")
    monkeypatch.setattr(os, "fsync", failing_fsync)
    writer.append([{"type": "message", "id": "a"}])
    try:
        writer.flush()
    except SessionWriteError as exc:
        assert "Input/output error" in str(exc)
    else:
        raise AssertionError("the failed fsync was lost")
    monkeypatch.undo()
    writer.append([{"type": "message", "id": "b"}])  # later appends go on
    writer.close()
    assert (tmp_path / "s.jsonl").read_text().count("\n") == 2


def test_a_new_files_directory_entry_is_flushed_on_the_syncers_thread(tmp_path, monkeypatch):
    # Creating a session's file (its first prompt) flushed the directory on the event loop: 13 ms
    # there, more on a busy disk, in front of the first request.
    synced: list[tuple[str, bool]] = []
    real_fsync = os.fsync

    def noting_fsync(fd: int) -> None:
        import stat

        synced.append((threading.current_thread().name, stat.S_ISDIR(os.fstat(fd).st_mode)))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", noting_fsync)
    writer = SessionWriter(tmp_path / "new.jsonl", create_only=True)
    writer.close()
    assert ("pi-session-fsync", True) in synced
    assert all(name == "pi-session-fsync" for name, _ in synced)
    relaxed = SessionWriter(tmp_path / "relaxed.jsonl", create_only=True, fsync=False)
    relaxed.close()
    assert (threading.current_thread().name, True) in synced  # no syncer: flushed at once, as before
