"""Each event, driven through a real session with extensions loaded from files."""

from __future__ import annotations

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.kernel.errors import CompactionError

from .conftest import errors, module_of

RECORDER = """
    seen = []

    def extension(pi):
        for name in {names!r}:
            pi.on(name, lambda event, ctx, name=name: seen.append((name, event)))
"""


def recorder(write_ext, *names):
    return write_ext("recorder", RECORDER.format(names=list(names)))


async def test_lifecycle_events_in_order(make_session, write_ext):
    path = recorder(write_ext, "session_start", "agent_start", "turn_start", "message_start", "message_end",
                    "tool_execution_start", "tool_execution_end", "turn_end", "agent_end", "agent_settled")
    session = make_session(extensions=[path], tools="read,ls")
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("done"))
    await session.prompt("list")
    mod = module_of(path)
    names = [n for n, _ in mod.seen]
    assert names[0] == "session_start" and mod.seen[0][1].reason == "startup"
    assert names[1:3] == ["agent_start", "turn_start"]
    assert names.count("turn_start") == 2 and names.count("turn_end") == 2
    assert names.index("tool_execution_start") < names.index("tool_execution_end") < names.index("agent_end")
    assert names[-1] == "agent_settled"
    turn_indexes = [e.turn_index for n, e in mod.seen if n == "turn_end"]
    assert turn_indexes == [0, 1]
    end = next(e for n, e in mod.seen if n == "tool_execution_end")
    assert end.tool_name == "ls" and end["toolName"] == "ls" and end.is_error is False


async def test_input_transform_and_handled(make_session, write_ext):
    path = write_ext("inp", """
        def extension(pi):
            def on_input(event, ctx):
                if event.text == "ping":
                    ctx.ui.notify("pong")
                    return {"action": "handled"}
                if event.text.startswith("?q "):
                    return {"action": "transform", "text": "Briefly: " + event.text[3:]}
            pi.on("input", on_input)
            pi.on("input", lambda event, ctx: {"action": "transform", "text": event.text + "!"})
    """)
    session = make_session(extensions=[path])
    assert await session.prompt("ping") == "handled"
    assert session.provider.requests == []
    session.provider.push(scripted_text("ok"))
    await session.prompt("?q why")
    sent = session.provider.requests[0][0].messages[-1]
    assert sent.content[0].text == "Briefly: why!"  # transforms chain across handlers


async def test_command_runs_immediately_while_streaming(make_session, write_ext):
    path = write_ext("cmd", """
        calls = []
        def extension(pi):
            async def handler(args, ctx):
                calls.append((args, ctx.is_idle()))
            pi.register_command("note", handler, description="Take a note",
                                get_argument_completions=lambda p: [x for x in ["alpha", "beta"] if x.startswith(p)] or None)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("slow answer " * 20, delay=0.01))
    await session.prompt("go", wait=False)
    assert session.is_streaming
    assert await session.prompt("/note remember this") == "handled"
    assert session.is_streaming  # handled without waiting for the run
    mod = module_of(path)
    assert mod.calls == [("remember this", False)]
    await session.wait_for_idle()
    runner = session.extension_runner
    assert [c["name"] for c in runner.get_commands()] == ["note"]
    assert runner.get_commands()[0]["description"] == "Take a note"
    assert await runner.complete_command("note", "b") == ["beta"]
    assert await runner.complete_command("note", "z") is None
    assert len(session.provider.requests) == 1  # the command never reached the model


async def test_before_agent_start_sections_tools_message_and_prompt(make_session, write_ext):
    path = write_ext("bas", """
        seen = []
        def extension(pi):
            def first(event, ctx):
                assert event.message_type == "user" and event.prompt == "hello"
                event.sections.set("house_rules", "Always answer in haiku")
                event.selected_tools.remove("bash")
                return {"message": {"customType": "ctx-note", "content": "extra context", "display": False}}
            def second(event, ctx):
                seen.append((event.system_prompt, ctx.get_system_prompt()))
            pi.on("before_agent_start", first)
            pi.on("before_agent_start", second)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("ok"))
    await session.prompt("hello")
    context, _ = session.provider.requests[0]
    assert "<house_rules>\nAlways answer in haiku\n</house_rules>" in context.system_prompt
    assert "bash" not in [t.name for t in context.tools]
    assert session.extension_runner.active_tool_names() == ["read", "edit", "write"]
    # The custom message reached the model (as user text) and the session file.
    assert any("extra context" in str(m.content) for m in context.messages)
    [(chained, from_ctx)] = module_of(path).seen
    assert "Always answer in haiku" in chained and chained == from_ctx
    kinds = [e.type for e in session.session_manager.get_entries()]
    assert "custom_message" in kinds


