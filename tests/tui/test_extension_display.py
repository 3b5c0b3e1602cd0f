"""The display layer extensions draw with in the app: tool and message renderers, their own
widgets (ctx.ui.custom), a replaced footer, the working message and the theme."""

from __future__ import annotations

import textwrap

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, started, wait_for, workers_done
from .test_commands_models import type_command

DISPLAY = textwrap.dedent(
    """
    from rich.text import Text
    from textual.widgets import Input, Static

    def extension(pi):
        def bash_renderer(name, next_renderer):
            if name != "bash":
                return next_renderer()
            return {
                "render_call": lambda args, theme, ctx: theme.bold(theme.fg("accent", "RUN » ")) + Text(args.get("command", "")),
                "render_result": lambda result, options, theme, ctx: theme.fg("success", "exit ok, "
                    + ("expanded" if options["expanded"] else "collapsed")),
            }
        pi.register_tool_renderer(bash_renderer)

        pi.register_message_renderer("board", lambda message, options, theme: theme.fg("warning", "BOARD: ")
                                     + Text(str(message.content)))

        async def announce(args, ctx):
            pi.send_message({"customType": "board", "content": "all green", "display": True})

        class NameBox(Input):
            def __init__(self, done):
                super().__init__(placeholder="your name", id="ext-name")
                self.done = done

            def on_input_submitted(self, event):
                self.done(event.value)

        async def ask(args, ctx):
            name = await ctx.ui.custom(lambda tui, theme, keys, done: NameBox(done), overlay=True)
            ctx.ui.notify(f"hello {name}")

        async def footer(args, ctx):
            ctx.ui.set_footer(lambda tui, theme: Static(theme.fg("accent", "== custom footer =="), id="ext-footer"))
            ctx.ui.set_working_message("Crunching numbers")

        pi.register_command("announce", announce)
        pi.register_command("ask", ask)
        pi.register_command("footer", footer)
    """
)


async def start(provider, workdir, agent_dir, tmp_path, size=(100, 30)):
    ext = tmp_path / "display.py"
    ext.write_text(DISPLAY)
    session = make_session(provider, workdir, extensions=[str(ext)])
    return session, create_app(session, static=True, agent_dir=str(agent_dir))


async def test_a_tool_renderer_draws_the_call_and_its_result(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    provider.push(scripted_tool_call("bash", {"command": "echo hi"}), scripted_text("done"))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "go")
        await settle(pilot, session)
        text = screen_text(app)
        assert "RUN » echo hi" in text and "exit ok, collapsed" in text
        await pilot.press("ctrl+o")
        await workers_done(pilot)
        assert "exit ok, expanded" in screen_text(app)


