"""What a new user sees first: the key hints, the first-run guide from its headline, and a sent
prompt always in view."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.transcript.start_hints import StartHints

from .conftest import keyless_session, screen_text, settle, started


async def test_an_empty_session_starts_with_pis_key_hints_and_ctrl_o_shows_them_all(session):
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more" in text
        await pilot.press("ctrl+o")
        await pilot.pause()
        text = screen_text(app)
        assert "shift+tab to cycle thinking level" in text and "!! to run bash (no context)" in text
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "shift+tab to cycle thinking level" not in screen_text(app)


async def test_without_extensions_the_hints_come_with_the_attach_and_their_text_with_their_first_frame(session):
    from pi_tui.app import PiApp

    app = PiApp(None, static=True)  # no session yet, as while pi starts
    async with app.run_test(size=(100, 30)) as pilot:
        assert session.extension_runner is None
        await app.attach_session(session)  # the start-session worker has not run yet
        hints = app.query(StartHints)
        assert len(hints) == 1 and "ctrl+o more" in str(hints.first().render())  # drawn with the attach's frame
        await pilot.pause()
        assert len(app.query(StartHints)) == 1  # and not again by the worker


async def test_the_hints_follow_keybindings_json(session, agent_dir):
    (agent_dir / "keybindings.json").write_text('{"app.interrupt": "ctrl+g", "app.editor.external": []}')
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "ctrl+g interrupt" in screen_text(app)
        app.query_one(StartHints).expanded = True
        await pilot.pause()
        assert "for external editor" not in screen_text(app)  # unbound: not offered


async def test_the_first_run_guide_opens_at_its_headline(workdir, agent_dir, monkeypatch):
    session = keyless_session(workdir, agent_dir, monkeypatch)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        text = screen_text(app)
        assert "Welcome to pi" in text and "╭" in text  # the headline and the box's top border
        assert "1. Set an API key" in text


async def test_a_prompt_sent_while_reading_old_messages_comes_into_view(provider, session):
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 20)) as pilot:
        for i in range(6):
            provider.push(scripted_text(f"answer {i}\n\n" + "line\n\n" * 3))
            app.editor.set_text(f"question {i}")
            await pilot.press("enter")
            await settle(pilot, session)
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        assert "question 5" not in screen_text(app)
        provider.push(scripted_text("the newest answer"))
        app.editor.set_text("the newest question")
        await pilot.press("enter")
        await settle(pilot, session)
        text = screen_text(app)
        assert "the newest question" in text and "the newest answer" in text


async def test_the_full_help_names_the_search_key_that_works_in_every_terminal(session, agent_dir):
    # Ctrl+Shift+F needs extended keys (tmux drops it without them); Alt+S always arrives.
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.query_one(StartHints).expanded = True
        await pilot.pause()
        assert "alt+s to search the transcript" in screen_text(app)
