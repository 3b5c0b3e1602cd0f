"""Compaction as the kernel drives it: manual, threshold, and overflow recovery."""

from __future__ import annotations

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_error, scripted_text
from pi_runtime.ai.types import TextContent, Usage
from pi_runtime.kernel.errors import CompactionError
from pi_runtime.kernel.recovery import OVERFLOW_FAILED

from .conftest import chat, record

LONG = "lorem ipsum dolor sit amet " * 200  # ~5,400 chars, ~1,350 tokens


def compaction_events(events):
    return [e.to_wire() for e in events if e.type.startswith("compaction")]


async def fill(session, turns):
    for i in range(turns):
        session.provider.push(scripted_text(f"answer {i}: {LONG}"))
        await session.prompt(f"question {i}: {LONG}")


async def test_manual_compact_summarises_old_turns(make_session):
    session = make_session(settings={"compaction": {"keepRecentTokens": 3000}})
    await fill(session, 4)
    # A split turn takes two summary requests: answer every request with the same summary.
    session.provider.responder = lambda ctx, opts: scripted_text(
        "## Goal\nTest compaction.\n## Progress\nFour questions answered."
    )
    events = record(session)
    result = await session.compact("focus on the questions")
    assert result.summary.startswith("## Goal")
    assert result.tokens_before > result.estimated_tokens_after > 0
    wire = compaction_events(events)
    assert wire[0] == {"type": "compaction_start", "reason": "manual"}
    assert wire[1]["type"] == "compaction_end" and wire[1]["aborted"] is False
    assert wire[1]["result"]["firstKeptEntryId"] == result.first_kept_entry_id
    # The summary request carried the instructions and no tools.
    summary_request, _ = session.provider.requests[-1]
    assert not summary_request.tools
    assert "focus on the questions" in summary_request.messages[-1].content[0].text
    # Now the context starts with the summary and keeps only recent turns.
    assert chat(session)[0].role == "compactionSummary"
    session.provider.responder = None
    session.provider.push(scripted_text("after"))
    await session.prompt("next")
    sent = session.provider.requests[-1][0].messages
    assert "<summary>" in sent[0].content[0].text and "Four questions answered." in sent[0].content[0].text
    assert len(sent) < 9


async def test_manual_compact_with_too_little_history(make_session):
    session = make_session()
    session.provider.push(scripted_text("hi"))
    await session.prompt("hello")
    events = record(session)
    with pytest.raises(CompactionError):
        await session.compact()
    assert compaction_events(events)[-1]["type"] == "compaction_end"
    assert "errorMessage" in compaction_events(events)[-1]


async def test_threshold_compaction_after_a_turn(make_session):
    provider = ScriptedProvider("threshold")
    session = make_session(
        provider=provider,
        settings={"compaction": {"enabled": True, "reserveTokens": 2000, "keepRecentTokens": 1000}},
    )
    await session.set_model(provider.model(context_window=10_000))
    for i in range(2):
        provider.push(scripted_text(f"answer {i}: {LONG}", usage=Usage(input=3000 + 1500 * i, output=1400)))
        await session.prompt(f"question {i}: {LONG}")
    events = record(session)
    # This turn reports 8,900 context tokens: over 10,000 - 2,000, so the kernel compacts.
    provider.push(scripted_text("answer 2", usage=Usage(input=8500, output=400)))
    provider.responder = lambda ctx, opts: scripted_text("Summary of the early questions.")
    await session.prompt("question 2")
    wire = compaction_events(events)
    assert [w["type"] for w in wire] == ["compaction_start", "compaction_end"]
    assert wire[0]["reason"] == "threshold"
    assert wire[1]["result"]["summary"].startswith("Summary of the early questions.")
    assert events[-1].type == "agent_settled"
    assert chat(session)[0].role == "compactionSummary"


async def test_overflow_compacts_and_retries_once(make_session):
    session = make_session(settings={"compaction": {"keepRecentTokens": 2000}})
    await fill(session, 3)
    session.provider.push(
        scripted_error("prompt is too long: 213462 tokens > 200000 maximum"),
        scripted_text("Summary after overflow."),
        scripted_text("Recovered answer."),
    )
    events = record(session)
    await session.prompt("one more")
    wire = compaction_events(events)
    assert wire[0] == {"type": "compaction_start", "reason": "overflow"}
    assert wire[1]["willRetry"] is True and wire[1]["result"]["summary"] == "Summary after overflow."
    assert session.get_last_assistant_text() == "Recovered answer."
    retry_request = session.provider.requests[-1][0].messages
    assert retry_request[-1].role == "user" and retry_request[-1].content == [TextContent(text="one more")]
    assert not any(getattr(m, "stop_reason", None) == "error" for m in retry_request)
    assert [e.will_retry for e in events if e.type == "agent_end"] == [True, False]


async def test_second_overflow_gives_up_with_the_documented_message(make_session):
    session = make_session(settings={"compaction": {"keepRecentTokens": 2000}})
    await fill(session, 3)
    session.provider.push(
        scripted_error("prompt is too long: 213462 tokens > 200000 maximum"),
        scripted_text("Summary."),
        scripted_error("prompt is too long: 205000 tokens > 200000 maximum"),
    )
    events = record(session)
    await session.prompt("one more")
    wire = compaction_events(events)
    assert wire[-1] == {"type": "compaction_end", "reason": "overflow", "aborted": False,
                        "willRetry": False, "errorMessage": OVERFLOW_FAILED}
    assert events[-1].type == "agent_settled"
    assert chat(session)[-1].stop_reason == "error"
