"""AgentSession with the scripted provider: events, persistence, queues, retry, tree ops."""

from __future__ import annotations

import asyncio
import json
import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import (
    ScriptedResponse,
    ScriptedText,
    scripted_error,
    scripted_text,
    scripted_tool_call,
)
from pi_runtime.ai.types import TextContent
from pi_runtime.kernel.errors import PromptError
from pi_runtime.resources.system_prompt import DEFAULT_TOOL_DESCRIPTIONS
from pi_runtime.session.manager import SessionManager
from pi_runtime.testing.waiting import eventually

from .conftest import chat, record, types


def file_entries(path):
    lines = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    return lines[0], lines[1:]


async def test_prompt_with_tool_call_full_event_sequence_and_persistence(make_session, workdir):
    (workdir / "notes.txt").write_text("remember the milk\n")
    session = make_session()
    session.provider.push(scripted_tool_call("read", {"path": "notes.txt"}), scripted_text("It says milk."))
    events = record(session)
    assert await session.prompt("what is in notes.txt?") == "started"
    assert types(events) == [
        "agent_start", "turn_start",
        "message_start:system", "message_end:system",
        "message_start:user", "message_end:user",
        "message_start:assistant", "message_update", "message_end:assistant",
        "tool_execution_start", "tool_execution_end",
        "message_start:toolResult", "message_end:toolResult",
        "turn_end", "turn_start",
        "message_start:assistant", "message_update", "message_end:assistant",
        "turn_end", "agent_end", "agent_settled",
    ]
    assert events[-1].aborted is False and events[-2].will_retry is False
    header, entries = file_entries(session.session_file)
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(workdir)
    assert [e["type"] for e in entries[:2]] == ["model_change", "thinking_level_change"]
    assert entries[0]["provider"] == session.provider.name and entries[1]["thinkingLevel"] == session.thinking_level
    messages = [e for e in entries if e["type"] == "message"]
    roles = [e["message"]["role"] for e in messages]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]
    system = messages[0]["message"]
    assert set(system["sections"]) >= {"preamble", "tools", "cwd"}
    assert [t["name"] for t in system["toolsAdded"]] == ["read", "bash", "edit", "write"]
    # Each entry hangs off the previous one: a linear path.
    assert [e["parentId"] for e in entries[1:]] == [e["id"] for e in entries[:-1]]
    tool_result = messages[3]["message"]
    assert "remember the milk" in tool_result["content"][0]["text"]
    assert session.get_last_assistant_text() == "It says milk."


async def test_system_prompt_lists_tools_and_context_file(make_session, workdir):
    (workdir / "AGENTS.md").write_text("Always answer in haiku.\n")
    session = make_session()
    session.provider.push(scripted_text("ok"))
    await session.prompt("hi")
    context, _ = session.provider.requests[0]
    assert "Always answer in haiku." in context.system_prompt
    assert {t.name for t in context.tools} == {"read", "bash", "edit", "write"}
    # The built-in tools are listed by one line each; their full descriptions travel with the
    # tool definitions and are not repeated in the prompt (a small model's context is short).
    for tool in context.tools:
        assert f"- {tool.name}: {DEFAULT_TOOL_DESCRIPTIONS[tool.name]}\n" in context.system_prompt
        assert tool.description not in context.system_prompt


async def test_busy_prompt_needs_a_streaming_behaviour_and_steer_is_delivered(make_session):
    session = make_session()
    session.provider.push(
        scripted_tool_call("bash", {"command": "sleep 0.3; echo done"}),
        scripted_text("adjusted"),
    )
    events = record(session)
    run = asyncio.ensure_future(session.prompt("start"))
    while not any(e.type == "tool_execution_start" for e in events):
        await asyncio.sleep(0.01)
    with pytest.raises(PromptError, match="busy"):
        await session.prompt("interrupt", wait=False)
    assert await session.prompt("use python instead", streaming_behavior="steer") == "queued"
    queue_events = [e for e in events if e.type == "queue_update"]
    assert queue_events[-1].steering == ["use python instead"]
    await run
    second = session.provider.requests[1][0].messages
    assert [m.role for m in second] == ["user", "assistant", "toolResult", "user"]
    assert second[-1].content == [TextContent(text="use python instead")]
    # The queue emptied once the steer was delivered.
    assert [e for e in events if e.type == "queue_update"][-1].steering == []


