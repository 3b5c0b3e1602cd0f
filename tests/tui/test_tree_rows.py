"""The tree browser's and session picker's pure logic: rows, guides, filters, folds, search, trash."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pi_runtime.session import SessionManager
from pi_tui.screenshots.nav_scenes import NOW, write_picker_sessions, write_tree_session
from pi_tui.sessions.session_rows import PickerState, fuzzy_score, relative_age, trash_session
from pi_tui.tree.tree_rows import TreeRows, entries_from_wire_tree

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def user(sm, text):
    return sm.append_message({"role": "user", "content": text, "timestamp": 1})


def assistant(sm, text="", calls=()):
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "toolCall", "id": c, "name": "bash", "arguments": {"command": c}} for c in calls]
    return sm.append_message({"role": "assistant", "content": content, "api": "x", "provider": "p", "model": "m",
                              "usage": USAGE, "stopReason": "stop", "timestamp": 1})


def tool(sm, call, text):
    return sm.append_message({"role": "toolResult", "toolCallId": call, "toolName": "bash", "isError": False,
                              "content": [{"type": "text", "text": text}], "timestamp": 1})


@pytest.fixture
def branched():
    """q1 → a1 ─┬─ q2 → a2(tool) → r → a3          (abandoned)
                └─ q2b → a2b  [leaf, labelled]"""
    sm = SessionManager.in_memory("/tmp")
    sm.append_model_change("p", "m")
    user(sm, "q1")
    a1 = assistant(sm, "a1")
    user(sm, "q2")
    assistant(sm, "", ["ls"])
    tool(sm, "ls", "file.txt")
    assistant(sm, "a3")
    sm.branch(a1)
    q2b = user(sm, "q2b")
    a2b = assistant(sm, "a2b")
    sm.append_label(q2b, "retry")
    return sm, {"a1": a1, "q2b": q2b, "a2b": a2b}


def lines(tree: TreeRows) -> list[str]:
    return [tree.rows[r].guide + tree.rows[r].text for r in tree.visible]


def test_guides_only_where_an_entry_has_several_children(branched):
    sm, ids = branched
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    assert lines(tree) == [
        "user: q1",
        "assistant: a1",
        "├─ user: q2",
        "│  bash(ls) ✓ file.txt",  # the answer that only called the tool is left out, as in Pi
        "│  assistant: a3",
        "└─ user: q2b",
        "   assistant: a2b",
    ]
    # The leaf is the label entry (hidden): the nearest visible ancestor is marked and selected.
    assert tree.rows[tree.display_leaf()].entry_id == ids["a2b"]
    assert tree.current_id == ids["a2b"]
    assert tree.counter() == "7/7"
    on_path = [tree.rows[r].text for r in tree.visible if tree.rows[r].on_path]
    assert on_path == ["user: q1", "assistant: a1", "user: q2b", "assistant: a2b"]
    assert tree.labels[ids["q2b"]].text == "retry" and tree.labels[ids["q2b"]].timestamp


def test_filters(branched):
    sm, ids = branched
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    tree.set_filter("user-only")
    assert [tree.rows[r].text for r in tree.visible] == ["user: q1", "user: q2", "user: q2b"]
    assert tree.current_id == ids["q2b"]  # the cursor falls back to the nearest earlier visible row
    tree.set_filter("no-tools")
    assert "bash(ls) ✓ file.txt" not in [tree.rows[r].text for r in tree.visible] and len(tree.visible) == 6
    tree.set_filter("labeled-only")
    assert [tree.rows[r].entry_id for r in tree.visible] == [ids["q2b"]]
    tree.set_filter("all")
    texts = [tree.rows[r].text for r in tree.visible]
    assert texts[0] == "[model: p/m]" and texts[-1].startswith("[label ") and len(texts) == 9
    assert "assistant: → bash(ls)" not in texts  # not even in "all", as in Pi
    tree.toggle_filter("all")  # choosing the active filter again goes back to default
    assert tree.filter == "default"
    tree.cycle_filter(-1)
    assert tree.filter == "all"
    with pytest.raises(ValueError, match="unknown tree filter"):
        tree.set_filter("everything")


def test_search_matches_text_and_labels(branched):
    sm, ids = branched
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    tree.set_query("q2")
    assert [tree.rows[r].text for r in tree.visible] == ["user: q2", "user: q2b"]
    tree.set_query("retry")
    assert [tree.rows[r].entry_id for r in tree.visible] == [ids["q2b"]]
    tree.set_query("")
    assert len(tree.visible) == 7


def test_while_searching_only_the_current_entry_itself_is_marked(branched):
    sm, ids = branched
    tree = TreeRows(sm.raw_entries(), ids["a2b"])  # the current entry is the answer a2b
    tree.set_query("q2")
    # q2b matches and is an ancestor of a2b, but it is not where the session is.
    assert tree.display_leaf() == -1
    tree.set_query("a2b")
    assert tree.rows[tree.display_leaf()].entry_id == ids["a2b"]
    tree.set_query("")
    tree.set_filter("user-only")  # a filter (not a search) still marks the nearest visible ancestor
    assert tree.rows[tree.display_leaf()].entry_id == ids["q2b"]


def test_fold_and_segment_jumps(branched):
    sm, ids = branched
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    tree.move(-len(tree.visible))
    tree.move(3)  # "│  bash(ls) ✓ file.txt", inside the first branch
    tree.fold_or_up()  # not a segment start: jump to it
    assert tree.rows[tree.current_row].text == "user: q2"
    tree.fold_or_up()  # a segment start: fold it
    assert lines(tree)[2:4] == ["├─ user: q2", "└─ user: q2b"]
    assert tree.hidden_below(tree.current_row) == 3
    tree.unfold_or_down()
    assert len(tree.visible) == 7 and tree.rows[tree.current_row].text == "user: q2"
    tree.unfold_or_down()  # to the end of the segment (a leaf)
    assert tree.rows[tree.current_row].text == "assistant: a3"
    tree.unfold_or_down()  # to the next segment start
    assert tree.current_id == ids["q2b"]
    tree.fold_or_up()
    tree.fold_or_up()  # already folded: back to the previous segment start
    assert tree.rows[tree.current_row].text == "user: q2"


def test_wire_tree_gives_the_same_rows(branched):
    from pi_runtime.kernel.views import tree_to_wire as _tree_to_wire

    sm, ids = branched
    entries, labels = entries_from_wire_tree(_tree_to_wire(sm.get_tree()))
    wire = TreeRows(entries, sm.leaf_id, labels=labels)
    raw = TreeRows(sm.raw_entries(), sm.leaf_id)
    assert lines(wire) == lines(raw)
    assert wire.labels[ids["q2b"]].text == "retry"


def test_a_20000_deep_session_flattens_without_recursion():
    sm = SessionManager.in_memory("/tmp")
    for i in range(10_000):
        user(sm, f"q{i}")
        assistant(sm, f"a{i}")
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    assert tree.counter() == "20000/20000"
    assert tree.rows[-1].guide == "" and tree.rows[0].end == 20_000
    tree.move(-5)
    assert tree.current_row == 19_994


def test_demo_session_file_reads_back(tmp_path):
    path, ids = write_tree_session(tmp_path / "t.jsonl")
    sm = SessionManager.open(path, read_only=True)
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    assert tree.current_id == ids["leaf"]
    assert tree.labels[ids["flag_done"]].text == "flag done"


# ---------------------------------------------------------------------- session picker logic


def test_fuzzy_score_orders_matches():
    assert fuzzy_score("ref", "Checkout refactor") > fuzzy_score("ref", "Write a README section foo") > 0
    assert fuzzy_score("ckrf", "Checkout refactor") is not None
    assert fuzzy_score("xyz", "Checkout refactor") is None
    assert fuzzy_score("sql log", "Log every SQL query") is not None


def test_relative_age():
    assert relative_age(NOW - timedelta(seconds=20), NOW) == "just now"
    assert relative_age(NOW - timedelta(minutes=35), NOW) == "35 min ago"
    assert relative_age(NOW - timedelta(hours=3, minutes=10), NOW) == "3 h ago"
    assert relative_age(NOW - timedelta(days=9), NOW) == "9 d ago"
    assert relative_age(NOW - timedelta(days=400), NOW) == "1 y ago"


def test_picker_state_sort_named_search(tmp_path):
    root = tmp_path / "sessions"
    write_picker_sessions(root)
    from pi_runtime.session.paths import project_session_dir

    state = PickerState(SessionManager.list("/home/dev/webshop", project_session_dir("/home/dev/webshop", root)))
    state.refresh()
    assert [s.name or s.first_message for s in state.visible][:2] == ["Checkout refactor",
                                                                     "Why does test_discounts fail on Mondays?"]
    state.sort = "name"
    state.refresh()
    assert state.visible[0].first_message.startswith("Add a --verbose")
    state.named_only = True
    state.refresh()
    assert [s.name for s in state.visible] == ["Checkout refactor", "SQL logging"]
    state.named_only = False
    state.query = "mondays"
    state.refresh(keep=False)
    assert len(state.visible) == 1 and "Mondays" in state.visible[0].first_message


def test_trash_keeps_every_copy(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    first = folder / "a.jsonl"
    first.write_text("one\n")
    where = Path(trash_session(first, system_trash=False))
    assert not first.exists() and where.read_text() == "one\n" and where.parent.name == ".trash"
    first.write_text("two\n")
    again = Path(trash_session(first, system_trash=False))
    assert again != where and again.read_text() == "two\n" and where.read_text() == "one\n"


def test_threaded_order_nests_forks_and_survives_a_cycle(tmp_path):
    from datetime import UTC, datetime
    from types import SimpleNamespace

    from pi_tui.sessions.session_rows import threaded

    def info(name, minutes, parent=None):
        return SimpleNamespace(path=tmp_path / f"{name}.jsonl", modified=datetime(2025, 1, 1, 0, minutes, tzinfo=UTC),
                               parent_session_path=str(tmp_path / f"{parent}.jsonl") if parent else None)

    a, b = info("a", 1), info("b", 2)
    a1, a2, a1x = info("a1", 3, "a"), info("a2", 9, "a"), info("a1x", 4, "a1")
    order, guides = threaded([a, b, a1, a2, a1x])
    # a's subtree holds the newest activity (a2 at :09), so it comes first; a2 before a1.
    assert [s.path.stem for s in order] == ["a", "a2", "a1", "a1x", "b"]
    assert guides == {a2.path: "├─ ", a1.path: "└─ ", a1x.path: "   └─ "}
    x, y = info("x", 5, "y"), info("y", 6, "x")  # parents pointing at each other
    order, _ = threaded([x, y])
    assert sorted(s.path.stem for s in order) == ["x", "y"]


def test_system_messages_are_rows_as_in_pi():
    """Pi 1.6's tree lists the system messages (prompt and tool changes) as ``[system]`` in the
    default view; only settings entries (model, thinking level, labels...) are hidden there."""
    sm = SessionManager.in_memory("/tmp")
    sm.append_model_change("p", "m")
    sm.append_message({"role": "system", "content": "", "sections": {"preamble": "You are..."}, "timestamp": 1})
    user(sm, "q1")
    assistant(sm, "a1")
    tree = TreeRows(sm.raw_entries(), sm.leaf_id)
    assert lines(tree) == ["[system]", "user: q1", "assistant: a1"]
    tree.set_filter("no-tools")
    assert lines(tree) == ["[system]", "user: q1", "assistant: a1"]
    tree.set_filter("user-only")
    assert lines(tree) == ["user: q1"]
