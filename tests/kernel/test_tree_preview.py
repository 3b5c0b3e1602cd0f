"""The kernel operations the tree pane uses: ``branch_messages`` (a preview) and ``clone(entry_id)``."""

from __future__ import annotations

import pytest

from pi_runtime.ai.providers.scripted import scripted_text


async def two_turns(session) -> list[dict]:
    session.provider.push(scripted_text("First answer"), scripted_text("Second answer"))
    await session.prompt("first question")
    await session.prompt("second question")
    return [e for e in session.session_manager.raw_entries() if e.get("type") == "message"]


def texts(messages) -> list[str]:
    out = []
    for m in messages:
        content = m.content
        out.append(content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content))
    return [t for m, t in zip(messages, out) if m.role != "system"]


async def test_branch_messages_is_the_path_to_an_entry_and_moves_nothing(make_session):
    session = make_session()
    messages = await two_turns(session)
    leaf = session.session_manager.leaf_id
    first_answer = next(e["id"] for e in messages if e["message"]["role"] == "assistant")
    assert texts(session.branch_messages(first_answer)) == ["first question", "First answer"]
    assert texts(session.branch_messages(leaf, last=1)) == ["Second answer"]
    assert session.session_manager.leaf_id == leaf and len(session.messages) == len(messages)
    with pytest.raises(KeyError):
        session.branch_messages("nope")


async def test_clone_up_to_an_entry(make_session):
    session = make_session()
    messages = await two_turns(session)
    first_answer = next(e["id"] for e in messages if e["message"]["role"] == "assistant")
    result = await session.clone(first_answer)
    assert not result.cancelled
    assert texts(session.messages) == ["first question", "First answer"]
    with pytest.raises(KeyError):
        await session.clone("nope")
