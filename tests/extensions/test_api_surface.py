"""Issue 16's runtime side: typed events, every UI call in every mode, un-awaited calls, dialogs with
abort, get_commands, reload, and the context calls (new_session setup, execute_tool, user_bash,
send_user_message with templates)."""

from __future__ import annotations

import asyncio
import os

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.extensions import EVENTS, ExtensionEvent, HeadlessUI
from pi_runtime.extensions.events import ToolCallEvent, TurnStartEvent
from pi_runtime.testing.waiting import eventually

from .conftest import AnsweringUI, errors, module_of


def tool_results(session):
    return [m for m in session.messages if getattr(m, "role", None) == "toolResult"]


# ---------------------------------------------------------------------- typed events

def test_every_event_name_has_its_own_class_with_pi_fields():
    assert len(EVENTS) == len(set(EVENTS.values()))
    for name, cls in EVENTS.items():
        assert cls.type == name and issubclass(cls, ExtensionEvent)
    event = ToolCallEvent(tool_name="bash", tool_call_id="c1", input={"command": "ls"})
    assert event["toolName"] == "bash" and event.get("toolCallId") == "c1" and "input" in event
    assert event.fields() == {"tool_name": "bash", "tool_call_id": "c1", "input": {"command": "ls"},
                              "parent_tool_call_id": None}
    with pytest.raises(KeyError):
        event["nope"]


async def test_handlers_receive_typed_events_they_can_match(make_session, write_ext):
    path = write_ext("typed", """
        from pi_runtime.extensions.events import ToolCallEvent, TurnStartEvent, MessageEndEvent
        seen = []
        def extension(pi):
            def on_any(event, ctx):
                match event:
                    case ToolCallEvent(tool_name=name, input=args):
                        seen.append(("call", name, args["path"]))
                    case TurnStartEvent(turn_index=index):
                        seen.append(("turn", index))
                    case MessageEndEvent():
                        seen.append(("message_end", type(event).__name__))
            for name in ("tool_call", "turn_start", "message_end"):
                pi.on(name, on_any)
    """)
    session = make_session(extensions=[path], tools="ls")
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("ok"))
    await session.prompt("go")
    seen = module_of(path).seen
    assert ("call", "ls", ".") in seen and ("turn", 0) in seen and ("turn", 1) in seen
    assert isinstance(TurnStartEvent(), ExtensionEvent)


# ---------------------------------------------------------------------- the UI in every mode

EVERY_UI_CALL = """
    got = {}
    def extension(pi):
        async def run(args, ctx):
            ui = ctx.ui
            ui.set_title("pi - demo")
            ui.set_editor_text("draft")
            got["editor"] = ui.get_editor_text()
            ui.paste_to_editor("pasted")
            ui.set_working_message("thinking hard")
            ui.set_working_visible(False)
            ui.set_working_indicator(["."], 100)
            ui.set_hidden_thinking_label("hidden")
            ui.set_footer(None)
            ui.set_header(None)
            ui.set_editor_component(None)
            got["editor_component"] = ui.get_editor_component()
            ui.set_tools_expanded(True)
            got["expanded"] = ui.get_tools_expanded()
            ui.add_autocomplete_provider(lambda current: current)
            off = ui.on_terminal_input(lambda data: None)
            off()
            got["themes"] = ui.get_all_themes()
            got["theme"] = ui.get_theme("dark")
            got["set_theme"] = ui.set_theme("light")
            got["styled"] = ui.theme.fg("accent", ui.theme.bold("x"))
            ui.set_widget("w", ["line"], placement="belowEditor")
            ui.set_status("s", "ready")
            ui.notify("done")
            got["custom"] = await ui.custom(lambda tui, theme, keys, done: None)
            got["select"] = await ui.select("Pick", ["a"])
        pi.register_command("every", run)
"""


