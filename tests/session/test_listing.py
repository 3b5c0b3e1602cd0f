"""Picker metadata from the cheap scan matches what a full parse says, for any key order."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pi_runtime.session import SessionManager
from pi_runtime.session.listing import read_session_info


def test_fixture_metadata(fixture_copy):
    info = read_session_info(fixture_copy("session_v3_tree.jsonl"))
    assert info.id == "0190c3a2-7b1e-7c3d-9a4f-2b8e6d1c0f35" and info.cwd == "/home/user/proj"
    assert info.name == "Fix add bug"
    assert info.first_message == "Read main.py and fix the bug"
    assert info.message_count == 13
    assert info.modified == datetime.fromtimestamp(1748772188, UTC)
    assert info.created == datetime(2025, 6, 1, 10, 0, tzinfo=UTC)


def test_other_key_orders_torn_tails_and_cleared_names(tmp_path, fixture_copy):
    src = fixture_copy("session_v3_tree.jsonl")
    lines = [json.loads(x) for x in src.read_text().splitlines()]
    # Reverse every object's key order (another writer), clear the name, add a torn line.
    reordered = [dict(reversed(list(d.items()))) for d in lines]
    reordered.append({"type": "session_info", "id": "cccccccc", "parentId": "b000000c",
                      "timestamp": "2025-06-01T10:04:00.000Z", "name": "  "})
    path = tmp_path / "reordered.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in reordered) + '{"type":"message","id":"x","mess')
    info = read_session_info(path)
    assert info.message_count == 13 and info.name is None
    assert info.first_message == "Read main.py and fix the bug"
    assert info.modified == datetime.fromtimestamp(1748772188, UTC)
    full = SessionManager.open(path, read_only=True)
    assert sum(1 for e in full.raw_entries() if e["type"] == "message") == info.message_count


def test_non_session_files_are_not_listed(tmp_path):
    folder = tmp_path / "--p--"
    folder.mkdir()
    (folder / "junk.jsonl").write_text('{"not":"a session"}\n')
    (folder / "empty.jsonl").write_text("")
    assert SessionManager.list("/p", folder) == []


def test_a_text_block_whose_text_is_not_a_string_is_listed_without_it(tmp_path):
    """A hand-edited or damaged file (``"text": 7``) failed the whole listing with a TypeError
    (the /resume picker and ``pi --session`` of that file)."""
    path = tmp_path / "odd.jsonl"
    lines = [{"type": "session", "version": 3, "id": "odd", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"},
             {"type": "message", "id": "m1", "parentId": None, "timestamp": "2025-01-01T00:00:01.000Z",
              "message": {"role": "user", "content": [{"type": "text", "text": 7}, {"type": "text", "text": "hi"}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    info = read_session_info(path)
    assert info is not None and info.id == "odd" and info.first_message == "hi"
