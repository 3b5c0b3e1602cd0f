"""Input whose effect must not depend on timing: text sent while pi starts, Enter on the slash menu."""

from __future__ import annotations

import threading

from textual import events

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.app import PiApp

from .conftest import make_session, screen_text, settle, wait_for, workers_done
from .test_app_queue_and_input import user_texts


async def test_a_prompt_sent_while_the_session_is_being_built_is_sent_once_it_exists(provider, workdir, agent_dir):
    provider.push(scripted_text("Hello back."), scripted_text("Following up."))
    release = threading.Event()
    built = []

    def build():  # as the CLI does: in a worker thread, after the first frame
        release.wait(10)
        session = make_session(provider, workdir)
        built.append(session)
        return session

    app = PiApp(session_factory=build, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hi", "enter")
        await pilot.press(*"and this", "alt+enter")
        assert await wait_for(pilot, lambda: "Starting (2 queued)" in screen_text(app))
        assert app.session is None and app.editor.text == ""  # taken, not left in the editor
        release.set()
        assert await wait_for(pilot, lambda: built and app.session is not None)
        await workers_done(pilot)  # the queued texts were handed to the session
        await settle(pilot, built[0])
        assert user_texts(provider, 0) == ["hi"]
        assert user_texts(provider, 1) == ["hi", "and this"]  # in order, the second as a follow-up
        assert "Hello back." in screen_text(app) and "Following up." in screen_text(app)


async def test_alt_up_while_starting_takes_back_what_was_queued(provider, workdir, agent_dir):
    release = threading.Event()

    def build():
        release.wait(10)
        return make_session(provider, workdir)

    app = PiApp(session_factory=build, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"first", "enter")
        await pilot.press("alt+up")
        assert await wait_for(pilot, lambda: app.editor.text == "first")
        release.set()
        assert await wait_for(pilot, lambda: app.session is not None)
        await workers_done(pilot)  # the session started: anything queued would have been sent now
        await settle(pilot, app.session)  # and its run would have asked the model
        assert provider.requests == []  # nothing was sent behind the user's back


async def test_one_enter_runs_a_slash_command_while_its_menu_shows(provider, session):
    app = PiApp(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/sessio")
        await workers_done(pilot)
        assert app.menu.is_open and app.menu.kind == "slash"
        await pilot.press("enter")
        await workers_done(pilot)
        assert app.editor.text == ""
        assert f"ID:       {session.session_id}" in screen_text(app)
        assert provider.requests == []  # run as a command, not sent to the model


async def test_keys_typed_right_after_enter_start_the_next_message(provider, session):
    provider.push(scripted_text("Got it."))
    app = PiApp(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        # Key events queued together, as when they arrive in one read from the terminal.
        for key in (*"abc", "enter", *"def"):
            app.editor.post_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot, session)
        assert user_texts(provider, 0) == ["abc"]
        assert app.editor.text == "def"


async def test_enter_typed_before_the_menu_caught_up_runs_what_was_typed(provider, session):
    """Seen in tmux: "/mcp logout notes" typed at once ran "/model cp logout notes". The menu still
    showed the candidates of "/m" (the app had not yet handled the editor's change messages) and
    Enter accepted "/model" over the first two characters."""
    app = PiApp(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("/", "m")
        await workers_done(pilot)
        assert app.menu.is_open and app.menu.selected().value == "/model"
        for key in (*"cp", "space", *"xyz"):  # one read from the terminal: handled before the app catches up
            app.editor.post_message(events.Key(key, " " if key == "space" else key))
        app.editor.post_message(events.Key("enter", "\r"))
        await settle(pilot, session)
        assert "Unknown model" not in screen_text(app)
        assert "No MCP servers configured" in screen_text(app)  # /mcp ran, as typed
        assert provider.requests == []
