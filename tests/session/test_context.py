"""build_session_context: compaction, summaries, custom messages, context edits, model and level."""

from __future__ import annotations

from session_helpers import assistant, tool_result, user

from pi_runtime.ai.types import SystemMessage, ToolCall
from pi_runtime.session import SessionManager


def texts(ctx) -> list[str]:
    out = []
    for m in ctx.messages:
        if m.role in ("compactionSummary", "branchSummary"):
            out.append(f"{m.role}:{m.summary}")
        elif isinstance(m.content, str):
            out.append(m.content)
        else:
            out.append("".join(getattr(b, "text", "") for b in m.content))
    return out


def test_latest_compaction_wins_and_keeps_from_first_kept_entry():
    m = SessionManager.in_memory()
    m.append_message(user("u1"))
    m.append_message(assistant("a1"))
    u2 = m.append_message(user("u2"))
    m.append_message(assistant("a2"))
    m.append_compaction("S1", u2, 100)
    u3 = m.append_message(user("u3"))
    m.append_message(assistant("a3"))
    m.append_compaction("S2", u3, 200)
    m.append_message(user("u4"))
    ctx = m.build_session_context()
    assert texts(ctx) == ["compactionSummary:S2", "u3", "a3", "u4"]
    assert ctx.messages[0].tokens_before == 200


def test_retain_none_compaction_keeps_nothing_before_it():
    m = SessionManager.in_memory()
    m.append_message(user("u1"))
    m.append_message(assistant("a1"))
    cid = m.append_compaction("placeholder", "will-fix", 10)
    # A retain-none compaction names itself; emulate by writing an entry that does.
    m.raw_entries()[-1]["firstKeptEntryId"] = cid
    m.append_message(user("after"))
    assert texts(m.build_session_context()) == ["compactionSummary:placeholder", "after"]


def test_compaction_system_checkpoint_replaces_older_system_messages():
    m = SessionManager.in_memory()
    m.append_message(SystemMessage(sections={"preamble": "old prompt"}))
    first = m.append_message(user("u1"))
    m.append_message(SystemMessage(sections={"extra": "kept-range system"}))
    m.append_message(assistant("a1"))
    m.append_compaction("S", first, 50, system_message=SystemMessage(content="checkpoint prompt", timestamp=1))
    m.append_message(SystemMessage(sections={"later": "after compaction"}))
    ctx = m.build_session_context()
    roles = [x.role for x in ctx.messages]
    assert roles == ["system", "compactionSummary", "user", "assistant", "system"]
    assert ctx.messages[0].content == "checkpoint prompt"
    assert ctx.messages[4].sections == {"later": "after compaction"}


def test_context_edits_latest_wins_and_are_branch_relative():
    m = SessionManager.in_memory()
    q = m.append_message(user("original question"))
    call = ToolCall(id="c1", name="read", arguments={"path": "x"})
    m.append_message(assistant("", calls=[call]))
    tr = m.append_message(tool_result("c1", "huge output"))
    before_edits = m.append_message(assistant("answer"))
    m.append_context_edit(tr, "first replacement")
    m.append_context_edit(tr, "[output trimmed]")
    m.append_context_edit(q, None)
    ctx = m.build_session_context()
    assert "original question" not in texts(ctx)
    tool = next(x for x in ctx.messages if x.role == "toolResult")
    assert [b.text for b in tool.content] == ["[output trimmed]"]
    # The raw entry is unchanged.
    assert m.get_entry(tr).message.content[0].text == "huge output"
    m.branch(before_edits)
    assert texts(m.build_session_context())[0] == "original question"
    assert "huge output" in texts(m.build_session_context())


def test_custom_messages_and_branch_summaries_enter_context_custom_entries_do_not():
    m = SessionManager.in_memory()
    m.append_message(user("q"))
    m.append_custom("ext-state", {"n": 1})
    m.append_custom_message("ext", "injected", display=False, details={"secret": 1})
    m.append_branch_summary("deadbeef", "explored B")
    m.append_usage("cache_warm", "anthropic", "claude", {"input": 0})
    ctx = m.build_session_context()
    assert [x.role for x in ctx.messages] == ["user", "custom", "branchSummary"]
    assert ctx.messages[1].custom_type == "ext" and ctx.messages[1].display is False
    assert ctx.messages[2].from_id == "deadbeef"


def test_model_and_thinking_level_in_force_follow_the_path():
    m = SessionManager.in_memory()
    assert m.build_session_context().model is None
    assert m.build_session_context().thinking_level == "off"
    m.append_message(user("q"))
    a = m.append_message(assistant("a", provider="anthropic", model="claude"))
    m.append_model_change("openai", "gpt-4o")
    m.append_thinking_level_change("high")
    ctx = m.build_session_context()
    assert ctx.model == {"provider": "openai", "modelId": "gpt-4o"} and ctx.thinking_level == "high"
    m.branch(a)
    ctx = m.build_session_context()
    assert ctx.model == {"provider": "anthropic", "modelId": "claude"} and ctx.thinking_level == "off"


def test_side_branches_stay_out_of_the_context():
    m = SessionManager.in_memory()
    root = m.append_message(user("root"))
    for i in range(3000):
        m.append_message(user(f"side {i}"))
    m.branch(root)
    m.append_message(assistant("short path"))
    ctx = m.build_session_context()
    assert len(ctx.message_dicts) == 2 and texts(ctx) == ["root", "short path"]


def test_a_leaf_that_is_not_in_the_session_falls_back_to_the_last_entry_as_in_pi(tmp_path):
    from pi_runtime.session import build_session_context

    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("u1"))
    a1 = m.append_message(assistant("a1"))
    m.branch(a1)
    m.append_message(user("other branch"))
    m.close()
    opened = SessionManager.open(m.session_file)
    by_id = {e["id"]: e for e in opened.raw_entries()}
    assert texts(build_session_context(by_id, "no-such-id")) == ["u1", "a1", "other branch"]
    assert texts(build_session_context(by_id, None)) == []  # before the first entry: nothing
    assert texts(build_session_context({}, "no-such-id")) == []
    opened.close()
