"""What an extension can do: tools, commands, shortcuts, providers, messages, entries, model, exec, UI."""

from __future__ import annotations

import asyncio

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.extensions import ExtensionAPI, HeadlessUI
from pi_runtime.testing.waiting import eventually

from .conftest import AnsweringUI, errors, module_of


async def test_register_tool_with_pydantic_params(make_session, write_ext):
    path = write_ext("greet", """
        from pydantic import BaseModel, Field

        class Params(BaseModel):
            name: str = Field(description="Who to greet")

        def extension(pi):
            async def execute(call_id, params, signal, on_update, ctx):
                return {"content": f"Hello, {params.name}! (cwd {ctx.cwd})", "details": {"greeted": params.name}}
            async def failing(call_id, params, signal, on_update):
                raise ValueError("cannot greet " + params.name)
            pi.register_tool(name="greet", label="Greet", description="Greet someone\\nby name", params=Params,
                             execute=execute, prompt_snippet="Say hello to a person",
                             prompt_guidelines=["Use greet when the user asks for a greeting."],
                             render={"icon": "wave"})
            pi.register_tool(name="rude", description="never works", params=Params, execute=failing,
                             default_active=False)
    """)
    session = make_session(extensions=[path])
    runner = session.extension_runner
    assert "greet" in runner.active_tool_names() and "rude" not in runner.active_tool_names()
    assert "- greet: Say hello to a person" in session.system_prompt
    assert "Use greet when the user asks for a greeting." in session.system_prompt
    session.provider.push(scripted_tool_call("greet", {"name": "Ada"}), scripted_text("done"))
    await session.prompt("greet Ada")
    context = session.provider.requests[0][0]
    tool = next(t for t in context.tools if t.name == "greet")
    assert tool.parameters["properties"]["name"]["description"] == "Who to greet"
    result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
    assert result.content[0].text.startswith("Hello, Ada!") and result.details == {"greeted": "Ada"}
    all_tools = {t["name"]: t for t in ExtensionAPI(runner, runner.extensions[0]).get_all_tools()}
    assert all_tools["greet"]["sourceInfo"]["path"] == path and all_tools["read"]["sourceInfo"]["source"] == "builtin"
    assert runner.all_tools["greet"].render == {"icon": "wave"}

    runner.set_active_tools(["read", "rude", "unknown"])
    assert runner.active_tool_names() == ["read", "rude"]
    # As in Pi, a tool without a prompt_snippet is offered to the model but not listed in <tools>.
    assert "- read: " in session.system_prompt and "- rude" not in session.system_prompt
    session.provider.push(scripted_tool_call("rude", {"name": "Bob"}), scripted_text("ok"))
    await session.prompt("be rude")
    failed = [m for m in session.messages if getattr(m, "role", None) == "toolResult"][-1]
    assert failed.is_error and failed.content[0].text == "cannot greet Bob"