async def test_every_ui_call_exists_in_headless_mode(make_session, write_ext):
    path = write_ext("every_ui", EVERY_UI_CALL)
    session = make_session(extensions=[path])
    assert await session.prompt("/every") == "handled"
    got = module_of(path).got
    assert errors(session) == []
    assert got["editor"] == "pasted" or got["editor"] == "draft"
    assert got["editor_component"] is None and got["expanded"] is False and got["themes"] == []
    assert got["theme"] is None and got["set_theme"]["success"] is False and got["styled"] == "x"
    assert got["custom"] is None and got["select"] is None
    headless = session.extension_runner.ui.inner
    assert isinstance(headless, HeadlessUI) and headless.title == "pi - demo" and headless.statuses == {"s": "ready"}


async def test_every_ui_call_exists_with_a_front_end_that_has_few(make_session, write_ext):
    class Minimal:  # a front end with dialogs only (what an app may start with)
        has_ui = True

        async def select(self, title, options, *, timeout=None):
            return options[0]

    path = write_ext("every_ui2", EVERY_UI_CALL)
    session = make_session(extensions=[path])
    session.extension_runner.set_ui(Minimal(), "tui")
    await session.prompt("/every")
    assert errors(session) == []
    assert module_of(path).got["select"] == "a" and module_of(path).got["editor"] == ""


async def test_status_line_is_the_texts_sorted_by_key():
    from pi_runtime.extensions.ui import status_line

    assert status_line({"zeta": "last", "alpha": "first\nline"}) == "first line last"
    assert status_line({}) == ""


# ---------------------------------------------------------------------- calls that need await

async def test_async_calls_run_without_await_and_cannot_be_misread(make_session, write_ext):
    path = write_ext("noawait", """
        got = {}
        def extension(pi):
            async def run(args, ctx):
                pi.set_thinking_level("high")            # Pi's code, ported as written
                pi.set_session_name("named without await")
                pi.exec("true")
            def gate(event, ctx):
                if ctx.ui.confirm("Allow?", event.tool_name):   # forgot await: must not read as yes
                    return None
            pi.register_command("run", run)
            pi.on("tool_call", gate)
    """)
    session = make_session(extensions=[path], tools="ls")
    session.model_registry.add_model(session.provider.model("thinker", reasoning=True))
    await session.set_model(session.model_registry.find(session.provider.name, "thinker"))
    await session.prompt("/run")
    await eventually(lambda: session.thinking_level == "high" and session.session_name == "named without await")
    assert session.thinking_level == "high" and session.session_name == "named without await"
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("ok"))
    await session.prompt("go")
    [result] = tool_results(session)
    assert result.is_error  # the handler failed: fail closed
    reported = [e["error"] for e in errors(session) if e["event"] == "tool_call"]
    assert reported and "write `await ctx.ui.confirm(...)`" in reported[0]


async def test_a_dialog_answer_dropped_unread_is_reported(make_session, write_ext):
    path = write_ext("dropped", """
        def extension(pi):
            async def run(args, ctx):
                ctx.ui.confirm("Sure?")
            pi.register_command("run", run)
    """)
    session = make_session(extensions=[path])
    await session.prompt("/run")
    assert await eventually(lambda: any("was not awaited" in e["error"] for e in errors(session)))


async def test_dialog_closes_on_abort_signal_and_timeout_is_seconds(make_session, write_ext):
    path = write_ext("signal", """
        import time
        got = []
        def extension(pi):
            async def gate(event, ctx):
                got.append(await ctx.ui.confirm("Allow?", "x", signal=ctx.signal))
                return {"block": True, "reason": "denied"}
            async def timed(args, ctx):
                started = time.monotonic()
                got.append((await ctx.ui.input("Name?", timeout=0.2), round(time.monotonic() - started, 1)))
            pi.on("tool_call", gate)
            pi.register_command("timed", timed)
    """)

    class NeverAnswers(AnsweringUI):
        async def confirm(self, title, message="", *, timeout=None):
            await asyncio.sleep(60)

        async def input(self, title, placeholder=None, *, timeout=None):
            await asyncio.sleep(60)

    session = make_session(extensions=[path], tools="ls")
    session.extension_runner.set_ui(NeverAnswers(), "rpc")
    await session.prompt("/timed")
    assert module_of(path).got == [(None, 0.2)]
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("unused"))
    prompt = asyncio.ensure_future(session.prompt("go"))
    for _ in range(300):
        if session.extension_runner._ui_host.open_dialogs:
            break
        await asyncio.sleep(0.01)
    await asyncio.wait_for(session.abort(), 3)
    await prompt
    assert session.extension_runner._ui_host.open_dialogs == 0


