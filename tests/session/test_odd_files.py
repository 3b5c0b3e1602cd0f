"""Session files Pi opens that once stopped pi: lines nested thousands deep, a string version."""

from __future__ import annotations

import json
from pathlib import Path

from session_helpers import assistant, user

from pi_runtime.session import SessionManager


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def base_session(tmp_path: Path) -> Path:
    m = SessionManager.create("/proj", tmp_path)
    m.append_message(user("q"))
    m.append_message(assistant("a"))
    m.close()
    return m.session_file


def add_deep_line(path: Path, depth: int, entry_id: str = "deep0001") -> None:
    last = json.loads(path.read_bytes().splitlines()[-1])
    line = json.dumps({"type": "custom", "id": entry_id, "parentId": last["id"], "timestamp": last["timestamp"],
                       "customType": "nest", "data": "@"}).replace('"@"', nested(depth))
    with open(path, "a") as fh:
        fh.write(line + "\n")


def test_a_line_nested_3000_deep_is_read_kept_and_written_back(tmp_path):
    path = base_session(tmp_path)
    add_deep_line(path, 3000)
    m = SessionManager.open(path)
    assert m.load_report.malformed_lines == 0
    assert m.leaf_id == "deep0001" and m.raw_entries()[-1]["customType"] == "nest"
    after = m.append_message(user("after the deep line"))
    # A branch copies the path, deep line included, into a new file: written at full depth.
    copy = m.create_branched_session(after)
    m.close()
    for file in (path, copy):
        again = SessionManager.open(file)
        assert again.load_report.malformed_lines == 0
        deep = next(e for e in again.raw_entries() if e.get("customType") == "nest")
        depth, value = 0, deep["data"]
        while isinstance(value, list) and value:
            value, depth = value[0], depth + 1
        assert depth == 2999  # the innermost list is empty
        again.close()


def test_continue_recent_opens_a_deep_file(tmp_path):
    path = base_session(tmp_path)
    add_deep_line(path, 5000)
    m = SessionManager.continue_recent("/proj", tmp_path)
    assert m.session_file == path and m.leaf_id == "deep0001"
    m.close()


def test_a_line_deeper_than_anything_is_skipped_and_counted(tmp_path):
    path = base_session(tmp_path)
    add_deep_line(path, 300_000, "toodeep1")
    m = SessionManager.open(path)
    assert m.load_report.malformed_lines == 1
    assert any("malformed" in w for w in m.load_report.warnings)
    m.close()


def _with_version(path: Path, version) -> None:
    lines = path.read_bytes().splitlines()
    header = json.loads(lines[0])
    header["version"] = version
    path.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:]]) + b"\n")


def test_string_version_three_is_version_three_as_in_pi(tmp_path):
    path = base_session(tmp_path)
    _with_version(path, "3")
    before = path.read_bytes()
    m = SessionManager.open(path)
    assert m.load_report.migrated_from is None and len(m.raw_entries()) == 2
    assert m.get_header().version == "3"
    m.close()
    assert path.read_bytes() == before  # nothing to migrate, nothing rewritten


def test_string_version_two_is_migrated_and_nonsense_is_left_alone(tmp_path):
    path = base_session(tmp_path)
    _with_version(path, "2")
    m = SessionManager.open(path)
    assert m.load_report.migrated_from == 2 and m.header["version"] == 3
    m.close()
    _with_version(path, "three")
    before = path.read_bytes()
    m = SessionManager.open(path)
    assert m.load_report.migrated_from is None
    m.close()
    assert path.read_bytes() == before