async def test_tool_registered_at_runtime_is_activated(make_session, write_ext):
    path = write_ext("late", """
        from pi_runtime.agent.tool import FunctionTool, ToolParams, ToolResult

        async def run(call_id, params, signal, on_update):
            return ToolResult.text("late result")

        def extension(pi):
            def on_start(event, ctx):
                pi.register_tool(FunctionTool("late_tool", "Registered in session_start", ToolParams, run))
            pi.on("session_start", on_start)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_tool_call("late_tool", {}), scripted_text("ok"))
    await session.prompt("use it")
    assert "late_tool" in [t.name for t in session.provider.requests[0][0].tools]
    result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
    assert result.content[0].text == "late result"


async def test_register_provider_with_stream_function(make_session, write_ext):
    path = write_ext("prov", """
        from pi_runtime.extensions import text_stream

        async def reply(model, context, options):
            return f"echo from {model.id}: " + context.messages[-1].content[0].text  # Pi's blocks

        def extension(pi):
            pi.register_provider("echo-corp", models=[{"id": "echo-1", "contextWindow": 8000}], stream=text_stream(reply))
    """)
    session = make_session(extensions=[path])
    model = session.model_registry.find("echo-corp", "echo-1")
    assert model is not None and model.context_window == 8000 and model.api == "ext:echo-corp"
    assert session.model_registry.has_credentials(model)
    await session.set_model(model)
    await session.prompt("hi there")
    assert session.get_last_assistant_text() == "echo from echo-1: hi there"


async def test_register_provider_on_existing_api(make_session, write_ext, monkeypatch):
    from pi_runtime.testing.loopback import LoopbackServer, Reply

    monkeypatch.setenv("MY_PROXY_KEY", "sk-proxy")
    with LoopbackServer() as server:
        server.push(Reply.sse([
            {"id": "c1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "via proxy"}}]},
            {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            "[DONE]",
        ]))
        path = write_ext("proxy", f"""
            def extension(pi):
                pi.register_provider("my-proxy", api="openai-completions", base_url="{server.url}/v1",
                                     api_key="$MY_PROXY_KEY", models=[{{"id": "proxied"}}])
        """)
        session = make_session(extensions=[path])
        model = session.model_registry.find("my-proxy", "proxied")
        await session.set_model(model)
        await session.prompt("hello")
        assert session.get_last_assistant_text() == "via proxy"
        assert server.requests[0].headers["authorization"] == "Bearer sk-proxy"


async def test_send_message_modes(make_session, write_ext):
    path = write_ext("send", """
        def extension(pi):
            state = {"turns": 0}
            def on_turn(event, ctx):
                state["turns"] += 1
                if state["turns"] == 1:
                    pi.send_message({"customType": "hint", "content": "steered hint"}, deliver_as="steer", trigger_turn=True)
                    pi.send_message({"customType": "later", "content": "after the tool result"}, trigger_turn=False)
            pi.on("turn_start", on_turn)
            async def queue(args, ctx):
                pi.send_message({"customType": "nt", "content": "next turn note"}, deliver_as="nextTurn")
            async def kick(args, ctx):
                pi.send_message({"customType": "kick", "content": "please continue"}, trigger_turn=True)
            pi.register_command("queue", queue)
            pi.register_command("kick", kick)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_tool_call("read", {"path": "nope.txt"}), scripted_text("a"), scripted_text("b"),
                          scripted_text("c"))
    await session.prompt("start")
    second_request = session.provider.requests[1][0].messages
    assert "steered hint" in str(second_request[-1].content)  # delivered before the next model call
    # trigger_turn=False mid-run: stored right after the turn's tool result, so the model sees it
    # in the same run (as Pi), with message events, never after the final answer.
    roles = [m.role for m in second_request]
    later = next(i for i, m in enumerate(second_request) if "after the tool result" in str(m.content))
    assert roles[later - 1] == "toolResult"
    assert session.messages[-1].role == "assistant"
    starts = [e.message.custom_type for e in session.events
              if e.type == "message_start" and getattr(e.message, "role", None) == "custom"]
    assert "later" in starts
    entries = [e for e in session.session_manager.get_entries() if e.type == "custom_message"]
    assert [e.custom_type for e in entries] == ["later", "hint"]

    await session.prompt("/queue")
    assert len(session.provider.requests) == 2  # nextTurn starts nothing
    await session.prompt("go on")
    sent = session.provider.requests[2][0].messages
    assert "go on" in str(sent[-2].content) and "next turn note" in str(sent[-1].content)

    await session.prompt("/kick")
    await session.wait_for_idle()
    assert "please continue" in str(session.provider.requests[3][0].messages[-1].content)


async def test_send_user_message_goes_through_input(make_session, write_ext):
    path = write_ext("user", """
        sources = []
        def extension(pi):
            pi.on("input", lambda e, ctx: sources.append((e.source, e.text)))
            async def ask(args, ctx):
                await pi.send_user_message("question from extension: " + args)
            pi.register_command("ask", ask)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("answer"))
    await session.prompt("/ask what time")
    await session.wait_for_idle()
    assert session.get_last_assistant_text() == "answer"
    assert module_of(path).sources == [("extension", "question from extension: what time")]


async def test_send_user_message_while_streaming_needs_delivery(make_session, write_ext):
    path = write_ext("busy", """
        def extension(pi):
            def on_turn(event, ctx):
                if event.turn_index == 0:
                    pi.send_user_message("no delivery mode")
                    pi.send_user_message("as follow-up", deliver_as="followUp")
            pi.on("turn_start", on_turn)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("first", delay=0.01), scripted_text("second"))
    await session.prompt("go")
    await session.wait_for_idle()
    assert session.get_last_assistant_text() == "second"
    assert "as follow-up" in str(session.provider.requests[1][0].messages[-1].content)
    [error] = errors(session)
    assert error["event"] == "send_user_message" and "needs deliver_as" in error["error"]


async def test_entries_name_label_thinking_and_model(make_session, write_ext):
    path = write_ext("misc", """
        out = {}
        def extension(pi):
            async def run(args, ctx):
                out["entry"] = pi.append_entry("my-state", {"count": 42})
                await pi.set_session_name("Refactor auth")
                pi.set_label(out["entry"], "checkpoint")
                out["name"] = pi.get_session_name()
                out["level"] = await pi.set_thinking_level("high")
                other = ctx.model_registry.find(ctx.model.provider, "second-model")
                out["model_ok"] = await pi.set_model(other)
                out["model"] = ctx.model.id
            pi.register_command("run", run)
    """)
    session = make_session(extensions=[path])
    session.model_registry.add_model(session.provider.model("second-model"))
    await session.prompt("/run")
    await asyncio.sleep(0)
    out = module_of(path).out
    entry = session.session_manager.get_entry(out["entry"])
    assert entry.type == "custom" and entry.custom_type == "my-state" and entry.data == {"count": 42}
    assert session.session_manager.get_label(out["entry"]) == "checkpoint"
    assert out["name"] == "Refactor auth" and session.session_name == "Refactor auth"
    assert out["level"] == "high" and session.thinking_level == "high"
    assert out["model_ok"] is True and out["model"] == "second-model"
    appended = [e for e in session.events if e.type == "entry_appended"]
    assert appended and appended[0].to_wire()["entry"]["customType"] == "my-state"
    assert any(e.type == "session_info_changed" for e in session.events)