async def test_a_message_renderer_draws_custom_messages(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/announce")
        await workers_done(pilot)
        assert "BOARD: all green" in screen_text(app)


async def test_ctx_ui_custom_shows_the_extensions_widget_and_returns_its_value(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/ask")
        assert await wait_for(pilot, lambda: app.screen.query("#ext-name"))
        await pilot.press(*"Ada", "enter")
        await workers_done(pilot)
        assert not app.screen.query("#ext-name")
        assert any("hello Ada" in str(n.message) for n in app._notifications)


async def test_an_extension_replaces_the_footer_and_names_the_work(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/footer")
        await workers_done(pilot)
        assert "== custom footer ==" in screen_text(app)
        assert not app.footer_bar.display
        app.footer_bar.display = True  # the working text lives in pi's footer
        app.footer_bar.set_working(True)
        await pilot.pause()
        assert "Crunching numbers" in screen_text(app)


async def test_done_called_inside_the_factory_returns_at_once(provider, workdir, agent_dir, tmp_path):
    """Pi's interactive-shell example runs its command in the factory and calls done() there."""
    ext = tmp_path / "quick.py"
    ext.write_text(textwrap.dedent("""
        from textual.widgets import Static
        def extension(pi):
            async def quick(args, ctx):
                def factory(tui, theme, keys, done):
                    done(42)
                    return Static("never shown", id="ext-quick")
                value = await ctx.ui.custom(factory)
                ctx.ui.notify(f"value {value}")
            pi.register_command("quick", quick)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/quick")
        await workers_done(pilot)
        assert any("value 42" in str(n.message) for n in app._notifications)
        assert not app.screen.query("#ext-quick") and len(app.screen_stack) == 1
        await type_command(pilot, "still typing")  # the editor has the keys, no screen over it
        await settle(pilot, session)
        assert provider.requests


async def test_renderers_get_pis_output_pad_option(provider, workdir, agent_dir, tmp_path):
    # Pi's message-renderer example pads its box with options.outputPad (the outputPad setting).
    ext = tmp_path / "pad.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            pi.register_message_renderer("pad", lambda message, options, theme: f"PAD={options['outputPad']}")
            pi.register_tool_renderer(lambda name, next_renderer: {
                "render_result": lambda result, options, theme, ctx: f"TOOLPAD={options['outputPad']}"})
            pi.register_command("pad", lambda args, ctx: pi.send_message(
                {"customType": "pad", "content": "x", "display": True}))
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    session.settings.set("outputPad", 0)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    provider.push(scripted_tool_call("bash", {"command": "echo hi"}), scripted_text("done"))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/pad")
        await type_command(pilot, "go")
        await settle(pilot, session)
        text = screen_text(app)
        assert "PAD=0" in text and "TOOLPAD=0" in text


async def test_done_inside_a_factory_that_returns_no_widget_keeps_its_value(provider, workdir, agent_dir, tmp_path):
    """Pi keeps done()'s value even when the factory then returns no component."""
    from pi_runtime.testing.waiting import eventually

    ext = tmp_path / "nothing.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            async def pick(args, ctx):
                def factory(tui, theme, keys, done):
                    done("chosen")
                value = await ctx.ui.custom(factory)
                ctx.ui.notify(f"value {value}")
            pi.register_command("pick", pick)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/pick")
        assert await eventually(lambda: any("value chosen" in str(n.message) for n in app._notifications))
        assert not session.extension_runner.errors


async def test_settings_list_and_editor_for_custom_components(provider, workdir, agent_dir, tmp_path):
    """Pi's tools example toggles settings with a SettingsList; a question box uses an Editor."""
    from pi_runtime.testing.waiting import eventually

    ext = tmp_path / "parts.py"
    ext.write_text(textwrap.dedent("""
        from pi_tui.extension_ui import Editor, SettingsList
        def extension(pi):
            async def toggle(args, ctx):
                changes = []
                def factory(tui, theme, keys, done):
                    items = [{"id": "bash", "label": "bash", "currentValue": "on", "values": ["on", "off"]}]
                    return SettingsList(items, lambda i, v: changes.append((i, v)), lambda: done(changes))
                ctx.ui.notify(f"changes {await ctx.ui.custom(factory)}")
            async def ask(args, ctx):
                def factory(tui, theme, keys, done):
                    return Editor("", on_submit=done, on_cancel=lambda: done(None), id="ask-box")
                ctx.ui.notify(f"answer {await ctx.ui.custom(factory)!r}")
            pi.register_command("toggle", toggle)
            pi.register_command("ask", ask)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))

    def notified(text):
        return any(text in str(n.message) for n in app._notifications)

    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/toggle")
        assert await eventually(lambda: len(app.screen_stack) > 1)
        await pilot.press("enter", "space", "escape")
        assert await eventually(lambda: notified("changes [('bash', 'off'), ('bash', 'on')]"))
        await type_command(pilot, "/ask")
        assert await eventually(lambda: bool(app.screen.query("#ask-box")))
        await pilot.press("h", "i", "shift+enter", "x", "enter")
        assert await eventually(lambda: notified("answer 'hi\\nx'"))


async def test_calls_a_tool_makes_to_other_tools_get_no_box_of_their_own(provider, workdir, agent_dir, tmp_path):
    # Pi 1.6 sends a nested call's tool_execution_start/end with parentToolCallId: the calling tool
    # reports them itself, so the transcript draws one box, not one per nested call.
    (workdir / "a.txt").write_text("alpha")
    ext = tmp_path / "nested.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            async def twice(call_id, params, signal, on_update, ctx):
                first = await ctx.execute_tool("read", {"path": "a.txt"})
                second = await ctx.execute_tool("read", {"path": "a.txt"})
                return first.text + second.text
            pi.register_tool(name="twice", description="reads twice", params=None, execute=twice)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)], tools="read,twice")
    provider.push(scripted_tool_call("twice", {}, id="call_7"), scripted_text("done"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"go", "enter")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "done" in screen_text(app))
        boxes = [box.call_id for box in app.query("ToolBox")]
        assert boxes == ["call_7"]
        [result] = [m for m in session.messages if m.role == "toolResult"]
        assert [c["id"] for c in result.nested_calls["calls"]] == ["call_7/1", "call_7/2"]
