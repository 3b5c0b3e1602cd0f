"""Pi's file format both ways: fixture files written by Pi open here, files written here match
the documented shapes, unknown entry types and fields survive, old versions migrate."""

from __future__ import annotations

import json
from pathlib import Path

from session_helpers import assistant, user

from pi_runtime.session import SessionManager
from pi_runtime.session.entries import (
    ENTRY_TYPES,
    CompactionEntry,
    MessageEntry,
    UnknownEntry,
    entry_to_wire,
    parse_entry,
    shape_problems,
)
from pi_runtime.session.paths import encode_cwd, session_file_name


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_v3_fixture_opens_with_leaf_at_last_entry_and_full_context(fixture_copy):
    path = fixture_copy("session_v3_tree.jsonl")
    before = path.read_bytes()
    with SessionManager.open(path) as m:
        assert m.session_id == "0190c3a2-7b1e-7c3d-9a4f-2b8e6d1c0f35"
        assert m.leaf_id == "b000000c"
        assert m.session_name == "Fix add bug"
        assert m.get_label("a0000007") == "fixed"
        ctx = m.build_session_context()
        roles = [msg.role for msg in ctx.messages]
        assert roles == ["compactionSummary", "user", "assistant", "custom", "user", "assistant"]
        # the context_edit on b0000003 replaced its content with one text block
        assert ctx.messages[2].content[0].text == "Docs written (edited)."
        assert ctx.entry_ids[1:3] == ["b0000002", "b0000003"]
        assert ctx.model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
        assert ctx.thinking_level == "high"
        assert m.load_report.malformed_lines == 0
    assert path.read_bytes() == before  # opening never rewrites a current-version file


def test_every_fixture_line_parses_to_its_type_and_round_trips(fixture_copy):
    path = fixture_copy("session_v3_tree.jsonl")
    seen = set()
    for data in lines_of(path)[1:]:
        entry = parse_entry(data)
        seen.add(data["type"])
        if data["type"] in ENTRY_TYPES:
            assert not isinstance(entry, UnknownEntry), data["type"]
        assert entry_to_wire(entry) == data
    assert seen >= set(ENTRY_TYPES)


def test_unknown_entry_types_and_fields_are_written_back_untouched(fixture_copy, tmp_path):
    path = fixture_copy("session_v3_tree.jsonl")
    original = {d.get("id"): d for d in lines_of(path)}
    with SessionManager.open(path) as m:
        new_path = m.create_branched_session("b000000c")
    copied = {d.get("id"): d for d in lines_of(new_path)}
    assert copied["b0000009"] == original["b0000009"]  # unknown type, null field kept
    assert copied["b000000b"]["futureField"] == 7
    assert copied["b000000b"]["message"]["futureMessageField"] == {"a": None}
    assert isinstance(parse_entry(copied["b0000009"]), UnknownEntry)


