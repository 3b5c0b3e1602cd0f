"""What porting Pi's example extensions to the app showed was broken: a widget of the extension's
own that raises, theme text joined to plain strings, coloured statuses, timed dialogs' countdown,
the working indicator's speed, a replaced footer's data and freshness."""

from __future__ import annotations

import textwrap

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, started, wait_for, workers_done
from .test_commands_models import type_command

PORTS = textwrap.dedent(
    """
    from rich.text import Text
    from textual.widgets import Static

    def extension(pi):
        class Broken(Static):
            def on_mount(self):
                raise RuntimeError("the extension's widget broke")

        async def broken_custom(args, ctx):
            value = await ctx.ui.custom(lambda tui, theme, keys, done: Broken("x"))
            ctx.ui.notify(f"custom returned {value!r}")

        class BrokenFooter(Static):
            def render(self):
                raise ValueError("footer render broke")

        async def broken_footer(args, ctx):
            ctx.ui.set_footer(lambda tui, theme: BrokenFooter())

        async def styled(args, ctx):
            theme = ctx.ui.theme
            ctx.ui.set_status("a-turn", theme.fg("success", "✓") + theme.fg("dim", " Turn 1 complete"))
            ctx.ui.set_widget("w", ["plain " + theme.fg("error", "red part") + " tail"])

        async def timed(args, ctx):
            ok = await ctx.ui.confirm("Timed Confirmation", "Confirm?", timeout=30)
            ctx.ui.notify(f"timed {ok}")

        async def ansi(args, ctx):
            # Pi's working-indicator example writes escape codes by hand.
            ctx.ui.set_working_indicator(["\x1b[38;2;255;179;186m●\x1b[39m"], 120)
            ctx.ui.set_status("mode", "\x1b[38;2;186;255;201mgreen mode\x1b[39m")

        async def indicator(args, ctx):
            ctx.ui.set_working_indicator({"frames": [ctx.ui.theme.fg("accent", "●")], "intervalMs": 250})

        async def footer(args, ctx):
            def factory(tui, theme, footer_data):
                class Usage(Static):
                    def render(self):
                        turns = sum(1 for e in ctx.session_manager.get_branch()
                                    if e.type == "message" and e.message.role == "assistant")
                        return f"answers={turns} branch={footer_data.get_git_branch()}"
                return Usage(id="usage-footer")
            ctx.ui.set_footer(factory)

        for name, fn in (("broken-custom", broken_custom), ("broken-footer", broken_footer), ("styled", styled),
                         ("timed", timed), ("indicator", indicator), ("ansi", ansi), ("usage-footer", footer)):
            pi.register_command(name, fn)
    """
)


async def start(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "ports.py"
    ext.write_text(PORTS)
    session = make_session(provider, workdir, extensions=[str(ext)])
    return session, create_app(session, static=True, agent_dir=str(agent_dir))


def colours(content) -> set[str]:
    """The foreground colours (``#rrggbb``) a rendered widget uses."""
    return {span.style.foreground.hex.lower() for span in content.spans
            if getattr(span.style, "foreground", None) is not None}


def ui_errors(session):
    return [(event, error) for _, event, error in session.extension_runner.reporter.errors if event == "ui"]


async def test_a_custom_widget_that_raises_is_reported_and_the_app_keeps_running(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/broken-custom")
        assert await wait_for(pilot, lambda: any("custom returned None" in str(n.message) for n in app._notifications))
        assert app.is_running and len(app.screen_stack) == 1
        (event, error), = ui_errors(session)
        assert error.startswith("RuntimeError: the extension's widget broke") and "ports.py" in error
        assert "textual" not in error  # only the extension's own frames
        provider.push(scripted_text("still here"))
        await type_command(pilot, "hello")
        await settle(pilot, session)
        assert "still here" in screen_text(app)


async def test_a_footer_that_raises_gives_way_to_pis_own(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/broken-footer")
        assert await wait_for(pilot, lambda: bool(ui_errors(session)))
        await workers_done(pilot)
        assert app.is_running and app.footer_bar.display
        assert "#footer" not in app.extension_ui.components
        assert "ValueError: footer render broke" in ui_errors(session)[0][1]


async def test_theme_text_joins_plain_strings_and_statuses_keep_their_colours(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/styled")
        await workers_done(pilot)
        assert session.extension_runner.reporter.errors == []
        success, error = app.theme_variables["pi-success"], app.theme_variables["pi-error"]
        below = app.query_one("#ext-status").render()
        above = app.query_one("#ext-above").render()
        assert "✓ Turn 1 complete" in below.plain and "plain red part tail" in above.plain
        assert success.lower() in colours(below) and error.lower() in colours(above)


async def test_a_timed_dialog_counts_down_in_its_title(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/timed")
        assert await wait_for(pilot, lambda: "Timed Confirmation (30s)" in screen_text(app)
                              or "Timed Confirmation (29s)" in screen_text(app))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: any("timed True" in str(n.message) for n in app._notifications))


async def test_the_working_indicator_takes_pis_options_object(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/indicator")
        await workers_done(pilot)
        footer = app.footer_bar
        assert footer.spinner_interval == 0.25 and footer._timer is not None and footer._timer._interval == 0.25
        assert [frame.plain for frame in footer.spinner_frames] == ["●"]


async def test_a_replaced_footer_gets_footer_data_and_follows_the_session(provider, workdir, agent_dir, tmp_path):
    (workdir / ".git").mkdir()
    (workdir / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/usage-footer")
        await workers_done(pilot)
        assert "answers=0 branch=feature-x" in screen_text(app)
        provider.push(scripted_text("one"))
        await type_command(pilot, "hi")
        await settle(pilot, session)
        assert "answers=1 branch=feature-x" in screen_text(app)


async def test_ansi_colour_codes_in_statuses_and_frames_are_drawn_as_colours(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "/ansi")
        await workers_done(pilot)
        below = app.query_one("#ext-status").render()
        assert "green mode" in below.plain and "\x1b" not in below.plain and "#baffc9" in colours(below)
        frame, = app.footer_bar.spinner_frames
        assert frame.plain == "●" and app.footer_bar.spinner_interval == 0.12
