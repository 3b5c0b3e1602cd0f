"""Hostile ``session_before_compact``/``session_before_tree`` results: each fails with a clear
error, nothing malformed reaches the session file, and the session goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import scripted_text

from .test_compaction_hooks import failing_compaction, file_entries, two_turns


def assert_file_is_a_sound_tree(session):
    """Every line parses and every parentId names an entry written before it."""
    seen: set[str] = set()
    for line in Path(session.session_file).read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "session":
            continue
        assert entry.get("parentId") is None or entry["parentId"] in seen, entry
        seen.add(entry["id"])


@pytest.mark.parametrize(("handler", "error"), [
    ('lambda e, ctx: {"compaction": "just a string"}', "no summary text"),
    ('lambda e, ctx: {"compaction": {"summary": "s", "firstKeptEntryId": "nope"}}', "firstKeptEntryId"),
    ('lambda e, ctx: {"compaction": {"summary": "s", "tokensBefore": -5}}', "tokensBefore"),
    ('lambda e, ctx: {"compaction": {"summary": "s", "tokensBefore": 1.5}}', "tokensBefore"),
    ('lambda e, ctx: {"compaction": {"summary": "s", "usage": "lots"}}', "usage"),
    ('lambda e, ctx: {"compaction": {"summary": "s", "details": {1, 2}}}', "details"),
    ('lambda e, ctx: {"compaction": {"summary": "s", "details": object()}}', "details"),
])
async def test_a_malformed_compaction_fails_cleanly(make_session, write_ext, handler, error):
    session, failed = await failing_compaction(make_session, write_ext, "bad", handler, error)
    assert failed["from_extension"] is True
    assert_file_is_a_sound_tree(session)
    session.provider.push(scripted_text("still fine"))
    await session.prompt("go on")
    assert session.messages[-1].content[0].text == "still fine"
    assert_file_is_a_sound_tree(session)


@pytest.mark.parametrize(("summary", "error"), [
    ('"just a string"', "no summary text"),
    ('{"summary": "s", "details": {1, 2}}', "details"),
    ('{"summary": "s", "usage": [1, 2]}', "usage"),
])
async def test_a_malformed_branch_summary_fails_cleanly(make_session, write_ext, summary, error):
    path = write_ext("bad_tree", f"""
        def extension(pi):
            pi.on("session_before_tree", lambda e, ctx: {{"summary": {summary}}})
    """)
    session = make_session(extensions=[path], persist=True)
    first_answer = await two_turns(session)
    leaf = session.session_manager.leaf_id
    with pytest.raises(ValueError, match=error):
        await session.navigate_tree(first_answer, summarize=True)
    assert session.session_manager.leaf_id == leaf  # still where it was
    assert file_entries(session, "branch_summary") == []
    session.provider.push(scripted_text("still fine"))
    await session.prompt("go on")
    assert_file_is_a_sound_tree(session)
