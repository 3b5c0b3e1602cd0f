"""A full disk while appending: the file stays as it was, entries are retried, nothing is cut off.

Two real failures, no injection: a tiny tmpfs that runs out of space (as root), and a child
process whose file-size limit (``RLIMIT_FSIZE``) makes the kernel refuse writes past it (any
user). Both make ``write`` succeed in part and then fail, which is what tore files before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from session_helpers import assistant, user

from pi_runtime.session import SessionManager
from pi_runtime.testing.tmpfs import small_tmpfs

ROOT = Path(__file__).resolve().parents[2]




def fill(disk: Path, leave: int) -> Path:
    """Fill the file system but ``leave`` bytes (rounded to pages by tmpfs)."""
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with open(filler, "wb") as fh:
        fh.write(b"\0" * max(0, free - leave))
    return filler


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_full_tmpfs_append_is_undone_kept_in_memory_and_saved_later(tmp_path):
    with small_tmpfs(tmp_path / "disk", "1m") as disk:
        m = SessionManager.create("/proj", disk)
        m.append_message(user("first question"))
        m.append_message(assistant("first answer"))
        path = m.session_file
        saved = path.read_bytes()
        filler = fill(disk, 8192)

        big_id = m.append_message(user("x" * 200_000))  # does not fit: cut back off
        assert path.read_bytes() == saved
        assert m.unsaved_count == 1 and "No space left on device" in (m.save_error or "")
        notices = m.take_notices()
        assert len(notices) == 1 and notices[0].startswith(f"Could not save to {path}: No space left on device")
        small_id = m.append_message(assistant("still full"))
        assert path.read_bytes() == saved and m.unsaved_count == 2
        assert m.take_notices() == []  # one report per failure, not one per entry

        filler.unlink()
        last_id = m.append_message(user("space again"))
        assert m.unsaved_count == 0 and m.save_error is None
        assert m.take_notices() == [f"Session saved again to {path}"]
        m.close()

        entries = lines_of(path)[1:]
        assert [e["id"] for e in entries[-3:]] == [big_id, small_id, last_id]
        again = SessionManager.open(path)
        assert again.load_report.malformed_lines == 0
        texts = [msg.get("content") for msg in again.build_session_context().message_dicts]
        assert texts[0] == "first question" and texts[-1] == "space again" and len(texts) == 5
        again.close()


def test_full_tmpfs_on_the_first_save_writes_nothing_then_everything(tmp_path):
    with small_tmpfs(tmp_path / "disk", "1m") as disk:
        filler = fill(disk, 4096)
        m = SessionManager.create("/proj", disk)
        m.append_message(user("q" * 100_000))  # the first user message writes the file: it fails
        m.append_message(assistant("a"))  # tried again, and fails again
        path = m.session_file
        assert m.unsaved_count == 3  # header, question, answer
        assert not path.exists() or path.read_bytes() == b""
        filler.unlink()
        m.append_message(user("next"))
        assert m.unsaved_count == 0
        m.close()
        assert [e["type"] for e in lines_of(path)] == ["session", "message", "message", "message"]


def test_file_size_limit_in_a_child_process_leaves_no_torn_line(tmp_path):
    # RLIMIT_FSIZE: the kernel writes up to the limit, then fails with EFBIG.
    path = tmp_path / "s.jsonl"
    code = textwrap.dedent("""
        import resource, signal, sys, json
        from pathlib import Path
        sys.path.insert(0, sys.argv[2])
        from session_helpers import assistant, user
        from pi_runtime.session import SessionManager
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        m = SessionManager.open(Path(sys.argv[1]))
        m.append_message(user("short"))
        m.append_message(assistant("short"))
        size = Path(sys.argv[1]).stat().st_size
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 1000, size + 1000))
        m.append_message(user("y" * 5000))
        m.append_message(user("z" * 5000))
        print(json.dumps({"size": size, "unsaved": m.unsaved_count, "error": m.save_error}))
    """)
    path.write_text("")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, str(path), str(Path(__file__).parent)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["unsaved"] == 2 and "File too large" in report["error"]
    assert path.stat().st_size == report["size"]  # both failed appends were cut off again
    again = SessionManager.open(path)
    assert again.load_report.malformed_lines == 0 and len(again.raw_entries()) == 2
    again.close()
