"""``ctx.ui.set_hidden_thinking_label`` in the app (Pi's hidden-thinking-label example): it did
nothing, collapsed thinking always said pi's own marker."""

from __future__ import annotations

import textwrap

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText, ScriptedThinking
from pi_tui.launch import create_app
from pi_tui.transcript.thinking_block import ThinkingBlock

from .conftest import make_session, screen_text, settle, started, wait_for
from .test_commands_models import type_command

LABEL = textwrap.dedent(
    """
    def extension(pi):
        pi.on("session_start", lambda event, ctx: ctx.ui.set_hidden_thinking_label("Pondering..."))

        def command(args, ctx):
            if args.strip() == "none":
                ctx.ui.set_hidden_thinking_label("")
            elif args.strip():
                ctx.ui.set_hidden_thinking_label(args.strip())
            else:
                ctx.ui.set_hidden_thinking_label()

        pi.register_command("thinking-label", command)
    """
)


async def test_collapsed_thinking_shows_the_extensions_label(provider, workdir, agent_dir, tmp_path):
    ext = tmp_path / "label.py"
    ext.write_text(LABEL)
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    provider.push(ScriptedResponse([ScriptedThinking("Let me weigh the options."), ScriptedText("Answer.")]))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "q")
        await settle(pilot, session)
        block = app.query_one(ThinkingBlock)
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: "Pondering..." in screen_text(app))
        assert "weigh the options" not in screen_text(app) and "Thinking (1 line" not in screen_text(app)
        await type_command(pilot, "/thinking-label Mulling it over")
        assert await wait_for(pilot, lambda: "Mulling it over" in screen_text(app))
        # "" hides collapsed blocks (no blank row); no argument brings pi's marker back.
        await type_command(pilot, "/thinking-label none")
        assert await wait_for(pilot, lambda: not block.display)
        await type_command(pilot, "/thinking-label")
        assert await wait_for(pilot, lambda: "Thinking (1 line" in screen_text(app))
        assert block.display
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: "weigh the options" in screen_text(app))
        assert session.extension_runner.reporter.errors == []