# ---------------------------------------------------------------------- commands, templates, skills

async def test_get_commands_lists_extension_commands_templates_then_skills(make_session, write_ext, agent_dir):
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text("---\ndescription: Review code\n---\nReview $1")
    skill = agent_dir / "skills" / "lint"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: Lint the code\n---\nRun the linter.")
    path = write_ext("cmds", """
        got = []
        def extension(pi):
            async def list_them(args, ctx):
                got.extend(pi.get_commands())
            pi.register_command("commands", list_them, description="List commands")
    """)
    session = make_session(extensions=[path])
    await session.prompt("/commands")
    got = module_of(path).got
    assert [(c["name"], c["source"]) for c in got] == [("commands", "extension"), ("review", "prompt"),
                                                      ("skill:lint", "skill")]
    assert got[1]["description"] == "Review code" and got[2]["sourceInfo"]["path"].endswith("SKILL.md")


async def test_send_user_message_expands_templates_only_when_asked(make_session, write_ext, agent_dir):
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "greet.md").write_text("Say hello to $1")
    path = write_ext("sum", """
        def extension(pi):
            async def plain(args, ctx):
                await pi.send_user_message("/greet Ada")
            async def expanded(args, ctx):
                await pi.send_user_message("/greet Bob", expand_prompt_templates=True)
            async def command(args, ctx):
                await pi.send_user_message("/plain", expand_prompt_templates=True)
            pi.register_command("plain", plain)
            pi.register_command("expanded", expanded)
            pi.register_command("command", command)
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("a"), scripted_text("b"), scripted_text("c"))
    await session.prompt("/plain")
    await session.wait_for_idle()
    await session.prompt("/expanded")
    await session.wait_for_idle()
    await session.prompt("/command")  # runs /plain as a command, which sends the plain text
    await session.wait_for_idle()
    sent = [r[0].messages[-1].content[0].text for r in session.provider.requests]
    assert sent == ["/greet Ada", "Say hello to Bob", "/greet Ada"]


# ---------------------------------------------------------------------- reload

async def test_reload_reimports_extensions(make_session, write_ext):
    path = write_ext("versioned", """
        VERSION = 1
        events = []
        def extension(pi):
            pi.on("session_start", lambda e, ctx: events.append(("start", VERSION, e.reason)))
            pi.on("session_shutdown", lambda e, ctx: events.append(("shutdown", VERSION, e.reason)))
            pi.register_command("version", lambda args, ctx: ctx.ui.notify(f"v{VERSION}"))
            pi.register_tool(name="old_tool", description="v1 only", params=None, execute=lambda *a: "old")
            async def reload(args, ctx):
                await ctx.reload()
            pi.register_command("reload-runtime", reload)
    """)
    session = make_session(extensions=[path])
    runner = session.extension_runner
    await runner.start()
    first = module_of(path)
    assert "old_tool" in runner.active_tool_names()
    with open(path, "w") as out:
        out.write("VERSION = 2\nevents = []\n"
                  "def extension(pi):\n"
                  "    pi.on('session_start', lambda e, ctx: events.append(('start', VERSION, e.reason)))\n"
                  "    pi.register_command('version', lambda args, ctx: ctx.ui.notify(f'v{VERSION}'))\n")
    assert await session.prompt("/reload-runtime") == "handled"
    assert first.events == [("start", 1, "startup"), ("shutdown", 1, "reload")]
    assert module_of(path).events == [("start", 2, "reload")]
    assert "old_tool" not in runner.active_tool_names() and "old_tool" not in runner.all_tools
    await session.prompt("/version")
    assert runner.ui.inner.notifications[-1] == ("info", "v2")
    assert [c["name"] for c in runner.get_commands()] == ["version"]


# ---------------------------------------------------------------------- session control and tools

async def test_new_session_setup_fills_the_new_session(make_session, write_ext):
    path = write_ext("handoff", """
        got = {}
        def extension(pi):
            async def handoff(args, ctx):
                from pi_runtime.ai.types import UserMessage
                def setup(sm):
                    sm.append_message(UserMessage(content="Context from the previous session"))
                async def after(new_ctx):
                    got["entries"] = len(new_ctx.session_manager.get_entries())
                result = await ctx.new_session(setup=setup, with_session=after)
                got["cancelled"] = result.cancelled
            pi.register_command("handoff", handoff)
    """)
    session = make_session(extensions=[path], persist=True)
    session.provider.push(scripted_text("one"), scripted_text("two"))
    await session.prompt("first")
    old_file = session.session_file
    await session.prompt("/handoff")
    got = module_of(path).got
    assert got["cancelled"] is False and session.session_file != old_file
    assert any("Context from the previous session" in str(m.content) for m in session.messages)
    await session.prompt("continue")
    sent = session.provider.requests[-1][0].messages
    assert "Context from the previous session" in str(sent[-2].content)


async def test_execute_tool_runs_other_tools_through_the_hooks(make_session, write_ext, workdir):
    (workdir / "a.txt").write_text("alpha")
    path = write_ext("nested", """
        seen = []
        def extension(pi):
            async def both(call_id, params, signal, on_update, ctx):
                first = await ctx.execute_tool("read", {"path": "a.txt"})
                second = await ctx.execute_tool("read", {"path": "secret.txt"})
                missing = await ctx.execute_tool("nope", {})
                return f"{first.text[:5]}|{second.is_error}:{second.text}|{missing.is_error}"
            pi.register_tool(name="both", description="reads twice", params=None, execute=both)
            def gate(event, ctx):
                seen.append((event.tool_call_id, event.parent_tool_call_id))
                if event.input.get("path") == "secret.txt":
                    return {"block": True, "reason": "secret"}
            pi.on("tool_call", gate)
            pi.on("tool_execution_end", lambda e, ctx: seen.append(("end", e.tool_call_id, e.parent_tool_call_id)))
    """)
    session = make_session(extensions=[path], tools="read,both")
    session.provider.push(scripted_tool_call("both", {}, id="call_9"), scripted_text("done"))
    await session.prompt("go")
    [result] = tool_results(session)
    assert result.content[0].text == "alpha|True:secret|True"
    seen = module_of(path).seen
    assert ("call_9/1", "call_9") in seen and ("call_9/2", "call_9") in seen
    assert ("end", "call_9/3", "call_9") in seen and ("end", "call_9", None) in seen
    assert [m.role for m in session.messages if m.role != "system"] == ["user", "assistant", "toolResult", "assistant"]


async def test_user_bash_can_answer_reroute_or_block(make_session, write_ext):
    path = write_ext("ubash", """
        from pi_runtime.extensions import create_local_bash_operations
        def extension(pi):
            local = create_local_bash_operations()
            class Prefixed:
                async def exec(self, command, cwd, **options):
                    return await local.exec("echo routed; " + command.removeprefix("route "), cwd, **options)
            def on_bash(event, ctx):
                if event.command == "answer":
                    return {"result": {"output": "answered by extension", "exitCode": 0}}
                if event.command.startswith("route "):
                    return {"operations": Prefixed()}
                if event.command == "explode":
                    raise RuntimeError("bash hook failed")
            pi.on("user_bash", on_bash)
    """)
    session = make_session(extensions=[path])
    answered = await session.execute_bash("answer")
    assert answered.output == "answered by extension" and answered.exit_code == 0
    routed = await session.execute_bash("route echo hi")
    assert routed.output.split() == ["routed", "hi"]
    blocked = await session.execute_bash("explode")
    assert blocked.exit_code == 1 and "Blocked" in blocked.output
    plain = await session.execute_bash("echo untouched")
    assert plain.output.strip() == "untouched"
    assert [e["event"] for e in errors(session)] == ["user_bash"]


async def test_shutdown_request_waits_for_idle_and_print_mode_ignores_it(make_session, write_ext):
    path = write_ext("quit", """
        def extension(pi):
            pi.on("turn_start", lambda e, ctx: ctx.shutdown())
    """)
    session = make_session(extensions=[path])
    asked = []
    session.provider.push(scripted_text("answer", delay=0.01))
    await session.prompt("go", wait=False)  # no host callback installed: a no-op (print mode)
    await session.wait_for_idle()
    session.extension_runner.on_shutdown_request = lambda: asked.append(session.is_streaming)
    session.provider.push(scripted_text("answer", delay=0.01))
    await session.prompt("again")
    await asyncio.sleep(0.05)
    assert asked == [False]  # called once, after the run settled


# ---------------------------------------------------------------------- what front ends query

async def test_renderers_shortcuts_and_flags_are_queryable(make_session, write_ext):
    path = write_ext("renders", """
        def extension(pi):
            pi.register_message_renderer("card", lambda message, options, theme: "card:" + message.content)
            pi.register_entry_renderer("state", lambda entry, options, theme: "state")
            pi.register_tool(name="fancy", description="d", params=None, execute=lambda *a: "ok",
                             render_call=lambda args, theme, context: "fancy call")
            pi.register_tool_renderer(lambda name, next: {"render_call": lambda *a: "mcp!"} if name.startswith("mcp__")
                                      else next())
            pi.register_markdown_transformer(lambda markdown, context: markdown.replace("-->", "→"))
            pi.register_shortcut("ctrl+alt+p", lambda ctx: None, description="Toggle")
            pi.register_flag("plan", description="Plan mode")
    """)
    session = make_session(extensions=[path])
    runner = session.extension_runner
    from pi_runtime.ai.types import CustomMessage

    assert runner.message_renderer("card")(CustomMessage(custom_type="card", content="x"), {}, None) == "card:x"
    assert runner.entry_renderer("state") is not None and runner.message_renderer("other") is None
    assert runner.tool_renderer("fancy")["render_call"](None, None, None) == "fancy call"
    assert runner.tool_renderer("mcp__time__now")["render_call"]() == "mcp!"
    assert runner.tool_renderer("read") is None  # the app's own renderer
    [transform] = runner.markdown_transformers("assistant")
    assert transform("a --> b", {}) == "a → b" and runner.markdown_transformers("changelog") == []
    shortcut = runner.shortcuts()["ctrl+alt+p"]
    assert shortcut.description == "Toggle" and shortcut.extension.path == path
    flag = runner.flags()["plan"]
    assert (flag.type, flag.description, flag.current) == ("boolean", "Plan mode", None)


async def test_public_helpers_for_tools(tmp_path):
    import pi_runtime.extensions as ext

    truncated = ext.truncate_head("\n".join(str(i) for i in range(3000)), max_lines=10)
    assert truncated.truncated and ext.DEFAULT_MAX_LINES == 2000 and ext.format_size(2048) == "2.0KB"
    assert ext.get_agent_dir() and ext.CONFIG_DIR_NAME == ".pi"
    target = tmp_path / "f.txt"
    order = []

    async def write(text):
        order.append(text)
        await asyncio.sleep(0.01)
        target.write_text(text)

    await asyncio.gather(ext.with_file_mutation_queue(str(target), lambda: write("a")),
                         ext.with_file_mutation_queue(str(target), lambda: write("b")))
    assert order == ["a", "b"] and target.read_text() == "b"
    outcome = await ext.create_local_bash_operations().exec("echo hi", str(tmp_path), on_data=lambda b: None,
                                                            signal=None, timeout=None, env=dict(os.environ))
    assert outcome.exit_code == 0


async def test_only_answers_of_the_right_kind_count(make_session, write_ext):
    path = write_ext("kinds", """
        got = []
        def extension(pi):
            async def ask(args, ctx):
                got.append(await ctx.ui.confirm("Sure?"))
                got.append(await ctx.ui.select("Pick", ["a", "b"]))
                got.append(await ctx.ui.input("Name"))
            pi.register_command("ask", ask)
    """)

    class Sloppy(AnsweringUI):  # a front end that answers with the wrong types
        async def confirm(self, title, message="", *, timeout=None):
            return "false"

        async def select(self, title, options, *, timeout=None):
            return "c"

        async def input(self, title, placeholder=None, *, timeout=None):
            return 42

    session = make_session(extensions=[path])
    session.extension_runner.set_ui(Sloppy(), "rpc")
    await session.prompt("/ask")
    assert module_of(path).got == [False, None, None]


# ---------------------------------------------------------------------- agent_settled is idle

async def test_an_agent_settled_handler_sees_idle_and_its_run_starts_after_every_handler(make_session, write_ext):
    """Pi: in agent_settled ``ctx.is_idle()`` is True; a run asked for there starts after all settled handlers."""
    path = write_ext("settled", """
        log = []
        def extension(pi):
            async def first(event, ctx):
                log.append(("idle", ctx.is_idle()))
                if log.count("start") == 1:
                    log.append(await pi.send_user_message("and once more"))
                log.append("first done")
            pi.on("agent_settled", first)
            pi.on("agent_settled", lambda event, ctx: log.append("second"))
            pi.on("agent_start", lambda event, ctx: log.append("start"))
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("one"), scripted_text("two"))
    await session.prompt("go")  # waits for idle: the run asked for in agent_settled included
    log = module_of(path).log
    assert log[:6] == ["start", ("idle", True), "started", "first done", "second", "start"]
    assert [m.content[0].text for m in session.messages if getattr(m, "role", None) == "assistant"] == ["one", "two"]
    assert not errors(session)