async def test_follow_up_runs_after_the_agent_would_stop(make_session):
    session = make_session()
    session.provider.push(ScriptedResponse([ScriptedText("first " * 20)], delay=0.005), scripted_text("second"))
    run = asyncio.ensure_future(session.prompt("one"))
    assert await eventually(lambda: session.is_streaming)
    await session.follow_up("two")
    await run
    assert [m.role for m in chat(session)] == ["user", "assistant", "user", "assistant"]
    assert session.get_last_assistant_text() == "second"


async def test_auto_retry_on_503_then_success_drops_the_failed_attempt(make_session):
    session = make_session()
    session.provider.push(scripted_error("503 Service Unavailable"), scripted_error("overloaded_error: Overloaded"), scripted_text("finally"))
    events = record(session)
    await session.prompt("hello")
    retry = [e.to_wire() for e in events if e.type.startswith("auto_retry")]
    assert [r["type"] for r in retry] == ["auto_retry_start", "auto_retry_start", "auto_retry_end"]
    assert retry[0]["attempt"] == 1 and retry[1]["attempt"] == 2 and retry[0]["maxAttempts"] == 3
    assert retry[2] == {"type": "auto_retry_end", "success": True, "attempt": 2}
    # As Pi: the retries end with the answer's message_end, before its turn ends.
    order = [e.type for e in events]
    end_at = order.index("auto_retry_end")
    assert order[end_at - 1] == "message_end" and order[end_at + 1] == "turn_end"
    # Jittered exponential backoff: 2nd delay drawn from [50 %, 100 %] of twice the base.
    assert 10 <= retry[0]["delayMs"] <= 20 and 20 <= retry[1]["delayMs"] <= 40
    agent_ends = [e for e in events if e.type == "agent_end"]
    assert [e.will_retry for e in agent_ends] == [True, True, False]
    assert events[-1].type == "agent_settled"
    # The third request saw only the user message: failed attempts were edited out.
    third = session.provider.requests[2][0].messages
    assert [m.role for m in third] == ["user"]
    _, entries = file_entries(session.session_file)
    edits = [e for e in entries if e["type"] == "context_edit"]
    assert len(edits) == 2 and all(e["replacement"] is None for e in edits)
    # The failed attempts stay in the file.
    errors = [e for e in entries if e["type"] == "message" and e["message"].get("stopReason") == "error"]
    assert len(errors) == 2
    # Reopening gives the same context (edits applied).
    reopened = SessionManager.open(session.session_file, read_only=True)
    assert [m.role for m in reopened.build_session_context().messages] == ["system", "user", "assistant"]


async def test_quota_errors_are_not_retried_and_retries_give_up(make_session):
    session = make_session()
    session.provider.push(scripted_error("429 insufficient_quota: You exceeded your current quota"))
    events = record(session)
    await session.prompt("hello")
    assert not [e for e in events if e.type.startswith("auto_retry")]
    assert chat(session)[-1].stop_reason == "error"

    session2 = make_session(settings={"retry": {"maxRetries": 2}})
    session2.provider.push(*(scripted_error("500 internal error") for _ in range(3)))
    events2 = record(session2)
    await session2.prompt("hello")
    end = [e.to_wire() for e in events2 if e.type == "auto_retry_end"]
    assert end == [{"type": "auto_retry_end", "success": False, "attempt": 2, "finalError": "500 internal error"}]
    assert len(session2.provider.requests) == 3


async def test_abort_during_retry_wait_settles_aborted(make_session):
    session = make_session(settings={"retry": {"baseDelayMs": 60000, "maxDelayMs": 60000}})
    session.provider.push(scripted_error("503 Service Unavailable"), scripted_text("never"))
    events = record(session)
    run = asyncio.ensure_future(session.prompt("hello"))
    while not any(e.type == "auto_retry_start" for e in events):
        await asyncio.sleep(0.01)
    started = asyncio.get_running_loop().time()
    await session.abort()
    await run
    assert asyncio.get_running_loop().time() - started < 15  # not the retry's 60 s wait (room for a loaded machine)
    assert events[-1].type == "agent_settled" and events[-1].aborted is True
    assert [e.to_wire() for e in events if e.type == "auto_retry_end"][0]["success"] is False
    assert len(session.provider.requests) == 1


