"""``set_auto_compaction(True)`` turns automatic compaction on even when the settings file says
off (Pi's RPC command and /settings toggle write the setting; pi kept the toggle but still read
``enabled: false`` from the settings, so nothing ever compacted)."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text
from pi_runtime.ai.types import Usage

from .conftest import record

WORDS = "lorem ipsum dolor sit amet " * 80  # about 540 estimated tokens


async def test_turning_auto_compaction_on_takes_effect(make_session):
    provider = ScriptedProvider("toggle")
    session = make_session(provider=provider, settings={"compaction": {"enabled": False, "keepRecentTokens": 1000}},
                           model=provider.model(context_window=20_000, max_tokens=2048))
    provider.push(scripted_text(f"first {WORDS}", usage=Usage(input=1_000, output=100)),
                  scripted_text(f"second {WORDS}", usage=Usage(input=6_000, output=100)))
    await session.prompt(f"first question {WORDS}")
    await session.prompt(f"second question {WORDS}")
    events = record(session)
    session.set_auto_compaction(True)
    provider.push(scripted_text("## Goal\nsummary"), scripted_text("third answer"))
    await session.prompt("third question")
    assert [e.type for e in events if e.type.startswith("compaction")] == ["compaction_start", "compaction_end"]
    assert session.get_last_assistant_text() == "third answer"
