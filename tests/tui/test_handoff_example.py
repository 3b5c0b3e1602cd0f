"""Pi's handoff example in the app: a loader while the model writes the prompt (Esc cancels the
request), then the editor dialog, then a new session with the prompt in the editor. It found a
hang: the loader's abort hook, run as its screen unmounted, dismissed the next dialog."""

from __future__ import annotations

from pathlib import Path

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText, scripted_text
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, wait_for
from .test_commands_models import type_command

HANDOFF = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions" / "handoff.py")


async def test_handoff_writes_a_prompt_and_opens_a_new_session_with_it(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[HANDOFF])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        provider.push(scripted_text("we fixed the parser"))
        await type_command(pilot, "fix the parser")
        await settle(pilot, session)
        first_session = session.session_manager.session_id
        provider.push(scripted_text("## Context\nParser fixed.\n## Task\nTeams."))
        await type_command(pilot, "/handoff now do it for teams")
        assert await wait_for(pilot, lambda: "Edit handoff prompt" in screen_text(app))
        request, _ = provider.requests[-1]
        assert "## User's Goal for New Thread\n\nnow do it for teams" in request.messages[-1].content[0].text
        assert "[User]: fix the parser" in request.messages[-1].content[0].text
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: session.session_manager.session_id != first_session)
        assert await wait_for(pilot, lambda: app.editor.text.startswith("## Context\nParser fixed."))


async def test_esc_on_the_loader_cancels_the_request(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[HANDOFF])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        provider.push(scripted_text("an answer"))
        await type_command(pilot, "do something")
        await settle(pilot, session)
        provider.push(ScriptedResponse([ScriptedText("never")], hang=True))
        await type_command(pilot, "/handoff next")
        assert await wait_for(pilot, lambda: "Generating handoff prompt..." in screen_text(app))
        _, options = provider.requests[-1]
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: options.signal.aborted)
        assert await wait_for(pilot, lambda: "Generating handoff prompt..." not in screen_text(app))
        assert "Edit handoff prompt" not in screen_text(app)
        # The app still takes prompts.
        provider.push(scripted_text("still here"))
        await type_command(pilot, "hello")
        await settle(pilot, session)
        assert "still here" in screen_text(app)