async def test_before_agent_start_forced_prompt(make_session, write_ext):
    path = write_ext("force", """
        def extension(pi):
            pi.on("before_agent_start", lambda e, ctx: {"systemPrompt": "You are a pirate."})
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("arr"))
    await session.prompt("hi")
    assert session.provider.requests[0][0].system_prompt == "You are a pirate."


async def test_context_transform_and_failure_keeps_messages(make_session, write_ext):
    path = write_ext("ctx", """
        def extension(pi):
            def broken(event, ctx):
                raise ValueError("context boom")
            def prune(event, ctx):
                return {"messages": [m for m in event.messages if "secret" not in str(getattr(m, "content", ""))]}
            pi.on("context", broken)
            pi.on("context", prune)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("one"), scripted_text("two"))
    await session.prompt("the secret is 42")
    await session.prompt("what was it?")
    sent = session.provider.requests[1][0].messages
    assert not any("secret" in str(getattr(m, "content", "")) for m in sent)
    assert any("what was it?" in str(m.content) for m in sent)
    # The stored conversation is untouched.
    assert any("secret" in str(getattr(m, "content", "")) for m in session.messages)
    assert [e["event"] for e in errors(session)] == ["context", "context"]
    assert "ValueError: context boom" in errors(session)[0]["error"]


async def test_tool_call_block_mutate_and_fail_closed(make_session, write_ext, workdir):
    (workdir / "a.txt").write_text("A")
    path = write_ext("gate", """
        def extension(pi):
            def gate(event, ctx):
                if event.tool_name == "bash":
                    return {"block": True, "reason": "no shell today"}
                if event.tool_name == "read" and event.input["path"] == "alias.txt":
                    event.input["path"] = "a.txt"
                if event.tool_name == "ls":
                    raise RuntimeError("cannot decide")
            pi.on("tool_call", gate)
    """)
    session = make_session(extensions=[path], tools="read,bash,ls")
    session.provider.push(
        scripted_tool_call("bash", {"command": "echo hi"}),
        scripted_tool_call("read", {"path": "alias.txt"}),
        scripted_tool_call("ls", {"path": "."}),
        scripted_text("done"),
    )
    await session.prompt("go")
    results = [m for m in session.messages if getattr(m, "role", None) == "toolResult"]
    assert results[0].is_error and results[0].content[0].text == "no shell today"
    assert not results[1].is_error and results[1].content[0].text.startswith("A")
    assert results[2].is_error and "cannot decide" in results[2].content[0].text  # fail closed
    assert [e["event"] for e in errors(session)] == ["tool_call"]


