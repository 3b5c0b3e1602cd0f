"""Compaction and branch summaries through the scripted provider: what the model is asked, and
what the session records."""

from __future__ import annotations

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_error, scripted_text
from pi_runtime.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_runtime.compaction.branch_summary import summarize_branch
from pi_runtime.compaction.compaction import CompactionError, NothingToCompact, run_compaction
from pi_runtime.compaction.settings import CompactionSettings
from pi_runtime.session import SessionManager
from pi_runtime.session.entries import CompactionEntry

SETTINGS = CompactionSettings(keep_recent_tokens=300, reserve_tokens=1000)


def turn(m: SessionManager, i: int, *, size: int = 40, tool: str = "read") -> None:
    # A long question and short replies: the kept-tokens budget is crossed on the question,
    # so the cut falls on a user message and the turn is not split.
    m.append_message(UserMessage(content=f"question {i} " + "q" * 1200))
    call = ToolCall(id=f"c{i}", name=tool, arguments={"path": f"src/f{i}.py"})
    m.append_message(AssistantMessage(content=[ThinkingContent(thinking=f"secret thought {i}"),
                                               TextContent(text=f"looking {i}"), call],
                                      stop_reason="toolUse", usage=Usage(total_tokens=100)))
    m.append_message(ToolResultMessage(tool_call_id=f"c{i}", tool_name=tool,
                                       content=[TextContent(text=f"R{i}" + "r" * size)]))
    m.append_message(AssistantMessage(content=[TextContent(text=f"answer {i}")], stop_reason="stop"))


def prompt_of(provider: ScriptedProvider, n: int = -1) -> str:
    context, _ = provider.requests[n]
    return context.messages[0].content[0].text


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider("compaction-test")


async def test_compaction_request_and_entry(provider):
    m = SessionManager.in_memory()
    for i in range(6):
        turn(m, i, size=3000 if i == 0 else 40, tool="edit" if i == 1 else "read")
    provider.push(scripted_text("## Goal\nShip it.", usage=Usage(input=50, output=7, total_tokens=57)))
    model = provider.model(context_window=50_000, max_tokens=8_000)
    result = await run_compaction(m, model, settings=SETTINGS)
    assert len(provider.requests) == 1
    context, options = provider.requests[0]
    assert not context.tools and "summarise" in context.system_prompt
    assert options.max_tokens == 8_000
    text = prompt_of(provider)
    assert text.startswith("<conversation>\n[User]: question 0")
    assert '[Assistant tool calls]: read(path="src/f0.py")' in text
    assert "[Assistant]: looking 0" in text
    assert "secret thought" not in text
    assert "R0" + "r" * 1998 + "\n[... 1002 more characters truncated]" in text
    for heading in ("## Goal", "## Constraints & Preferences", "## Progress", "## Key Decisions",
                    "## Next Steps", "## Critical Context"):
        assert heading in text
    assert "question 5" not in text  # the recent turns are kept, not summarised
    entry = m.get_entry(result["entryId"])
    assert isinstance(entry, CompactionEntry)
    assert entry.first_kept_entry_id == result["firstKeptEntryId"]
    summarised = [i for i in range(6) if f"question {i}" in text]
    assert summarised == [0, 1, 2, 3, 4]
    assert entry.details == {"readFiles": [f"src/f{i}.py" for i in summarised if i != 1],
                             "modifiedFiles": ["src/f1.py"]}
    assert entry.summary.startswith("## Goal\nShip it.") and "<modified-files>\nsrc/f1.py\n</modified-files>" in entry.summary
    assert entry.usage["totalTokens"] == 57 and entry.tokens_before > 0
    ctx = m.build_session_context()
    assert ctx.messages[0].role == "compactionSummary" and ctx.entry_ids[1] == entry.first_kept_entry_id


async def test_second_compaction_updates_the_first_summary_with_custom_instructions(provider):
    m = SessionManager.in_memory()
    for i in range(4):
        turn(m, i)
    provider.push(scripted_text("FIRST SUMMARY"), scripted_text("SECOND SUMMARY"))
    model = provider.model()
    first = await run_compaction(m, model, settings=SETTINGS)
    kept_text = m.get_entry(first["firstKeptEntryId"])
    for i in range(4, 8):
        turn(m, i)
    await run_compaction(m, model, settings=SETTINGS, instructions="focus on the parser")
    text = prompt_of(provider)
    assert "<previous-summary>\nFIRST SUMMARY" in text and "updated summary" in text
    assert "Additional focus for this summary: focus on the parser" in text
    # what the first compaction kept verbatim is folded into the second summary
    assert kept_text.message.content in text
    assert m.build_session_context().messages[0].summary.startswith("SECOND SUMMARY")
    assert "read-files" in m.build_session_context().messages[0].summary


