"""The active path of a session: a file that never branched is its own path (no walk through its
links), and whatever the file holds the path is the one the parent links give, as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.session import SessionManager
from pi_runtime.session.context import build_session_context

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}


def message(entry_id: Any, parent: Any, text: str, role: str = "user") -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-01-01T00:00:00.000Z",
            "message": {"role": role, "content": content, "timestamp": 1}}


def chain(count: int) -> list[dict[str, Any]]:
    entries = []
    for i in range(count):
        entries.append(message(f"e{i}", f"e{i - 1}" if i else None, f"m{i}", "user" if i % 2 == 0 else "assistant"))
    return entries


def walked(entries: list[dict[str, Any]], leaf: str | None) -> list[dict[str, Any]]:
    """The path as the parent links give it (the reference: the last entry with an id wins it)."""
    by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    path, current = [], by_id.get(leaf) if leaf is not None else None
    while current is not None and len(path) < len(by_id):
        path.append(current)
        current = by_id.get(current.get("parentId"))
    return path[::-1]


def opened(tmp_path: Path, entries: list[dict[str, Any]], *, read_only: bool = True) -> SessionManager:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [HEADER, *entries]))
    return SessionManager.open(path, read_only=read_only)


def test_a_session_that_never_branched_is_its_own_path(tmp_path) -> None:
    entries = chain(6)
    manager = opened(tmp_path, entries)
    assert manager.leaf_id == "e5"
    assert manager.raw_branch() == entries == walked(entries, "e5")
    assert manager.raw_branch() is not manager.raw_entries()  # a copy: the caller may keep it
    assert manager.raw_branch("e2") == entries[:3]
    texts = [m.get("content") for m in manager.build_session_context().message_dicts]
    assert texts == ["m0", [{"type": "text", "text": "m1"}], "m2", [{"type": "text", "text": "m3"}], "m4",
                     [{"type": "text", "text": "m5"}]]


@pytest.mark.parametrize("shape", ["duplicate id", "child before parent", "first has a parent", "id not a string",
                                   "a branch", "a parent that is missing"])
def test_any_other_file_gets_the_path_its_links_give(tmp_path, shape: str) -> None:
    entries = chain(6)
    if shape == "duplicate id":
        entries.append(message("e2", "e5", "again e2"))  # the later e2 is the one the links reach
        entries.append(message("e6", "e2", "after"))
    elif shape == "child before parent":
        entries[2], entries[3] = entries[3], entries[2]
    elif shape == "first has a parent":
        entries[0]["parentId"] = "e5"  # a cycle: the walk stops after every entry once
    elif shape == "id not a string":
        entries.append(message(7, "e5", "odd id"))
    elif shape == "a branch":
        entries.append(message("f6", "e3", "other way"))
    else:
        entries.append(message("g6", "nowhere", "orphan"))
    manager = opened(tmp_path, entries)
    leaf = manager.leaf_id
    assert leaf == [e["id"] for e in entries if isinstance(e.get("id"), str)][-1]
    assert manager.raw_branch() == walked(entries, leaf)
    by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    assert manager.build_session_context() == build_session_context(by_id, leaf)


def test_appends_keep_the_path_and_a_branch_ends_the_shortcut(tmp_path) -> None:
    manager = SessionManager.in_memory("/p")
    from pi_runtime.ai.types import UserMessage

    first = manager.append_message(UserMessage(content="one"))
    second = manager.append_message(UserMessage(content="two"))
    assert [e["id"] for e in manager.raw_branch()] == [first, second]
    manager.branch(first)
    third = manager.append_message(UserMessage(content="three"))
    assert [e["id"] for e in manager.raw_branch()] == [first, third]
    manager.branch(second)
    assert [e["id"] for e in manager.raw_branch()] == [first, second]
    assert [m["content"] for m in manager.build_session_context().message_dicts] == ["one", "two"]


def test_entry_types_present_are_known_without_a_pass(tmp_path) -> None:
    entries = [{"type": "model_change", "id": "c0", "parentId": None, "timestamp": "2025-01-01T00:00:00.000Z",
                "provider": "p", "modelId": "m"}, *chain(4)]
    entries[1]["parentId"] = "c0"
    entries.append({"type": ["not", "a", "name"], "id": "x", "parentId": "e3", "timestamp": "t"})
    manager = opened(tmp_path, entries, read_only=False)
    assert manager.has_entries_of("message") and manager.has_entries_of("model_change")
    assert not manager.has_entries_of("thinking_level_change")
    manager.append_thinking_level_change("high")
    assert manager.has_entries_of("thinking_level_change")
    manager.close()


def test_a_replica_whose_leaf_is_not_there_yet_falls_back_to_the_last_entry() -> None:
    entries = chain(4)
    replica = SessionManager.replica(HEADER, entries, "e9")  # the owner's leaf, not yet replicated
    assert [m.get("content") for m in replica.build_session_context().message_dicts][-1] == [
        {"type": "text", "text": "m3"}]