def test_written_session_matches_documented_shapes(tmp_path):
    m = SessionManager.create("/home/me/proj", tmp_path)
    first = m.append_message(user("hi"))
    m.append_message(assistant("hello"))
    m.append_model_change("openai", "gpt-4o")
    m.append_thinking_level_change("high")
    m.append_usage("cache_warm", "anthropic", "claude", {"input": 0, "output": 0, "cacheRead": 5,
                                                         "cacheWrite": 0, "totalTokens": 5, "cost": {}})
    m.append_compaction("sum", first, 123, {"readFiles": [], "modifiedFiles": []})
    m.append_context_edit(first, None)
    m.append_branch_summary(first, "branch")
    m.append_custom("ext", {"k": 1})
    m.append_custom_message("ext", "injected", display=False)
    m.append_label(first, "start")
    m.append_session_info("  Named  ")
    m.close()
    path = m.session_file
    assert path.parent == tmp_path and path.name.endswith(f"_{m.session_id}.jsonl")
    lines = lines_of(path)
    header = lines[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == "/home/me/proj"
    assert header["id"][14] == "7"  # a UUIDv7
    assert {d["type"] for d in lines[1:]} == set(ENTRY_TYPES)
    for data in lines:
        assert shape_problems(data) == [], data
    ids = [d["id"] for d in lines[1:]]
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
    assert [d["parentId"] for d in lines[1:]] == [None, *ids[:-1]]
    edit = next(d for d in lines if d["type"] == "context_edit")
    assert "replacement" in edit and edit["replacement"] is None
    assert next(d for d in lines if d["type"] == "session_info")["name"] == "Named"
    assert lines[1]["timestamp"].endswith("Z") and isinstance(lines[1]["message"]["timestamp"], int)


def test_shape_check_can_fail():
    assert shape_problems({"type": "compaction", "id": "x", "parentId": None, "timestamp": "t", "summary": "s"})
    assert shape_problems({"type": "message", "id": "x", "timestamp": "t", "message": {"role": "user"}})


def test_file_naming_follows_pi():
    assert encode_cwd("/home/me/my proj") == "--home-me-my proj--"
    assert encode_cwd("C:\\work\\x") == "--C--work-x--"
    assert session_file_name("2024-12-03T14:00:00.000Z", "abc") == "2024-12-03T14-00-00-000Z_abc.jsonl"


def test_v1_file_is_migrated_with_backup(fixture_copy):
    path = fixture_copy("session_v1_linear.jsonl")
    original = path.read_bytes()
    with SessionManager.open(path) as m:
        report = m.load_report
        assert report.migrated_from == 1
        assert report.backup_path.read_bytes() == original
        ctx = m.build_session_context()
        assert [getattr(x, "content", None) or x.summary for x in ctx.messages] == [
            "Earlier: a greeting.", "second question", ctx.messages[2].content, "third"]
        assert ctx.messages[2].content[0].text == "second answer"
        assert ctx.thinking_level == "low"
    lines = lines_of(path)
    assert lines[0]["version"] == 3
    ids = [d["id"] for d in lines[1:]]
    assert [d["parentId"] for d in lines[1:]] == [None, *ids[:-1]]
    compaction = next(d for d in lines if d["type"] == "compaction")
    assert "firstKeptEntryIndex" not in compaction
    assert compaction["firstKeptEntryId"] == ids[2]
    assert isinstance(parse_entry(compaction), CompactionEntry)


def test_v2_file_is_migrated_hook_message_becomes_custom(fixture_copy):
    path = fixture_copy("session_v2_tree.jsonl")
    with SessionManager.open(path) as m:
        assert m.load_report.migrated_from == 2
        m.branch("c0000003")
        roles = [x.role for x in m.build_session_context().messages]
        assert roles == ["user", "custom", "assistant"]
        entry = m.get_entry("c0000002")
        assert isinstance(entry, MessageEntry) and entry.message.custom_type == "old-hook"
    assert (path.parent / "session_v2_tree.jsonl.v2.bak").exists()
    assert lines_of(path)[0]["version"] == 3


def test_read_only_open_migrates_in_memory_only(fixture_copy):
    path = fixture_copy("session_v1_linear.jsonl")
    original = path.read_bytes()
    m = SessionManager.open(path, read_only=True)
    assert m.read_only and m.load_report.migrated_from == 1
    assert len(m.build_session_context().messages) == 4
    assert path.read_bytes() == original
    assert not list(path.parent.glob("*.bak"))


def test_a_big_file_with_one_damaged_line_reads_like_the_clean_one(tmp_path):
    # The whole file is decoded in one call; a damaged line makes that call fail and the
    # file is read line by line instead: the same entries, one line counted as malformed.
    big = 8 << 20
    header = {"type": "session", "version": 3, "id": "big", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}
    filler = "x" * 4000
    lines = [json.dumps(header)]
    parent = None
    for i in range(big // 4000 + 50):
        lines.append(json.dumps({"type": "custom", "id": f"{i:08x}", "parentId": parent,
                                 "timestamp": "2025-01-01T00:00:00.000Z", "customType": "t", "data": filler}))
        parent = f"{i:08x}"
    clean, damaged = tmp_path / "clean.jsonl", tmp_path / "damaged.jsonl"
    clean.write_text("\n".join(lines) + "\n")
    damaged.write_text("\n".join(lines[:10] + ['{"type": "custom", "id": "torn'] + lines[10:]) + "\n")
    assert clean.stat().st_size > big
    with SessionManager.open(clean) as a, SessionManager.open(damaged) as b:
        assert len(a.get_entries()) == len(lines) - 1 == len(b.get_entries())
        assert (a.load_report.malformed_lines, b.load_report.malformed_lines) == (0, 1)


def test_two_objects_on_one_line_are_one_bad_line_even_beside_a_blank_line(tmp_path):
    # The fast path decodes the file in one call that splits at newlines; it would read the two
    # objects of one line as two entries, and a blank line elsewhere would make the counts agree.
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}
    first = {"type": "custom", "id": "a0000001", "parentId": None, "timestamp": "2025-01-01T00:00:00.000Z",
             "customType": "t"}
    glued = {"type": "custom", "id": "a0000002", "parentId": "a0000001", "timestamp": "2025-01-01T00:00:00.000Z",
             "customType": "t"}
    last = {"type": "custom", "id": "a0000003", "parentId": "a0000001", "timestamp": "2025-01-01T00:00:00.000Z",
            "customType": "t"}
    path = tmp_path / "glued.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(first) + "\n"
                    + json.dumps(glued) + json.dumps(glued) + "\n\n" + json.dumps(last) + "\n")
    with SessionManager.open(path) as m:
        assert [e.id for e in m.get_entries()] == ["a0000001", "a0000003"]
        assert m.load_report.malformed_lines == 1
        assert m.load_report.entry_lines == [2, 5]
        assert any("line 3" in notice for notice in m.take_notices())