async def test_a_command_sent_from_agent_settled_runs_after_the_handlers_and_can_reload(make_session, write_ext):
    """Pi's reload-runtime example: a tool asks, agent_settled sends ``/reload-runtime``, which reloads."""
    path = write_ext("reloader", """
        import os
        loads = int(os.environ.get("PI_TEST_LOADS", "0")) + 1
        os.environ["PI_TEST_LOADS"] = str(loads)
        def extension(pi):
            state = {"asked": False}
            async def reload_runtime(args, ctx):
                await ctx.reload()
            pi.register_command("reload-runtime", reload_runtime)
            def execute(call_id, params, signal, on_update, ctx):
                state["asked"] = True
                return {"content": [{"type": "text", "text": "reload asked"}], "terminate": True}
            pi.register_tool(name="reload_runtime", description="Reload", params=None, execute=execute)
            def settled(event, ctx):
                if state["asked"]:
                    state["asked"] = False
                    pi.send_user_message("/reload-runtime", expand_prompt_templates=True)
            pi.on("agent_settled", settled)
    """)
    os.environ.pop("PI_TEST_LOADS", None)
    session = make_session(extensions=[path])
    session.provider.push(scripted_tool_call("reload_runtime", {}))
    await session.prompt("reload please")
    for _ in range(50):
        if os.environ.get("PI_TEST_LOADS") == "2":
            break
        await asyncio.sleep(0.02)
    assert os.environ.pop("PI_TEST_LOADS") == "2"  # the module was imported again
    assert not errors(session)
    assert len(session.provider.requests) == 1  # the command never reached the model
