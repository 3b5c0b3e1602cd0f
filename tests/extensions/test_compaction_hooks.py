"""session_before_compact / session_before_tree as Pi's custom-compaction example uses them: the
preparation, a summary of the extension's own through ``ctx.model_registry.complete``, cancel,
and session_compact / session_compact_failed pairing every attempt with its outcome."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.kernel.errors import CompactionError

from .conftest import errors, module_of

LONG = "lorem ipsum dolor sit amet " * 200  # ~1,350 tokens

CUSTOM_COMPACTION = """
    from pi_runtime.extensions import convert_to_llm, serialize_conversation
    seen = {}
    def extension(pi):
        async def before(event, ctx):
            prep = event.preparation
            seen["before"] = (event.reason, len(prep.messages_to_summarize), prep.tokens_before,
                              len(event.branch_entries), event.signal is not None)
            text = serialize_conversation(convert_to_llm(prep.messages_to_summarize + prep.turn_prefix_messages))
            response = await ctx.model_registry.complete(
                ctx.model,
                {"messages": [{"role": "user", "content": [{"type": "text", "text": "Summarise:\\n" + text}],
                               "timestamp": 0}]},
                {"maxTokens": 8192, "signal": event.signal, "cacheRetention": "none"})
            summary = "".join(b.text for b in response.content if b.type == "text")
            return {"compaction": {"summary": summary, "firstKeptEntryId": prep.first_kept_entry_id,
                                   "tokensBefore": prep.tokens_before, "usage": response.usage,
                                   "details": {"by": "custom"}}}
        pi.on("session_before_compact", before)
        pi.on("session_compact", lambda e, ctx: seen.update(compact=(e.from_extension, e.compaction_entry.summary)))
        pi.on("session_compact_failed", lambda e, ctx: seen.update(failed=e.fields()))
"""


async def fill(session, turns):
    for i in range(turns):
        session.provider.push(scripted_text(f"answer {i}: {LONG}"))
        await session.prompt(f"question {i}: {LONG}")


def file_entries(session, kind):
    lines = Path(session.session_file).read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("type") == kind]


async def two_turns(session):
    """Two prompts answered; returns the first answer's entry id (a /tree target leaving one turn)."""
    session.provider.push(scripted_text("first answer"))
    await session.prompt("first")
    first_answer = session.session_manager.leaf_id
    session.provider.push(scripted_text("second answer"))
    await session.prompt("second")
    return first_answer

async def failing_compaction(make_session, write_ext, name, handler, error):
    """A session whose ``session_before_compact`` handler is ``handler`` (source), compacted once:
    ``error`` is raised, nothing is stored, and what session_compact_failed said is returned."""
    path = write_ext(name, f"""
        seen = {{}}
        def extension(pi):
            pi.on("session_before_compact", {handler})
            pi.on("session_compact_failed", lambda e, ctx: seen.update(failed=e.fields()))
    """)
    session = make_session(extensions=[path], persist=True, settings={"compaction": {"keepRecentTokens": 2000}})
    await fill(session, 3)
    with pytest.raises(CompactionError, match=error):
        await session.compact()
    assert file_entries(session, "compaction") == []
    return session, module_of(path).seen["failed"]


async def test_an_extension_summarises_with_its_own_model_call(make_session, write_ext):
    path = write_ext("custom_compaction", CUSTOM_COMPACTION)
    session = make_session(extensions=[path], persist=True, settings={"compaction": {"keepRecentTokens": 2000}})
    await fill(session, 4)
    session.provider.push(scripted_text("## Custom\nEverything so far."))
    result = await session.compact()
    seen = module_of(path).seen
    reason, to_summarise, tokens_before, branch, has_signal = seen["before"]
    assert reason == "manual" and to_summarise > 0 and tokens_before > 0 and branch >= 8 and has_signal
    assert result.summary == "## Custom\nEverything so far."
    # The extension's request went through the session's provider with the serialized transcript.
    request, _ = session.provider.requests[-1]
    assert request.messages[-1].content[0].text.startswith("Summarise:\n[User]: question 0")
    assert seen["compact"] == (True, "## Custom\nEverything so far.")
    [entry] = file_entries(session, "compaction")
    assert entry["fromHook"] is True and entry["details"] == {"by": "custom"} and "usage" in entry
    assert "failed" not in seen and not errors(session)


async def test_cancelling_compaction_is_reported_as_an_aborted_attempt(make_session, write_ext):
    _, failed = await failing_compaction(make_session, write_ext, "veto", 'lambda e, ctx: {"cancel": True}',
                                         "cancelled by an extension")
    assert failed["aborted"] is True and failed["reason"] == "manual" and failed["error_message"] is None


