"""Pi's qna, snake and hidden-thinking-label examples (docs/examples/extensions) in the app."""

from __future__ import annotations

import random
from pathlib import Path

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText, ScriptedThinking, scripted_text
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, settle, started, wait_for
from .test_commands_models import type_command

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions"


def notified(app, text: str) -> bool:
    return any(text in str(n.message) for n in app._notifications)


async def test_qna_loads_the_extracted_questions_into_the_editor(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "qna.py")])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/qna")
        assert await wait_for(pilot, lambda: notified(app, "No assistant messages found"))
        provider.push(scripted_text("Which database do you prefer? And which language?"))
        await type_command(pilot, "plan it")
        await settle(pilot, session)
        provider.push(scripted_text("Q: Which database?\nA: \n\nQ: Which language?\nA: "))
        await type_command(pilot, "/qna")
        assert await wait_for(pilot, lambda: app.editor.text.startswith("Q: Which database?\nA: "))
        assert notified(app, "Questions loaded. Edit and submit when ready.")
        request, _ = provider.requests[-1]
        assert request.system_prompt.startswith("You are a question extractor.")
        assert request.messages[-1].content[0].text == "Which database do you prefer? And which language?"
        # Esc on the loader aborts the request; nothing reaches the editor.
        app.editor.set_text("")
        provider.push(ScriptedResponse([ScriptedText("never")], hang=True))
        await type_command(pilot, "/qna")
        assert await wait_for(pilot, lambda: "Extracting questions using" in screen_text(app))
        _, options = provider.requests[-1]
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: options.signal.aborted and notified(app, "Cancelled"))
        assert app.editor.text == "" and len(app.screen_stack) == 1
        assert session.extension_runner.reporter.errors == []


def saves(session):
    return [e.data for e in session.session_manager.get_entries() if e.type == "custom" and e.custom_type == "snake-save"]


async def test_snake_pauses_into_the_session_and_resumes(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "snake.py")])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        # The first food lands off the snake's row, so it cannot eat (and grow) before the checks;
        # a random one on its row was eaten first in a loaded full run.
        random.seed(0)
        await type_command(pilot, "/snake")
        assert await wait_for(pilot, lambda: "SNAKE │ Score:" in screen_text(app))
        assert "WASD to move" in screen_text(app)
        await pilot.press("up")  # turn away from the wall it is heading for
        await pilot.press("escape")  # the game's key: pause and save, not the screen's cancel
        assert await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        [saved] = saves(session)
        assert saved["gameOver"] is False and saved["nextDirection"] == "up" and len(saved["snake"]) == 3
        await type_command(pilot, "/snake")
        assert await wait_for(pilot, lambda: "PAUSED Press any key to continue" in screen_text(app))
        await pilot.press("x")  # any key resumes
        assert await wait_for(pilot, lambda: "WASD to move" in screen_text(app))
        await pilot.press("q")  # quit and clear the save
        assert await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert saves(session)[-1] is None
        await type_command(pilot, "/snake")
        assert await wait_for(pilot, lambda: "WASD to move" in screen_text(app))  # a new game, not paused
        await pilot.press("q")
        assert session.extension_runner.reporter.errors == []


async def test_hidden_thinking_label_example(provider, workdir, agent_dir):
    session = make_session(provider, workdir, extensions=[str(EXAMPLES / "hidden_thinking_label.py")])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    provider.push(ScriptedResponse([ScriptedThinking("First weigh it."), ScriptedText("Done.")]))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await type_command(pilot, "q")
        await settle(pilot, session)
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: "Pondering..." in screen_text(app))
        await type_command(pilot, "/thinking-label Mulling")
        assert await wait_for(pilot, lambda: "Mulling" in screen_text(app) and "Pondering..." not in screen_text(app))
        assert notified(app, "Hidden thinking label set to: Mulling")