async def test_an_answer_stopped_after_a_retry_ends_the_retries_as_pi_does(make_session):
    """Pi counts any retried answer without an error as the retries' success, a stopped one too."""
    session = make_session()
    session.provider.push(scripted_error("503 Service Unavailable"),
                          ScriptedResponse([ScriptedText("word " * 200)], delay=0.01))
    events = record(session)
    run = asyncio.ensure_future(session.prompt("hello"))
    assert await eventually(lambda: any(e.type == "message_update" for e in events))
    await session.abort()
    await run
    ends = [e.to_wire() for e in events if e.type == "auto_retry_end"]
    assert ends == [{"type": "auto_retry_end", "success": True, "attempt": 1}]
    order = [e.type for e in events]
    assert order[order.index("auto_retry_end") - 1] == "message_end"
    assert events[-1].type == "agent_settled" and events[-1].aborted is True


async def test_abort_during_stream(make_session):
    session = make_session()
    session.provider.push(ScriptedResponse([ScriptedText("word " * 200)], delay=0.01))
    events = record(session)
    run = asyncio.ensure_future(session.prompt("talk"))
    assert await eventually(lambda: any(e.type == "message_update" and e.message.text() for e in events))  # mid-stream
    await session.abort()
    await run
    assert chat(session)[-1].stop_reason == "aborted"
    assert events[-1].type == "agent_settled" and events[-1].aborted


async def test_a_message_sent_while_an_abort_unwinds_starts_the_next_run(make_session):
    # Esc, then a new message at once: the run is still unwinding. Queued as a steer, the
    # message sat in a queue no run would read (and came back into the editor at the next Esc).
    session = make_session()
    session.provider.push(ScriptedResponse([ScriptedText("word " * 200)], delay=0.01), scripted_text("next answer"))
    events = record(session)
    run = asyncio.ensure_future(session.prompt("talk"))
    assert await eventually(lambda: any(e.type == "message_update" and e.message.text() for e in events))
    assert session.is_streaming
    # Tasks start in the order they were made: the abort begins, then the message is sent while
    # the run (a task of its own) has not yet unwound.
    abort = asyncio.ensure_future(session.abort())
    sent = asyncio.ensure_future(session.prompt("and now this", streaming_behavior="steer", wait=False))
    assert await sent == "started"
    await asyncio.gather(run, abort)
    await session.wait_for_idle()
    assert [m.content[0].text for m in chat(session) if m.role == "user"] == ["talk", "and now this"]
    assert chat(session)[-1].text() == "next answer" and session.queued_messages() == []


async def test_prompt_template_and_skill_expand_before_sending(make_session, agent_dir):
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text("---\ndescription: Review\n---\nReview $1 carefully.")
    skill = agent_dir / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Greets people\n---\nSay hello warmly.\n")
    session = make_session()
    session.provider.push(scripted_text("ok"), scripted_text("ok"))
    await session.prompt("/review main.py")
    await session.prompt("/skill:greet Bob")
    first = session.provider.requests[0][0].messages[-1].content
    second = session.provider.requests[1][0].messages[-1].content[0].text
    assert first == [TextContent(text="Review main.py carefully.")]
    assert "Say hello warmly." in second and "Bob" in second


async def test_skill_commands_can_be_turned_off(make_session, agent_dir):
    skill = agent_dir / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Greets people\n---\nSay hello warmly.\n")
    session = make_session(settings={"enableSkillCommands": False})
    session.provider.push(scripted_text("ok"))
    await session.prompt("/skill:greet Bob")
    assert session.provider.requests[0][0].messages[-1].content == [TextContent(text="/skill:greet Bob")]  # sent as typed


async def test_a_per_model_thinking_level_is_the_start_up_level_of_that_model(make_session):
    from pi_runtime.ai.providers.scripted import ScriptedProvider

    provider = ScriptedProvider("per-model")
    model = provider.model()
    session = make_session(provider=provider, model=model, settings={
        "defaultThinkingLevel": "high", "modelThinkingLevels": {model.ref: "low"}})
    assert session.thinking_level == "low"


async def test_thinking_level_clamped_and_recorded(make_session):
    session = make_session()
    assert await session.set_thinking_level("xhigh") == "high"  # the scripted model has no xhigh
    assert session.available_thinking_levels() == ["off", "minimal", "low", "medium", "high"]
    assert await session.cycle_thinking_level() == "off"
    session.provider.push(scripted_text("ok"))
    await session.prompt("hi")
    _, entries = file_entries(session.session_file)
    # The level in force when the session was made comes first, as in Pi's files.
    assert [e["thinkingLevel"] for e in entries if e["type"] == "thinking_level_change"] == ["medium", "high", "off"]