async def test_exec_timeout_and_abort(make_session, write_ext, workdir):
    path = write_ext("execx", """
        out = {}
        def extension(pi):
            async def run(args, ctx):
                out["ok"] = await pi.exec(sys.executable, ["-c", "import os; print(os.getcwd())"])
                out["fail"] = await pi.exec(sys.executable, ["-c", "import sys; sys.stderr.write('bad'); sys.exit(3)"])
                out["slow"] = await pi.exec(sys.executable, ["-c", "import time; time.sleep(30)"], timeout=0.3)
                out["missing"] = await pi.exec("definitely-not-a-program-xyz")
            pi.register_command("run", run)
        import sys
    """)
    session = make_session(extensions=[path])
    await session.prompt("/run")
    out = module_of(path).out
    assert out["ok"].stdout.strip() == str(workdir) and out["ok"].code == 0
    assert out["fail"].code == 3 and out["fail"].stderr == "bad"
    assert out["slow"].killed and out["slow"].code == 143
    assert out["missing"].code == 127


async def test_shortcuts_flags_bus_and_headless_ui(make_session, write_ext):
    path = write_ext("ui", """
        got = {}
        def extension(pi):
            pi.register_flag("plan", description="Start in plan mode", default=False)
            pi.events.on("ping", lambda data: got.setdefault("bus", data))
            async def toggle(ctx):
                got["confirm"] = await ctx.ui.confirm("Sure?", "really")
                got["select"] = await ctx.ui.select("Pick", ["a", "b"])
                got["input"] = await ctx.ui.input("Name")
                got["has_ui"] = ctx.has_ui
                got["flag"] = pi.get_flag("plan")
                ctx.ui.notify("toggled", "warning")
                ctx.ui.set_status("ui-ext", "on")
                pi.events.emit("ping", {"n": 1})
            pi.register_shortcut("ctrl+shift+p", toggle, description="Toggle")
    """)
    session = make_session(extensions=[path])
    runner = session.extension_runner
    headless = runner.ui.inner
    assert isinstance(headless, HeadlessUI)
    runner.set_flag_values({"plan": True})
    assert await runner.run_shortcut("ctrl+shift+p") is True
    assert await runner.run_shortcut("ctrl+x") is False
    got = module_of(path).got
    assert got == {"confirm": False, "select": None, "input": None, "has_ui": False, "flag": True, "bus": {"n": 1}}
    assert headless.notifications == [("warning", "toggled")] and headless.statuses == {"ui-ext": "on"}
    assert runner.shortcuts()["ctrl+shift+p"].description == "Toggle"

    answering = AnsweringUI(confirm=True, select="b")
    runner.set_ui(answering, mode="tui")
    await runner.run_shortcut("ctrl+shift+p")
    assert got["confirm"] is True and got["select"] == "b" and got["has_ui"] is True
    assert answering.statuses == {"ui-ext": "on"}


async def test_dialog_timeout_and_broken_ui_resolve_to_defaults(make_session, write_ext):
    path = write_ext("dlg", """
        got = []
        def extension(pi):
            async def ask(args, ctx):
                got.append(await ctx.ui.confirm("Wait", "forever?", timeout=0.05))
                got.append(await ctx.ui.select("Pick", ["x"]))
            pi.register_command("ask", ask)
    """)

    class SlowBrokenUI(AnsweringUI):
        async def confirm(self, title, message="", *, timeout=None):
            await asyncio.sleep(10)
            return True

        async def select(self, title, options, *, timeout=None):
            raise ConnectionError("front end went away")

    session = make_session(extensions=[path])
    session.extension_runner.set_ui(SlowBrokenUI(), mode="rpc")
    await session.prompt("/ask")
    await eventually(lambda: len(module_of(path).got) == 2)
    assert module_of(path).got == [False, None]
    assert [e["event"] for e in errors(session)] == ["ui"]


async def test_command_name_clash_and_command_errors(make_session, write_ext):
    one = write_ext("one", "def extension(pi):\n    pi.register_command('review', lambda a, c: None)\n")
    two = write_ext("two", """
        def extension(pi):
            @pi.register_command("review", description="second")
            def review(args, ctx):
                raise RuntimeError("review failed")
    """)
    session = make_session(extensions=[one, two])
    names = [c["name"] for c in session.extension_runner.get_commands()]
    assert names == ["review:1", "review:2"]
    assert await session.prompt("/review:2 now") == "handled"
    [error] = errors(session)
    assert error["event"] == "command:review:2" and "review failed" in error["error"]


async def test_session_methods_refuse_during_load(make_session, write_ext):
    path = write_ext("early", """
        problems = []
        def extension(pi):
            try:
                pi.append_entry("x", {})
            except RuntimeError as exc:
                problems.append(str(exc))
    """)
    make_session(extensions=[path])
    assert "not available while the extension loads" in module_of(path).problems[0]
