"""Token estimates, the auto-compaction threshold and the cut point."""

from __future__ import annotations

import pytest

from pi_runtime.ai.types import (
    AssistantMessage,
    CompactionSummaryMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_runtime.compaction.cut_point import find_cut_point
from pi_runtime.compaction.estimate import (
    estimate_context,
    estimate_context_tokens,
    estimate_message_tokens,
    should_compact,
)
from pi_runtime.compaction.settings import CompactionSettings
from pi_runtime.session import SessionManager


def reply(text: str, total: int, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)], usage=Usage(total_tokens=total), stop_reason=stop)


def test_estimate_without_usage_counts_the_replayed_prompt_and_tools_once():
    tool = {"name": "read", "description": "d" * 35, "parameters": {"type": "object"}}
    changed = {**tool, "description": "e" * 75}
    messages = [
        {"role": "system", "content": "p" * 400, "sections": {"a": "s" * 40}, "toolsAdded": [tool]},
        {"role": "user", "content": "x" * 40},
        reply("ok", 0),  # a server that reports no usage (llama.cpp)
        # A later change re-declares the tool: the request carries only the new declaration.
        {"role": "system", "content": "", "toolsRemoved": [{"name": "read"}], "toolsAdded": [changed]},
    ]
    est = estimate_context(messages)
    tools_chars = len('[{"name":"read","description":"' + "e" * 75 + '","parameters":{"type":"object"}}]')
    assert est.last_usage_index == -1
    assert est.tokens == -(-(400 + 40 + tools_chars) // 4) + 10 + 1


def test_estimate_uses_last_valid_usage_plus_chars_after():
    messages = [UserMessage(content="x" * 400), reply("ok", 1000), UserMessage(content="y" * 41),
                reply("broken", 99_999, stop="error"), UserMessage(content=[ImageContent(data="AA", mime_type="image/png")])]
    est = estimate_context(messages)
    assert est.last_usage_index == 1 and est.usage_tokens == 1000
    # 41 chars -> 11 tokens, "broken" -> 2, image -> 4800/4
    assert est.trailing_tokens == 11 + 2 + 1200
    assert estimate_context_tokens(messages) == 1000 + 1213
    assert estimate_context_tokens([]) is None


def test_usage_from_before_the_compaction_is_stale_even_in_kept_messages():
    kept = reply("kept", 150_000)
    kept.timestamp = 1_000
    summary = CompactionSummaryMessage(summary="s" * 40, tokens_before=150_000, timestamp=2_000)
    messages = [summary, kept, UserMessage(content="z" * 8, timestamp=3_000)]
    assert estimate_context_tokens(messages) == 10 + 1 + 2
    fresh = reply("new", 5_000)
    fresh.timestamp = 4_000
    assert estimate_context_tokens([*messages, fresh]) == 5_000


def test_should_compact_threshold_and_settings():
    assert should_compact(200_000 - 16_384 + 1, 200_000, None)
    assert not should_compact(200_000 - 16_384, 200_000, None)
    assert not should_compact(190_000, 200_000, CompactionSettings(enabled=False))
    assert should_compact(101, 1000, CompactionSettings(reserve_tokens=900))
    assert not should_compact(None, 1000, None)
    # As in Pi, a window no larger than the reserve (an 8k local model) is over its threshold at
    # once; the cut then decides whether anything is summarised. An unknown window never is.
    assert should_compact(1, 8_192, None)
    assert not should_compact(1_000_000, 0, None)
    with pytest.raises(ValueError):
        CompactionSettings(reserve_tokens=-1)


def _turns(m: SessionManager, n: int, size: int) -> list[str]:
    ids = []
    for i in range(n):
        ids.append(m.append_message(UserMessage(content=f"u{i} " + "x" * size)))
        call = ToolCall(id=f"c{i}", name="read", arguments={"path": f"f{i}.py"})
        m.append_message(AssistantMessage(content=[call], stop_reason="toolUse"))
        m.append_message(ToolResultMessage(tool_call_id=f"c{i}", tool_name="read",
                                           content=[TextContent(text="r" * size)]))
        m.append_message(AssistantMessage(content=[TextContent(text=f"a{i}")], stop_reason="stop"))
    return ids


def test_cut_keeps_about_keep_recent_tokens():
    m = SessionManager.in_memory()
    users = _turns(m, 10, 400)  # each turn ~ 200 tokens
    path = m.raw_branch()
    for keep in (500, 900):
        cut = find_cut_point(path, 0, len(path), keep_recent_tokens=keep)
        kept = sum(estimate_message_tokens(e["message"]) for e in path[cut.first_kept_index:])
        # the cut moves forward to the next valid entry: at most one tool result (~100) short
        assert keep - 110 <= kept <= keep, (keep, kept)
        if cut.is_split_turn:
            assert path[cut.turn_start_index]["id"] in users
        else:
            assert path[cut.first_kept_index]["id"] in users


def test_cut_never_lands_on_a_tool_result():
    m = SessionManager.in_memory()
    _turns(m, 6, 400)
    path = m.raw_branch()
    for keep in range(50, 1500, 37):
        cut = find_cut_point(path, 0, len(path), keep_recent_tokens=keep)
        assert path[cut.first_kept_index]["message"]["role"] != "toolResult", keep


def test_small_session_cut_is_at_start():
    m = SessionManager.in_memory()
    _turns(m, 2, 10)
    path = m.raw_branch()
    assert find_cut_point(path, 0, len(path), 20_000).first_kept_index == 0


def test_oversized_single_turn_is_split():
    m = SessionManager.in_memory()
    start = m.append_message(UserMessage(content="do a big job"))
    for i in range(8):
        m.append_message(AssistantMessage(content=[ToolCall(id=f"c{i}", name="read", arguments={"path": "a"})],
                                          stop_reason="toolUse"))
        m.append_message(ToolResultMessage(tool_call_id=f"c{i}", tool_name="read",
                                           content=[TextContent(text="r" * 800)]))
    path = m.raw_branch()
    cut = find_cut_point(path, 0, len(path), keep_recent_tokens=450)
    assert cut.is_split_turn and path[cut.turn_start_index]["id"] == start
    assert path[cut.first_kept_index]["message"]["role"] == "assistant"
    assert CompactionSettings().keep_recent_tokens == 20_000


def test_should_compact_takes_pis_plain_settings_object():
    # Pi's tests call shouldCompact with a plain object: {enabled, reserveTokens, keepRecentTokens}.
    settings = {"enabled": True, "reserveTokens": 10_000, "keepRecentTokens": 20_000}
    assert should_compact(95_000, 100_000, settings)
    assert not should_compact(85_000, 100_000, settings)
    assert not should_compact(95_000, 100_000, {**settings, "enabled": False})
    assert should_compact(95_000, 100_000, {"reserve_tokens": 10_000})  # snake_case, defaults for the rest


@pytest.mark.parametrize(("stamp", "counts"), [
    (0.25, True),  # older than the answer: its usage measures the context
    (5, False),  # newer (a summary put in before it): stale
    ("noon", True), (None, True),  # a stamp that is no number counts as the oldest
    (True, True),  # a bool too, though True > 0.5
    (float("nan"), True),  # compared as Pi's Math.max steps over it
])
def test_the_stamps_of_stored_messages_decide_whether_the_last_usage_counts(stamp, counts) -> None:
    # Stored messages come as wire dicts (a resumed session): the newest stamp before the answer is
    # taken in one pass over them, the careful way only when a stamp is no plain number.
    from pi_runtime.ai.context_budget import context_tokens

    history = [
        {"role": "user", "content": "q" * 400, "timestamp": 0},
        {"role": "user", "content": "first", "timestamp": stamp},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}], "stopReason": "stop", "timestamp": 0.5,
         "usage": {"input": 90, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 100}},
    ]
    estimated = context_tokens(None, None, history)
    assert (estimated == 100) is counts, estimated
    assert context_tokens(None, None, [*history, UserMessage(content="x" * 40)]) > estimated  # an object after them