async def test_navigate_tree_branches_and_user_message_returns_to_editor(make_session):
    session = make_session()
    session.provider.push(scripted_text("answer one"), scripted_text("answer two"), scripted_text("alt answer"))
    await session.prompt("question one")
    await session.prompt("question two")
    branch = session.session_manager.get_branch()
    second_user = [e for e in branch if e.type == "message" and e.message.role == "user"][1]
    result = await session.navigate_tree(second_user.id)
    assert result.editor_text == "question two" and result.cancelled is False
    assert [m.role for m in chat(session)] == ["user", "assistant"]
    await session.prompt("question two, differently")
    node = session.get_tree()["tree"][0]
    while node["entry"].get("message", {}).get("role") != "assistant":
        node = node["children"][0]
    assert len(node["children"]) == 2  # two branches from the first answer
    assert session.provider.requests[-1][0].messages[-1].content == [TextContent(text="question two, differently")]


async def test_navigate_with_summary_adds_branch_summary(make_session):
    session = make_session()
    session.provider.push(scripted_text("a1"), scripted_text("a2"), scripted_text("We tried approach B."))
    await session.prompt("q1")
    await session.prompt("q2 try approach B")
    first_assistant = [e for e in session.session_manager.get_branch() if e.type == "message"][1]
    result = await session.navigate_tree(first_assistant.id, summarize=True)
    assert result.summary_entry_id is not None
    entry = session.session_manager.get_entry(result.summary_entry_id)
    assert entry.type == "branch_summary" and "approach B" in entry.summary
    assert chat(session)[-1].role == "branchSummary"


async def test_branch_summary_starts_after_the_selected_user_message(make_session):
    # Pi measures the abandoned part from the selected entry: picking q2 on the current path
    # summarises its answer, not q2 itself (q2 goes back to the editor, not into the summary).
    session = make_session()
    session.provider.push(scripted_text("a1"), scripted_text("a2 went with plan B"), scripted_text("## Goal\nB"))
    await session.prompt("q1")
    await session.prompt("q2 about plan B")
    second_user = [e for e in session.session_manager.get_branch()
                   if e.type == "message" and e.message.role == "user"][1]
    result = await session.navigate_tree(second_user.id, summarize=True)
    assert result.editor_text == "q2 about plan B"
    context, options = session.provider.requests[-1]
    prompt = context.messages[0].content[0].text
    assert "a2 went with plan B" in prompt and "q2 about plan B" not in prompt
    assert not context.tools
    # Pi's branch format: the goal on this branch, then the same sections in the same order.
    sections = [line for line in prompt.splitlines() if line.startswith("#")]
    assert sections == ["## Goal", "## Constraints & Preferences", "## Progress", "### Done", "### In Progress",
                        "### Blocked", "## Key Decisions", "## Next Steps"]
    assert "on this branch" in prompt and '"(none)"' in prompt
    entry = session.session_manager.get_entry(result.summary_entry_id)
    assert entry.parent_id == second_user.parent_id


async def test_branch_summary_refuses_a_reply_that_calls_a_tool(make_session):
    from pi_runtime.compaction.compaction import CompactionError

    session = make_session()
    session.provider.push(scripted_text("a1"), scripted_text("a2"),
                          scripted_tool_call("read", {"path": "x"}),
                          scripted_tool_call("read", {"path": "x"}, text="## Goal\nsome text beside the call"))
    await session.prompt("q1")
    await session.prompt("q2")
    first_answer = [e for e in session.session_manager.get_branch() if e.type == "message"][2]
    leaf = session.session_manager.leaf_id
    before = open(session.session_file, encoding="utf-8").read()
    for _ in range(2):  # only a call, then text beside a call: neither is a summary (Pi refuses both)
        with pytest.raises(CompactionError, match="Branch summarization attempted to call a tool"):
            await session.navigate_tree(first_answer.id, summarize=True)
        assert session.session_manager.leaf_id == leaf
        assert open(session.session_file, encoding="utf-8").read() == before


async def test_fork_messages_include_abandoned_branches(make_session):
    # Pi's /fork (and RPC get_fork_messages) lists the user messages of the whole tree.
    session = make_session()
    session.provider.push(scripted_text("a1"), scripted_text("a2"), scripted_text("a3"))
    await session.prompt("q1")
    await session.prompt("q2 abandoned")
    first_assistant = [e for e in session.session_manager.get_branch() if e.type == "message"][-3]
    await session.navigate_tree(first_assistant.id)
    await session.prompt("q3 instead")
    assert [f["text"] for f in session.get_fork_messages()] == ["q1", "q2 abandoned", "q3 instead"]


