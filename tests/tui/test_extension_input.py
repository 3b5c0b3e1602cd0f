"""Extensions in the app's input and transcript: entry renderers, terminal input listeners, a
replaced editor and autocomplete providers, driven through the real app."""

from __future__ import annotations

import textwrap

from pi_tui.launch import create_app

from .conftest import make_session, screen_text, wait_for
from .test_commands_models import type_command

ENTRIES = textwrap.dedent(
    """
    def extension(pi):
        pi.register_entry_renderer("card", lambda entry, options, theme:
                                   theme.bold("CARD " + entry.data["title"]))

        async def card(args, ctx):
            pi.append_entry("card", {"title": args or "none"})
            pi.append_entry("silent", {"title": "never drawn"})

        pi.register_command("card", card)
    """
)


async def start(provider, workdir, agent_dir, tmp_path, source, size=(100, 30)):
    ext = tmp_path / "ext.py"
    ext.write_text(source)
    session = make_session(provider, workdir, extensions=[str(ext)])
    return session, create_app(session, static=True, agent_dir=str(agent_dir))


async def test_an_entry_renderer_draws_appended_custom_entries(provider, workdir, agent_dir, tmp_path):
    session, app = await start(provider, workdir, agent_dir, tmp_path, ENTRIES)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        await type_command(pilot, "/card Indexed files")
        assert await wait_for(pilot, lambda: "CARD Indexed files" in screen_text(app))
        # An entry type without a renderer stays out of the transcript (as in Pi).
        assert "never drawn" not in screen_text(app)
