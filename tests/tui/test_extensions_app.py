"""Extensions inside the app: real dialogs for ctx.ui, statuses and widgets around the
editor, extension commands in the slash menu, failures shown inline."""

from __future__ import annotations

import textwrap

from pi_tui.launch import create_app

from .conftest import make_session, screen_text
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
        await pilot.pause(0.2)
        app.editor.set_text("/sh")
        await pilot.pause(0.2)
        assert "Ship the build" in screen_text(app)  # listed in the slash menu
        await type_command(pilot, "/ship")
        await pilot.pause(0.3)
        assert "Ship to?" in screen_text(app)
        await pilot.press("down", "enter")  # production
        await pilot.pause(0.3)
        assert "Really ship?" in screen_text(app) and "Target: production" in screen_text(app)
        await pilot.press("y")
        await pilot.pause(0.4)
        text = screen_text(app)
        assert "== shipping board ==" in text and "target production" in text
        assert "production confirmed=True" in text and "ship: production" not in text  # the text, not the key
    assert len(provider.requests) == 0  # the command never reached the model


async def test_a_failing_extension_is_reported_inline(provider, workdir, agent_dir, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def extension(pi):\n    raise RuntimeError('ext setup exploded')\n")
    session = make_session(provider, workdir, extensions=[str(broken)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.4)
        assert "ext setup exploded" in screen_text(app)