async def test_tool_result_transform_and_exception_ignored(make_session, write_ext, workdir):
    (workdir / "a.txt").write_text("plain")
    path = write_ext("res", """
        def extension(pi):
            def broken(event, ctx):
                raise KeyError("oops")
            def upper(event, ctx):
                if event.tool_name == "read":
                    return {"content": [{"type": "text", "text": event.content[0].text.upper()}], "details": {"by": "ext"}}
            pi.on("tool_result", broken)
            pi.on("tool_result", upper)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_tool_call("read", {"path": "a.txt"}), scripted_text("ok"))
    await session.prompt("read it")
    result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
    assert result.content[0].text.startswith("PLAIN") and result.details == {"by": "ext"}
    assert not result.is_error
    assert [e["event"] for e in errors(session)] == ["tool_result"]


async def test_model_and_thinking_select(make_session, write_ext):
    path = recorder(write_ext, "model_select", "thinking_level_select")
    session = make_session(extensions=[path])
    other = session.provider.model("other-model", reasoning=True)
    session.model_registry.add_model(other)
    before = session.model
    await session.set_model(other)
    await session.set_thinking_level("high")
    mod = module_of(path)
    kinds = [n for n, _ in mod.seen]
    assert kinds == ["model_select", "thinking_level_select"]
    select = mod.seen[0][1]
    assert select.model.id == "other-model" and select.previous_model.id == before.id
    assert mod.seen[1][1].level == "high"
    assert select.source == "set"


async def test_model_select_says_cycle_after_a_cycle(make_session, write_ext):
    # Pi's model_select.source is "cycle" for Ctrl+P / RPC cycle_model, "set" for a named model.
    path = recorder(write_ext, "model_select")
    session = make_session(extensions=[path])
    session.model_registry.add_model(session.provider.model("other-model"))
    await session.cycle_model()
    selects = [event for _, event in module_of(path).seen]
    assert [(e.model.id, e.source) for e in selects] == [("other-model", "cycle")]


async def test_session_gates_cancel_and_notify(make_session, write_ext):
    path = write_ext("gates", """
        log = []
        allow = {"tree": False, "fork": False, "switch": False, "compact": False}
        def extension(pi):
            for kind in ("tree", "fork", "switch", "compact"):
                def gate(event, ctx, kind=kind):
                    log.append(("before_" + kind, event.fields()))
                    if not allow[kind]:
                        return {"cancel": True}
                pi.on("session_before_" + kind, gate)
            for name in ("session_tree", "session_shutdown", "session_start"):
                pi.on(name, lambda e, ctx, name=name: log.append((name, e.fields())))
    """)
    session = make_session(extensions=[path], persist=True)
    session.provider.push(scripted_text("one"), scripted_text("two"))
    await session.prompt("first")
    await session.prompt("second")
    mod = module_of(path)
    user_ids = [e["entryId"] for e in session.get_fork_messages()]
    leaf = session.session_manager.leaf_id

    assert (await session.navigate_tree(user_ids[1])).cancelled is True
    assert session.session_manager.leaf_id == leaf
    assert (await session.fork(user_ids[1])).cancelled is True
    assert (await session.new_session()).cancelled is True
    # Two short turns: nothing to compact, so (as in Pi) session_before_compact is not asked at all;
    # its cancel is covered in test_compaction_hooks.py.
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await session.compact()
    assert "before_compact" not in [n for n, _ in module_of(path).log]

    mod.allow.update(tree=True, fork=True)
    result = await session.navigate_tree(user_ids[1])
    assert result.cancelled is False and result.editor_text == "second"
    tree = [f for n, f in mod.log if n == "session_tree"][-1]
    assert tree["old_leaf_id"] == leaf and tree["new_leaf_id"] == session.session_manager.leaf_id
    old_file = session.session_file
    await session.fork(user_ids[0])
    names = [n for n, _ in mod.log]
    assert names[-3:] == ["before_fork", "session_shutdown", "session_start"]
    start = mod.log[-1][1]
    assert start == {"reason": "fork", "previous_session_file": old_file}


async def test_shutdown_on_dispose(make_session, write_ext):
    path = recorder(write_ext, "session_start", "session_shutdown")
    session = make_session(extensions=[path])
    await session.extension_runner.start()
    await session.dispose()
    mod = module_of(path)
    assert [(n, e.reason) for n, e in mod.seen] == [("session_start", "startup"), ("session_shutdown", "quit")]


async def test_handler_exception_is_reported_and_run_continues(make_session, write_ext):
    path = write_ext("boom", """
        def extension(pi):
            def boom(event, ctx):
                raise RuntimeError("turn handler broke")
            pi.on("turn_start", boom)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("still fine"))
    await session.prompt("hi")
    assert session.get_last_assistant_text() == "still fine"
    [error] = errors(session)
    assert error["extensionPath"] == path and error["event"] == "turn_start"
    assert "RuntimeError: turn handler broke" in error["error"] and "boom.py" in error["error"]


async def test_unsubscribe_and_unknown_event(make_session, write_ext):
    path = write_ext("unsub", """
        count = []
        problems = []
        def extension(pi):
            off = pi.on("turn_start", lambda e, ctx: (count.append(1), off()))
            try:
                pi.on("no_such_event", lambda e, ctx: None)
            except ValueError as exc:
                problems.append(str(exc))
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("a"), scripted_text("b"))
    await session.prompt("1")
    await session.prompt("2")
    mod = module_of(path)
    assert mod.count == [1]
    assert "unknown extension event 'no_such_event'" in mod.problems[0]


async def test_input_sees_streaming_behavior(make_session, write_ext):
    path = write_ext("behav", """
        seen = []
        def extension(pi):
            pi.on("input", lambda e, ctx: seen.append((e.text, e.streaming_behavior, e.source)))
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("long " * 30, delay=0.005), scripted_text("second"))
    await session.prompt("first", wait=False)
    await session.prompt("later", streaming_behavior="followUp")
    await session.wait_for_idle()
    assert module_of(path).seen == [("first", None, "interactive"), ("later", "followUp", "interactive")]
    assert session.get_last_assistant_text() == "second"