async def test_nothing_to_compact(provider):
    m = SessionManager.in_memory()
    turn(m, 0, size=10)
    with pytest.raises(NothingToCompact, match="Nothing to compact"):
        await run_compaction(m, provider.model(), settings=None)
    assert provider.requests == []


async def test_failed_summary_appends_nothing(provider):
    m = SessionManager.in_memory()
    for i in range(5):
        turn(m, i)
    before = len(m.raw_entries())
    provider.push(scripted_error("503 overloaded"))
    with pytest.raises(CompactionError, match="503"):
        await run_compaction(m, provider.model(), settings=SETTINGS)
    assert len(m.raw_entries()) == before


async def test_oversized_turn_is_summarised_in_two_parts(provider):
    m = SessionManager.in_memory()
    turn(m, 0, size=100)
    m.append_message(UserMessage(content="one huge task"))
    for i in range(1, 9):
        m.append_message(AssistantMessage(content=[ToolCall(id=f"k{i}", name="read", arguments={"path": f"p{i}"})],
                                          stop_reason="toolUse"))
        m.append_message(ToolResultMessage(tool_call_id=f"k{i}", tool_name="read",
                                           content=[TextContent(text="z" * 800)]))
    provider.push(scripted_text("HISTORY"), scripted_text("PREFIX"))
    result = await run_compaction(m, provider.model(), settings=CompactionSettings(keep_recent_tokens=450))
    assert len(provider.requests) == 2
    assert "question 0" in prompt_of(provider, 0) and "one huge task" not in prompt_of(provider, 0)
    assert "[User]: one huge task" in prompt_of(provider, 1) and "## Original Request" in prompt_of(provider, 1)
    assert result["summary"].startswith("HISTORY") and "split" in result["summary"] and "PREFIX" in result["summary"]
    assert m.get_entry(result["firstKeptEntryId"]).message.role == "assistant"


async def test_branch_summary_covers_old_leaf_back_to_common_ancestor(provider):
    m = SessionManager.in_memory()
    a = m.append_message(UserMessage(content="shared start"))
    m.append_message(UserMessage(content="B on old branch"))
    m.append_message(AssistantMessage(content=[ToolCall(id="w", name="write", arguments={"path": "old.txt"})],
                                      stop_reason="toolUse"))
    old_leaf = m.append_message(UserMessage(content="D old leaf"))
    m.branch(a)
    target = m.append_message(UserMessage(content="E new branch"))
    provider.push(scripted_text("explored B, wrote old.txt"))
    result = await summarize_branch(m, old_leaf, target, provider.model())
    text = prompt_of(provider)
    assert "B on old branch" in text and "D old leaf" in text
    assert "shared start" not in text and "E new branch" not in text
    assert "## Next Steps" in text and "## Critical Context" not in text
    assert result["commonAncestorId"] == a and result["fromId"] == old_leaf
    assert result["details"] == {"readFiles": [], "modifiedFiles": ["old.txt"]}
    assert "explored B" in result["summary"]
    sid = m.branch_with_summary(target, result["summary"], details=result["details"])
    assert m.build_session_context().messages[-1].role == "branchSummary"
    assert m.get_entry(sid).from_id == target  # leaf before moving was the target itself


async def test_branch_summary_of_nothing_returns_none(provider):
    m = SessionManager.in_memory()
    a = m.append_message(UserMessage(content="only"))
    assert await summarize_branch(m, a, a, provider.model()) is None
    assert provider.requests == []


def test_files_a_tools_own_calls_touched_are_listed_too():
    # A codemode script's read and edit are recorded on its result message as nestedCalls (Pi 1.6);
    # the summary's file lists count them as the model's own calls.
    from pi_runtime.compaction.serialize import FileOps

    ops = FileOps()
    ops.add_messages([
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "codemode",
                                           "arguments": {"code": "..."}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "codemode", "content": [], "isError": False,
         "timestamp": 0, "nestedCalls": {"complete": False, "calls": [
             {"id": "c1/1", "name": "read", "status": "ok", "arguments": {"path": "notes.md"}},
             {"id": "c1/2", "name": "edit", "status": "ok", "arguments": {"path": "app.py", "edits": []}},
             {"id": "c1/3", "name": "write", "status": "ok", "argumentsBytes": 90000}]}},
    ])
    assert ops.details() == {"readFiles": ["notes.md"], "modifiedFiles": ["app.py"]}
