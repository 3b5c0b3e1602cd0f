"""SessionManager: factories, lazy file creation, appends, tree moves, finding and listing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from session_helpers import assistant, user

from pi_runtime.session import NotASessionFileError, ReadOnlySessionError, SessionManager
from pi_runtime.session.entries import BranchSummaryEntry, LabelEntry
from pi_runtime.session.paths import project_session_dir


def test_create_writes_nothing_until_the_first_user_message(tmp_path):
    m = SessionManager.create("/proj", tmp_path)
    m.append_model_change("anthropic", "claude")
    assert not m.session_file.exists()  # setup entries alone leave no file behind
    m.append_message(user("hello"))
    # The prompt is on disk before any reply (a crash during the first reply keeps it), as in Pi 1.6.
    lines = m.session_file.read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["session", "model_change", "message"]
    m.append_message(assistant("hi"))
    assert len(m.session_file.read_text().splitlines()) == 4
    m.append_message(user("more"))
    assert len(m.session_file.read_text().splitlines()) == 5
    m.close()


def test_default_location_is_under_the_agent_dir(agent_dir):
    m = SessionManager.create("/home/me/proj")
    m.append_message(user("q"))
    m.append_message(assistant("a"))
    assert m.session_file.parent == agent_dir / "sessions" / "--home-me-proj--"
    assert m.session_file.exists()
    m.close()


def test_session_dir_env_override(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(tmp_path / "elsewhere"))
    assert project_session_dir("/a/b") == tmp_path / "elsewhere" / "--a-b--"


def test_in_memory_never_touches_disk(tmp_path, agent_dir):
    m = SessionManager.in_memory("/proj")
    m.append_message(user("q"))
    m.append_message(assistant("a"))
    assert m.session_file is None
    assert len(m.build_session_context().messages) == 2
    assert not agent_dir.exists()


def test_reopen_continues_the_same_tree(tmp_path):
    m = SessionManager.create("/proj", tmp_path)
    m.append_message(user("q1"))
    a1 = m.append_message(assistant("a1"))
    m.close()
    again = SessionManager.open(m.session_file)
    assert again.leaf_id == a1
    again.append_message(user("q2"))
    again.close()
    third = SessionManager.open(m.session_file)
    assert [x.role for x in third.build_session_context().messages] == ["user", "assistant", "user"]
    third.close()


def test_branch_forks_at_the_next_append_and_tree_lists_children(tmp_path):
    m = SessionManager.create("/proj", tmp_path)
    root = m.append_message(user("q"))
    a = m.append_message(assistant("a"))
    old = m.append_message(user("old question"))
    m.append_label(a, "here")
    m.branch(a)
    assert m.leaf_id == a
    new = m.append_message(user("new question"))
    assert m.get_entry(new).parent_id == a
    assert [e.id for e in m.get_branch()] == [root, a, new]
    tree = m.get_tree()
    assert len(tree) == 1 and tree[0].entry.id == root
    node_a = tree[0].children[0]
    assert node_a.label == "here"
    assert [c.entry.id for c in node_a.children][0] == old
    assert {c.entry.id for c in node_a.children} == {old, new}
    assert [x.content for x in m.build_session_context().messages if x.role == "user"] == ["q", "new question"]
    with pytest.raises(KeyError):
        m.branch("nope")
    m.close()


def test_reset_leaf_makes_a_new_root(tmp_path):
    m = SessionManager.in_memory()
    m.append_message(user("q"))
    m.reset_leaf()
    assert m.build_session_context().messages == []
    second = m.append_message(user("other"))
    assert m.get_entry(second).parent_id is None
    assert len(m.get_tree()) == 2


def test_branch_with_summary_attaches_summary_at_target(tmp_path):
    m = SessionManager.in_memory()
    q = m.append_message(user("q"))
    m.append_message(assistant("a"))
    abandoned = m.append_message(user("abandoned"))
    sid = m.branch_with_summary(q, "tried something")
    entry = m.get_entry(sid)
    assert isinstance(entry, BranchSummaryEntry) and entry.parent_id == q and entry.from_id == abandoned
    msgs = m.build_session_context().messages
    assert [x.role for x in msgs] == ["user", "branchSummary"] and msgs[1].summary == "tried something"


def test_labels_are_set_and_cleared(tmp_path):
    m = SessionManager.in_memory()
    q = m.append_message(user("q"))
    m.append_label(q, "start")
    assert m.get_label(q) == "start"
    lid = m.append_label(q, None)
    assert m.get_label(q) is None
    assert isinstance(m.get_entry(lid), LabelEntry)
    with pytest.raises(KeyError):
        m.append_label("missing", "x")


def test_create_branched_session_copies_one_path_with_parent_session(tmp_path):
    m = SessionManager.create("/proj", tmp_path)
    q = m.append_message(user("q"))
    a = m.append_message(assistant("a"))
    m.append_label(q, "first")
    m.append_message(user("side"))
    m.branch(a)
    m.append_message(user("main"))
    original = m.session_file
    new_path = m.create_branched_session(a)
    assert new_path != original and new_path.exists()
    lines = [json.loads(x) for x in new_path.read_text().splitlines()]
    assert lines[0]["parentSession"] == str(original)
    assert [d["id"] for d in lines[1:3]] == [q, a]
    assert {d["type"] for d in lines[1:]} == {"message", "label"}
    assert m.get_label(q) == "first"
    assert [x.content for x in m.build_session_context().messages if x.role == "user"] == ["q"]
    m.close()
    # the original is untouched and can be locked again
    SessionManager.open(original).close()


def test_fork_from_copies_the_whole_tree_into_a_new_project(tmp_path, fixture_copy):
    src = fixture_copy("session_v3_tree.jsonl")
    before = src.read_bytes()
    fork = SessionManager.fork_from(src, "/new/place", tmp_path / "forks")
    assert fork.cwd == "/new/place" and fork.session_id != "0190c3a2-7b1e-7c3d-9a4f-2b8e6d1c0f35"
    header = json.loads(fork.session_file.read_text().splitlines()[0])
    assert header["parentSession"] == str(src) and header["cwd"] == "/new/place"
    assert len(fork.raw_entries()) == 24
    assert src.read_bytes() == before
    fork.close()


def test_non_session_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": "world"}\n{"type":"message"}\n')
    before = path.read_bytes()
    with pytest.raises(NotASessionFileError, match="not a Pi session file"):
        SessionManager.open(path)
    text = tmp_path / "readme.txt"
    text.write_text("just some text\nmore")
    with pytest.raises(NotASessionFileError):
        SessionManager.open(text)
    assert path.read_bytes() == before and text.read_text() == "just some text\nmore"


def test_missing_and_empty_files_become_new_sessions_at_that_path(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    m = SessionManager.open(empty, cwd="/p")
    m.append_message(user("q"))
    m.append_message(assistant("a"))
    m.close()
    assert json.loads(empty.read_text().splitlines()[0])["type"] == "session"
    missing = tmp_path / "new.jsonl"
    m2 = SessionManager.open(missing, cwd="/p")
    m2.append_message(user("q"))
    m2.append_message(assistant("a"))
    m2.close()
    assert missing.exists() and m2.session_file == missing.resolve()


def test_read_only_session_refuses_appends(fixture_copy):
    path = fixture_copy("session_v3_tree.jsonl")
    m = SessionManager.open(path, read_only=True)
    with pytest.raises(ReadOnlySessionError):
        m.append_message(user("x"))


def _session(cwd: str, text: str, root: Path | None = None, name: str | None = None) -> SessionManager:
    m = SessionManager.create(cwd, root / "x" if root else None)
    m.append_message(user(text))
    m.append_message(assistant("ok"))
    if name:
        m.append_session_info(name)
    m.close()
    return m


def test_list_and_list_all_report_metadata(agent_dir):
    a = _session("/p1", "first in p1")
    time.sleep(0.01)
    b = _session("/p1", "second in p1", name="Named one")
    c = _session("/p2", "only in p2")
    infos = SessionManager.list("/p1")
    assert [i.id for i in infos] == [b.session_id, a.session_id]
    assert infos[0].name == "Named one" and infos[1].name is None
    assert infos[1].first_message == "first in p1" and infos[1].message_count == 2
    assert infos[0].cwd == "/p1" and infos[0].modified >= infos[1].modified
    every = SessionManager.list_all()
    assert {i.id for i in every} == {a.session_id, b.session_id, c.session_id}


def test_find_by_id_and_prefix_prefers_current_project(agent_dir):
    a = _session("/p1", "x")
    b = _session("/p2", "y")
    assert SessionManager.find(a.session_id, cwd="/p2") == a.session_file
    assert SessionManager.find(b.session_id[:13], cwd="/p2") == b.session_file
    assert SessionManager.find("ffffffff-no") is None


def test_continue_recent_opens_newest_or_creates(agent_dir):
    fresh = SessionManager.continue_recent("/p9")
    assert fresh.raw_entries() == [] and not fresh.session_file.exists()
    old = _session("/p9", "old")
    time.sleep(0.02)
    new = _session("/p9", "new")
    os.utime(old.session_file, (time.time() + 10, time.time() + 10))
    got = SessionManager.continue_recent("/p9")
    assert got.session_id == old.session_id != new.session_id
    got.close()


def test_an_empty_file_gets_its_header_when_opened_as_in_pi(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    m = SessionManager.open(empty, cwd="/p")
    # Written at once, before any message (Pi 1.6 does the same).
    [line] = empty.read_text().splitlines()
    header = json.loads(line)
    assert header["type"] == "session" and header["id"] == m.session_id and header["cwd"] == "/p"
    m.append_message(user("q"))
    m.close()
    assert [json.loads(x)["type"] for x in empty.read_text().splitlines()] == ["session", "message"]
    again = SessionManager.open(empty)
    assert again.session_id == m.session_id and len(again.raw_entries()) == 1
    again.close()