async def test_a_compaction_without_summary_text_fails_cleanly(make_session, write_ext):
    session, failed = await failing_compaction(make_session, write_ext, "empty",
                                               'lambda e, ctx: {"compaction": {"summary": "  "}}', "no summary text")
    assert failed["from_extension"] is True and "no summary text" in failed["error_message"]
    session.provider.push(scripted_text("still fine"))
    await session.prompt("go on")  # the session goes on unharmed
    assert session.messages[-1].content[0].text == "still fine"


async def test_an_extension_writes_the_branch_summary_of_tree_navigation(make_session, write_ext):
    path = write_ext("tree_summary", """
        seen = {}
        def extension(pi):
            def before(event, ctx):
                prep = event.preparation
                seen["prep"] = (prep.target_id, prep.user_wants_summary, [e.type for e in prep.entries_to_summarize],
                                prep.common_ancestor_id)
                return {"summary": {"summary": f"left {len(prep.entries_to_summarize)} entries", "details": {"n": 1}}}
            pi.on("session_before_tree", before)
    """)
    session = make_session(extensions=[path], persist=True)
    first_answer = await two_turns(session)
    result = await session.navigate_tree(first_answer, summarize=True)
    target, wanted, kinds, ancestor = module_of(path).seen["prep"]
    assert target == first_answer and wanted is True and kinds == ["message", "message"]
    assert ancestor == first_answer
    [summary] = file_entries(session, "branch_summary")
    assert summary["summary"] == "left 2 entries" and summary["fromHook"] is True
    assert result.summary_entry_id == summary["id"]
    assert len(session.provider.requests) == 2  # no summary request: the extension wrote it


async def test_stream_simple_reports_a_setup_failure_as_an_error_result(make_session, write_ext):
    path = write_ext("asks", """
        seen = {}
        def extension(pi):
            async def ask(args, ctx):
                events = []
                stream = ctx.model_registry.stream_simple(ctx.model, {"messages": "not a list"})
                async for event in stream:
                    events.append(event.type)
                result = await stream.result()
                seen["bad"] = (events, result.stop_reason)
                ok = await ctx.model_registry.complete(ctx.model, {"messages": [
                    {"role": "user", "content": "hi", "timestamp": 0}]})
                seen["ok"] = ok.content[0].text
            pi.register_command("ask", ask)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("hello back"))
    assert await session.prompt("/ask") == "handled"
    seen = module_of(path).seen
    assert seen["bad"] == (["error"], "error")
    assert seen["ok"] == "hello back"


async def test_abort_cancels_a_summary_handler_that_ignores_its_signal(make_session, write_ext):
    path = write_ext("stuck", """
        import asyncio
        seen = {}
        def extension(pi):
            async def before(event, ctx):
                seen["started"] = True
                await asyncio.sleep(3600)  # never looks at event.signal
            pi.on("session_before_compact", before)
            pi.on("session_compact_failed", lambda e, ctx: seen.update(failed=e.fields()))
    """)
    session = make_session(extensions=[path], persist=True, settings={"compaction": {"keepRecentTokens": 2000}})
    await fill(session, 3)
    import asyncio

    task = asyncio.ensure_future(session.compact())
    for _ in range(100):
        if module_of(path).seen.get("started"):
            break
        await asyncio.sleep(0.01)
    assert session.is_compacting  # busy: Esc in the app reaches it
    await session.abort()
    with pytest.raises(CompactionError, match="cancelled"):
        await asyncio.wait_for(task, 5)
    assert module_of(path).seen["failed"]["aborted"] is True
    assert not session.is_compacting and file_entries(session, "compaction") == []


def test_model_call_options_take_pis_spellings():
    from pi_runtime.extensions.model_calls import _options

    opts = _options({"maxTokens": 99, "reasoningEffort": "high", "cacheRetention": "none", "sessionId": "s",
                     "serviceTier": "flex", "extra": {"sampling_params": {"top_k": 5}}})
    assert (opts.max_tokens, opts.reasoning, opts.session_id) == (99, "high", "s")
    assert opts.extra == {"serviceTier": "flex", "sampling_params": {"top_k": 5}}


async def test_nothing_to_compact_does_not_ask_session_before_compact(make_session, write_ext):
    path = write_ext("asked", """
        seen = {"asked": 0}
        def extension(pi):
            def before(event, ctx):
                seen["asked"] += 1
            pi.on("session_before_compact", before)
            pi.on("session_compact_failed", lambda e, ctx: seen.update(failed=e.fields()))
    """)
    session = make_session(extensions=[path], persist=True)
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await session.compact()
    seen = module_of(path).seen
    assert seen["asked"] == 0  # Pi does not call it without a preparation
    assert "Nothing to compact" in seen["failed"]["error_message"]