def _message_line(entry_id: str, parent: str | None, message: dict) -> str:
    return json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-01-01T00:00:00.000Z",
                       "message": message})


def test_a_left_out_message_is_named_by_its_line_past_blank_lines(tmp_path):
    # The fast read decodes a file with blank lines too, without counting its lines; the notice
    # counts them when it names a line, so it names the one a text editor shows.
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}
    path = tmp_path / "blank.jsonl"
    path.write_text(json.dumps(header) + "\n\n"
                    + _message_line("a0000001", None, {"role": "user", "content": "hi", "timestamp": 1}) + "\n \n\n"
                    + _message_line("a0000002", "a0000001", {"role": "user", "content": 5, "timestamp": 2}) + "\n"
                    + _message_line("a0000003", "a0000002", {"role": "user", "content": "on", "timestamp": 3}) + "\n")
    before = path.read_bytes()
    with SessionManager.open(path) as m:
        assert m.load_report.malformed_lines == 0
        assert [d["content"] for d in m.build_session_context().message_dicts] == ["hi", "on"]
        m.append_message(user("after"))  # appends leave the lines read at load where they were
        notices = m.take_notices()
    assert len(notices) == 1 and "line 6 (entry a0000002)" in notices[0], notices
    assert path.read_bytes().startswith(before)


def test_a_left_out_message_in_a_file_without_blank_lines_is_on_its_index_line(tmp_path):
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"}
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps(header) + "\n"
                    + _message_line("a0000001", None, {"role": "user", "content": "hi", "timestamp": 1}) + "\n"
                    + _message_line("a0000002", "a0000001", {"role": "user", "content": 5, "timestamp": 2}))
    with SessionManager.open(path) as m:  # the last line without its newline: still an entry
        m.build_session_context()
        notices = m.take_notices()
        assert m.load_report.entry_lines is None  # counted: entry i is on line i + 2
    assert len(notices) == 1 and "line 3 (entry a0000002)" in notices[0], notices
