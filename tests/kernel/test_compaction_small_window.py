"""Automatic compaction on a small-context model (an 8k local model), as Pi 1.6 does it.

Pi's threshold ``window - reserveTokens`` is negative for such a window, so every turn is over
it; Pi then works out the cut and, when nothing lies beyond ``keepRecentTokens`` (the default
20,000 keeps all an 8k window holds), does nothing at all: no ``compaction_start``, no
message. When the cut does leave something (a per-model ``keepRecentTokens``), Pi compacts.
A failed automatic attempt is shown once, not after every turn (Pi would repeat it).
"""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_error, scripted_text
from pi_runtime.ai.types import Usage
from pi_runtime.compaction import prompts

from .conftest import chat, record

WORDS = "lorem ipsum dolor sit amet " * 40  # ~1,080 chars, ~270 tokens


def compaction_events(events):
    return [e.to_wire() for e in events if e.type.startswith("compaction")]


def is_summary_request(context) -> bool:
    return context.system_prompt == prompts.SYSTEM_PROMPT


def small_session(make_session, provider, *, window, compaction=None):
    """A session on ``provider``'s model with a ``window``-token context, automatic compaction on."""
    settings = {"compaction": {"enabled": True, **(compaction or {})}}
    model = provider.model(context_window=window, max_tokens=2048)
    return make_session(provider=provider, settings=settings, model=model)


async def turns(session, provider, count, *, start_tokens, step):
    """``count`` prompts, the server reporting a context growing by ``step`` tokens a turn."""
    for i in range(count):
        provider.push(scripted_text(f"answer {i}: {WORDS}", usage=Usage(input=start_tokens + step * i, output=300)))
        await session.prompt(f"question {i}: {WORDS}")


async def test_an_8k_model_with_default_settings_never_shows_a_compaction(make_session):
    provider = ScriptedProvider("small-8k")
    session = small_session(make_session, provider, window=8_192)
    events = record(session)
    await turns(session, provider, 5, start_tokens=2_000, step=1_000)
    assert compaction_events(events) == []
    assert not any(is_summary_request(ctx) for ctx, _ in provider.requests)
    assert len(provider.requests) == 5


async def test_a_window_just_above_the_reserve_with_nothing_to_cut_stays_silent(make_session):
    # 20,000 - 16,384: the threshold (3,616) is crossed, but all of it fits in keepRecentTokens.
    provider = ScriptedProvider("small-20k")
    session = small_session(make_session, provider, window=20_000)
    events = record(session)
    await turns(session, provider, 4, start_tokens=4_000, step=1_000)
    assert compaction_events(events) == []
    assert len(provider.requests) == 4


async def test_an_8k_model_compacts_when_the_cut_leaves_something(make_session):
    provider = ScriptedProvider("small-keep")
    session = small_session(
        make_session, provider, window=8_192,
        compaction={"modelOverrides": {"small-keep/scripted-model": {"keepRecentTokens": 400}}},
    )
    provider.responder = lambda ctx, opts: scripted_text("Summary of the small session.")
    await turns(session, provider, 1, start_tokens=2_000, step=0)
    events = record(session)
    await turns(session, provider, 1, start_tokens=3_000, step=0)
    wire = compaction_events(events)
    assert [w["type"] for w in wire] == ["compaction_start", "compaction_end"]
    assert wire[0]["reason"] == "threshold"
    assert wire[1]["result"]["summary"].startswith("Summary of the small session.")
    assert chat(session)[0].role == "compactionSummary"


async def test_a_failed_automatic_compaction_is_not_repeated_every_turn(make_session):
    provider = ScriptedProvider("small-fail")
    session = small_session(
        make_session, provider, window=8_192,
        compaction={"modelOverrides": {"small-fail/scripted-model": {"keepRecentTokens": 300}}},
    )
    provider.responder = lambda ctx, opts: scripted_error("503 summary server down")
    events = record(session)
    # Each turn adds more than a tenth of the window but the total stays under a quarter of it.
    await turns(session, provider, 3, start_tokens=2_000, step=900)
    wire = compaction_events(events)
    assert [w["type"] for w in wire] == ["compaction_start", "compaction_end"]
    assert wire[1]["errorMessage"] == "Auto-compaction failed: 503 summary server down"
    summaries = [ctx for ctx, _ in provider.requests if is_summary_request(ctx)]
    assert len(summaries) == 1
    # Once the context has grown by a quarter of the window, one more attempt is made.
    await turns(session, provider, 1, start_tokens=5_200, step=0)
    assert len(compaction_events(events)) == 4


async def test_manual_compact_after_an_automatic_failure_resumes_automatic_attempts(make_session):
    provider = ScriptedProvider("small-resume")
    session = small_session(
        make_session, provider, window=8_192,
        compaction={"modelOverrides": {"small-resume/scripted-model": {"keepRecentTokens": 300}}},
    )
    provider.responder = lambda ctx, opts: scripted_error("503 summary server down")
    await turns(session, provider, 2, start_tokens=2_000, step=200)
    provider.responder = lambda ctx, opts: scripted_text("Manual summary.")
    await session.compact()
    events = record(session)
    provider.responder = lambda ctx, opts: scripted_text("Automatic summary.")
    await turns(session, provider, 2, start_tokens=2_000, step=200)
    ends = [w for w in compaction_events(events) if w["type"] == "compaction_end"]
    assert ends and all(w["reason"] == "threshold" for w in ends)
    assert ends[-1]["result"]["summary"].startswith("Automatic summary.")


async def test_manual_compact_with_nothing_to_cut_says_why_in_pis_words(make_session):
    provider = ScriptedProvider("small-manual")
    session = small_session(make_session, provider, window=8_192)
    await turns(session, provider, 1, start_tokens=2_000, step=0)
    events = record(session)
    try:
        await session.compact()
    except Exception as exc:
        assert str(exc) == "Nothing to compact (session too small)"
    else:
        raise AssertionError("compact() should have failed")
    wire = compaction_events(events)
    assert wire == [
        {"type": "compaction_start", "reason": "manual"},
        {"type": "compaction_end", "reason": "manual", "aborted": False, "willRetry": False,
         "errorMessage": "Compaction failed: Nothing to compact (session too small)"},
    ]


async def test_an_answer_counted_over_the_window_compacts_as_overflow_without_a_retry(make_session):
    # A server that reports more input than the window holds (Pi: overflow, compact, no retry).
    provider = ScriptedProvider("small-silent")
    session = small_session(
        make_session, provider, window=8_192,
        compaction={"modelOverrides": {"small-silent/scripted-model": {"keepRecentTokens": 400}}},
    )
    provider.responder = lambda ctx, opts: scripted_text("Summary after a silent overflow.")
    await turns(session, provider, 1, start_tokens=2_000, step=0)
    events = record(session)
    await turns(session, provider, 1, start_tokens=9_000, step=0)
    wire = compaction_events(events)
    assert [(w["type"], w["reason"]) for w in wire] == [("compaction_start", "overflow"), ("compaction_end", "overflow")]
    assert wire[1]["willRetry"] is False and wire[1]["result"]["summary"].startswith("Summary after")
    # The complete answer stands: the model was asked twice (two prompts), never again.
    assert len([ctx for ctx, _ in provider.requests if not is_summary_request(ctx)]) == 2