async def test_fork_and_clone_write_new_files(make_session, tmp_path):
    session = make_session()
    session.provider.push(scripted_text("a1"), scripted_text("a2"))
    await session.prompt("q1")
    await session.prompt("q2")
    original = session.session_file
    forks = session.get_fork_messages()
    assert [f["text"] for f in forks] == ["q1", "q2"]
    result = await session.fork(forks[1]["entryId"])
    assert result.text == "q2" and result.cancelled is False
    assert session.session_file != original
    assert [m.role for m in chat(session)] == ["user", "assistant"]
    header, entries = file_entries(session.session_file)
    assert header["parentSession"] == original
    assert [e["message"]["content"] for e in entries if e["type"] == "message" and e["message"]["role"] == "user"] == [[{"type": "text", "text": "q1"}]]

    forked = session.session_file
    await session.clone()
    assert session.session_file not in (forked, original)
    header2, entries2 = file_entries(session.session_file)
    assert header2["parentSession"] == forked
    assert len([e for e in entries2 if e["type"] == "message" and e["message"]["role"] != "system"]) == 2


async def test_a_session_not_written_yet_is_neither_forked_nor_cloned(make_session):
    # Pi 1.6: "This session has not been saved yet." A new session's file is written with its first
    # exchange; pi cloned it anyway, into a file whose parent was never written.
    session = make_session()
    words = "This session has not been saved yet. Send a message before cloning or forking it."
    with pytest.raises(ValueError, match=re.escape(words)):
        await session.clone()
    session.provider.push(scripted_text("a1"))
    await session.prompt("q1")
    result = await session.fork(session.get_fork_messages()[0]["entryId"])  # before q1: nothing said yet
    assert result.text == "q1" and not Path(session.session_file).exists()
    with pytest.raises(ValueError, match=re.escape(words)):
        await session.clone()
    in_memory = make_session(persist=False)  # --no-session: nothing is ever written, and Pi clones it
    in_memory.provider.push(scripted_text("a1"))
    await in_memory.prompt("q1")
    assert (await in_memory.clone()).cancelled is False


async def test_new_and_switch_session(make_session):
    session = make_session()
    session.provider.push(scripted_text("a1"), scripted_text("b1"))
    await session.prompt("first session")
    first = session.session_file
    await session.new_session()
    assert chat(session) == []
    await session.prompt("second session")
    second = session.session_file
    assert second != first
    await session.switch_session(first)
    assert session.session_file == first
    assert chat(session)[0].content == [TextContent(text="first session")]


async def test_user_bash_is_recorded_and_reaches_next_prompt(make_session):
    session = make_session()
    events = record(session)
    result = await session.execute_bash("echo from-shell; exit 3")
    # The output as the shell wrote it, final newline included (Pi keeps it when nothing was cut).
    assert result.to_wire() == {"output": "from-shell\n", "exitCode": 3, "cancelled": False, "truncated": False}
    assert any(e.type == "bash_execution_update" and "from-shell" in e.delta for e in events)
    excluded = await session.execute_bash("echo secret", exclude_from_context=True)
    assert excluded.exit_code == 0
    session.provider.push(scripted_text("seen"))
    await session.prompt("what happened?")
    sent = session.provider.requests[0][0].messages
    texts = [m.content[0].text if isinstance(m.content, list) else m.content for m in sent]
    assert texts[0].startswith("Ran `echo from-shell; exit 3`") and "Command exited with code 3" in texts[0]
    assert not any("secret" in t for t in texts)


async def test_session_stats_and_state(make_session):
    session = make_session()
    session.provider.push(scripted_tool_call("bash", {"command": "true"}), scripted_text("done"))
    await session.prompt("go")
    await session.set_session_name("my work")
    stats = session.get_session_stats()
    assert stats.user_messages == 1 and stats.assistant_messages == 2
    assert stats.tool_calls == 1 and stats.tool_results == 1 and stats.total_messages == 5  # the system message too, as Pi counts
    assert stats.usage.input > 0 and stats.usage.cost > 0
    state = session.get_state()
    # Pi's messageCount is every message get_messages gives, the system message included.
    assert state["sessionName"] == "my work" and state["messageCount"] == 5 == len(session.get_messages())
    assert state["model"]["provider"] == session.provider.name and state["isStreaming"] is False
    entries = session.get_entries()
    later = session.get_entries(since=entries["entries"][1]["id"])
    assert later["entries"] == entries["entries"][2:]
    with pytest.raises(KeyError):
        session.get_entries(since="nope")


