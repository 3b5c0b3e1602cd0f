"""Extensions inside the app: real dialogs for ctx.ui, statuses and widgets around the
editor, extension commands in the slash menu, failures shown inline."""

from __future__ import annotations

import os
import textwrap

from pi_runtime.testing.waiting import eventually
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, started, wait_for, workers_done
from .test_commands_models import type_command

EXTENSION = textwrap.dedent(
    """
    def extension(pi):
        async def ship(args, ctx):
            where = await ctx.ui.select("Ship to?", ["staging", "production"])
            sure = await ctx.ui.confirm("Really ship?", f"Target: {where}")
            ctx.ui.set_status("ship", f"{where} confirmed={sure}")
            ctx.ui.set_widget("ship", ["== shipping board ==", f"target {where}"])
            ctx.ui.notify(f"shipped to {where}")

        pi.register_command("ship", ship, description="Ship the build")
    """
)


async def test_extension_dialogs_statuses_and_widgets(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "ship.py"
    ext.write_text(EXTENSION)
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        app.editor.set_text("/sh")
        assert await wait_for(pilot, lambda: "Ship the build" in screen_text(app))  # listed in the slash menu
        await type_command(pilot, "/ship")
        assert await wait_for(pilot, lambda: "Ship to?" in screen_text(app))
        await pilot.press("down", "enter")  # production
        assert await wait_for(pilot, lambda: "Really ship?" in screen_text(app) and "Target: production" in screen_text(app))
        await pilot.press("y")
        await workers_done(pilot)  # the command ran to its end
        text = screen_text(app)
        assert "== shipping board ==" in text and "target production" in text
        assert "production confirmed=True" in text and "ship: production" not in text  # the text, not the key
        # Pi's place for statuses: the last line, under the footer.
        status = app.query_one("#ext-status")
        assert "production confirmed=True" in status.render().plain
        assert status.region.y > app.footer_bar.region.y and status.region.bottom == app.size.height
    assert len(provider.requests) == 0  # the command never reached the model


async def test_a_failing_extension_is_reported_inline(provider, workdir, agent_dir, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def extension(pi):\n    raise RuntimeError('ext setup exploded')\n")
    session = make_session(provider, workdir, extensions=[str(broken)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: "ext setup exploded" in screen_text(app))


async def test_a_dialog_from_a_session_switch_gate_takes_keys(provider, workdir, agent_dir, tmp_path):
    # /new asks the extension first; its confirm dialog must get keys while /new waits on it.
    ext = tmp_path / "guard.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            async def before_switch(event, ctx):
                if not await ctx.ui.confirm("Clear session?", "Start a new session?"):
                    return {"cancel": True}
            pi.on("session_before_switch", before_switch)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    first_id = session.session_id
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/new")
        assert await wait_for(pilot, lambda: "Clear session?" in screen_text(app))
        await pilot.press("n")
        await workers_done(pilot)  # /new gave up
        assert "Clear session?" not in screen_text(app) and session.session_id == first_id
        await type_command(pilot, "/new")
        assert await wait_for(pilot, lambda: "Clear session?" in screen_text(app))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: session.session_id != first_id)


async def test_an_extension_shortcut_runs_before_the_editor_sees_the_key(provider, workdir, agent_dir, tmp_path):
    marker = tmp_path / "pressed.txt"
    ext = tmp_path / "keys.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            def pressed(ctx):
                open({str(marker)!r}, "a").write("yes\\n")
            pi.register_shortcut("ctrl+k", pressed, description="Mark")
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        app.editor.set_text("keep this line")
        app.editor.move_cursor((0, 0))
        await pilot.press("ctrl+k")  # the editor's kill-to-end key, taken by the extension
        await workers_done(pilot)  # the shortcut's handler ran
        assert marker.read_text() == "yes\n"
        assert app.editor.text == "keep this line"


async def test_an_extension_command_offers_its_argument_completions(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "deploy.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            async def deploy(args, ctx):
                ctx.ui.notify(f"deploying {args}")
            def targets(prefix):
                return [t for t in ["staging", "production", {"value": "prod-eu", "label": "prod-eu",
                        "description": "Frankfurt"}] if (t if isinstance(t, str) else t["value"]).startswith(prefix)]
            pi.register_command("deploy", deploy, description="Deploy", get_argument_completions=targets)
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await pilot.press(*"/deploy ")  # the command's completions show as its argument is typed
        await workers_done(pilot)  # the completions were fetched
        assert app.menu.is_open and app.menu.kind == "args"
        assert [c.value for c in app.menu.items] == ["staging", "production", "prod-eu"]
        await pilot.press(*"pro")
        await workers_done(pilot)
        assert [c.value for c in app.menu.items] == ["production", "prod-eu"]
        assert "Frankfurt" in screen_text(app)
        await pilot.press("down", "enter")  # Enter accepts an argument; it does not send yet
        await workers_done(pilot)
        assert app.editor.text == "/deploy prod-eu "
        app.editor.set_text("/deploy st")
        await workers_done(pilot)
        assert [c.value for c in app.menu.items] == ["staging"]
        app.menu.hide()  # Esc closed it
        await pilot.press("tab")  # Tab with the menu closed asks again
        await workers_done(pilot)
        assert app.menu.is_open and [c.value for c in app.menu.items] == ["staging"]


async def test_ctx_shutdown_quits_the_app_once_the_agent_is_idle(provider, workdir, agent_dir, tmp_path):
    """Pi's shutdown-command example: /quit2 calls ctx.shutdown(); the app ends as on /quit."""
    log = tmp_path / "events.log"
    ext = tmp_path / "quit2.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            async def quit2(args, ctx):
                ctx.shutdown()
            pi.register_command("quit2", quit2, description="Exit pi cleanly")
            pi.on("session_shutdown", lambda event, ctx: open({str(log)!r}, "a").write(event.reason + "\\n"))
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/quit2")
        assert await eventually(lambda: not app.is_running)
    assert log.read_text() == "quit\n"


async def test_ctx_reload_in_the_app_reloads_as_slash_reload_does(provider, workdir, agent_dir, tmp_path):
    """ctx.reload() binds the shortcuts of the re-imported extension and says so, like /reload."""
    marker = tmp_path / "pressed.txt"
    ext = tmp_path / "grows.py"
    ext.write_text(textwrap.dedent(f"""
        import os
        loads = int(os.environ.get("PI_TEST_GROWS", "0")) + 1
        os.environ["PI_TEST_GROWS"] = str(loads)
        def extension(pi):
            async def reload_runtime(args, ctx):
                await ctx.reload()
            pi.register_command("reload-runtime", reload_runtime)
            if loads > 1:  # the shortcut exists only in the reloaded module
                pi.register_shortcut("ctrl+k", lambda ctx: open({str(marker)!r}, "a").write("yes\\n"))
    """))
    os.environ.pop("PI_TEST_GROWS", None)
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await started(pilot)
            await type_command(pilot, "/reload-runtime")
            assert await wait_for(pilot, lambda: "Reloaded 1 extension(s)" in screen_text(app))
            await workers_done(pilot)
            await pilot.press("ctrl+k")
            await workers_done(pilot)
            assert marker.read_text() == "yes\n"
    finally:
        os.environ.pop("PI_TEST_GROWS", None)