async def test_missing_credentials_is_a_clear_prompt_error(make_session, monkeypatch):
    from pi_runtime.ai.types import Model

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    session = make_session()
    await session.set_model(Model(id="claude-x", api="anthropic-messages", provider="anthropic",
                                  base_url="https://api.anthropic.com"))
    with pytest.raises(PromptError, match="ANTHROPIC_API_KEY"):
        await session.prompt("hi")


async def test_export_html_is_standalone(make_session, tmp_path):
    from pi_runtime.kernel.export_html import decode_session_data

    session = make_session()
    session.provider.push(scripted_text("<b>bold</b> answer"))
    await session.prompt("show <html>")
    path = session.export_html(str(tmp_path / "out.html"))
    html = open(path, encoding="utf-8").read()
    # One file, no outside assets; the session's text travels encoded, never as markup.
    assert html.startswith("<!doctype html>") and "<b>bold</b>" not in html
    loaded = []

    class Assets(HTMLParser):
        def handle_starttag(self, tag, attrs):
            loaded.extend(value for name, value in attrs if name in ("src", "href"))

    Assets().feed(html)
    assert loaded == []
    texts = [json.dumps(e) for e in decode_session_data(html)["entries"]]
    assert any("<b>bold</b> answer" in t for t in texts) and any("show <html>" in t for t in texts)


async def test_bash_tool_sees_session_id_and_failed_command_keeps_details(make_session):
    session = make_session()
    session.provider.push(scripted_tool_call("bash", {"command": "echo $PI_SESSION_ID; exit 2"}), scripted_text("ok"))
    await session.prompt("go")
    result = chat(session)[2]
    assert result.is_error and session.session_id in result.content[0].text
    assert "Command exited with code 2" in result.content[0].text


async def test_budget_stops_cleanly_at_a_turn_boundary(make_session):
    session = make_session(settings={"budget": {"maxTurns": 2}})
    session.provider.push(*(scripted_tool_call("bash", {"command": f"echo {i}"}) for i in range(4)))
    events = record(session)
    await session.prompt("loop forever")
    assert len(session.provider.requests) == 2
    exceeded = [e.to_wire() for e in events if e.type == "budget_exceeded"]
    assert exceeded == [{"type": "budget_exceeded", "limit": "turns",
                         "message": "Stopped: the turn budget of 2 was reached for this prompt."}]
    # Both turns finished their tool calls; the run settled, not aborted.
    assert [m.role for m in chat(session)][-2:] == ["assistant", "toolResult"]
    assert events[-1].type == "agent_settled" and events[-1].aborted is False
    # The next prompt gets a fresh budget.
    session.provider.responses.clear()
    session.provider.push(scripted_text("fine"))
    await session.prompt("now answer")
    assert session.get_last_assistant_text() == "fine"


async def test_cost_budget(make_session):
    from pi_runtime.ai.types import Usage

    session = make_session(settings={"budget": {"maxCost": 0.01}})
    expensive = Usage(input=2000, output=500)  # $0.0135 at the scripted model's prices
    session.provider.push(scripted_tool_call("bash", {"command": "true"}, usage=expensive), scripted_text("never"))
    events = record(session)
    await session.prompt("go")
    assert [e.limit for e in events if e.type == "budget_exceeded"] == ["cost"]
    assert len(session.provider.requests) == 1


async def test_a_flood_of_user_bash_output_comes_in_few_updates_that_carry_all_of_it(make_session):
    # `yes` wrote thousands of chunks a second, each its own event: a front end drowned in them.
    from pi_runtime.kernel.bash_runner import UPDATE_INTERVAL_S

    session = make_session()
    events = record(session)
    started = time.monotonic()
    result = await session.execute_bash("yes 0123456789 | head -c 3000000")
    took = time.monotonic() - started
    updates = [e.delta for e in events if e.type == "bash_execution_update"]
    assert "".join(updates) == "0123456789\n" * 272727 + "012"  # every byte, in order
    assert result.truncated
    assert len(updates) <= took / UPDATE_INTERVAL_S + 2  # one per interval at most, and the rest
