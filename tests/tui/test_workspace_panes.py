"""The panes and the tabs together: the tree pane and the queue pane follow the session shown,
whatever tab the user switches to, closes or comes back to (each part has its own tests; these
are the combinations a user meets once several sessions are open)."""

from __future__ import annotations

import time

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.queue.queue_row import QueueRow
from pi_tui.tree.branch_preview import BranchPreview

from .conftest import screen_text, settle, wait_for
from .test_queue_pane import held, queue_shape, start_and_queue
from .test_session_tabs import held_app, open_second, type_and_send
from .test_tree_pane import open_pane, two_turns


async def test_tree_pane_follows_the_tab_shown_and_keeps_each_tabs_rows(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        first_live = pane.live
        assert "user: first question" in screen_text(app)
        await pilot.press("f6", "f6")  # back to the editor
        await open_second(pilot)
        second = app.session
        assert await wait_for(pilot, lambda: "user: first question" not in screen_text(app))
        assert app.tree_pane.pane.live.session is second
        provider.push(scripted_text("Tab two answer"))
        await type_and_send(pilot, "question in tab two")
        await settle(pilot, second)
        assert await wait_for(pilot, lambda: "user: question in tab two" in screen_text(app))

        await pilot.press("alt+pageup")  # back to tab 1: its rows, not rebuilt
        assert await wait_for(pilot, lambda: "user: first question" in screen_text(app))
        assert "user: question in tab two" not in screen_text(app)
        assert app.tree_pane.pane.live is first_live and first_live.rebuilds == 1

        await type_and_send(pilot, "/close")  # tab 1 closes: the pane shows tab 2's tree
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 1)
        assert await wait_for(pilot, lambda: "user: question in tab two" in screen_text(app))
        assert "user: first question" not in screen_text(app)
        assert app.tree_pane.pane.live.session is second


async def test_a_preview_ends_when_another_tab_is_shown(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        await open_pane(pilot)
        await pilot.press("up", "up")  # rest on the first question: its path is previewed
        assert await wait_for(pilot, lambda: app.tree_pane.previewing)
        first_transcript = app.transcript
        await pilot.press("f6", "f6")
        await open_second(pilot)
        await pilot.pause()
        previews = [p for p in app.query(BranchPreview) if p.display]
        assert not previews, "tab 1's preview stays on screen beside tab 2's transcript"
        assert app.transcript.display and not first_transcript.display
        assert "PREVIEW of" not in screen_text(app)
        await pilot.press("alt+pageup")  # tab 1 again: its live conversation, no stale preview
        await pilot.pause()
        assert app.transcript is first_transcript and first_transcript.display
        assert not any(p.display for p in app.query(BranchPreview))


async def test_an_open_queue_edit_is_saved_into_its_own_session_when_the_tab_changes(provider, workdir):
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["steer A"])
        await pilot.press("alt+q", "enter")
        assert await wait_for(pilot, lambda: app.queue_view.editing is not None)
        await pilot.press(*" edited")
        await type_and_send_via_keys(pilot)
        second = app.session
        assert second is not session
        await pilot.pause()
        assert app.queue_view.editing is None
        assert queue_shape(session) == [("steer", "steer A edited")]  # saved where it was typed
        assert app.editor.text == ""  # nothing of tab 1's edit in tab 2's editor
        assert not app.query(QueueRow) or not app.queue_view.display
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is session)
        assert await wait_for(pilot, lambda: "steer A edited" in screen_text(app))
        hold.release.set()


async def type_and_send_via_keys(pilot) -> None:
    """Alt+N opens a tab while the queue edit has the keys."""
    app = pilot.app
    await pilot.press("alt+n")
    assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 2 and app.workspace.active is not None
                          and app.workspace.active.number == 2)


async def test_esc_in_the_tree_pane_never_aborts_the_run(provider, workdir):
    """Esc ends the preview and goes back to the editor at once (as in the queue pane): a user
    tapping Esc twice to leave a preview must not stop the agent. From the editor Esc aborts as ever."""
    app, hold = await held_app(provider, workdir)  # its tool stops when the run is aborted
    session = app.session
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press(*"start", "enter")
        assert await wait_for(pilot, hold.started.is_set, 10)
        pane = await open_pane(pilot)
        await pilot.press("up")
        assert await wait_for(pilot, lambda: app.tree_pane.previewing)
        await pilot.press("escape")  # the preview ends, the editor has the keys again
        assert await wait_for(pilot, lambda: not app.tree_pane.previewing)
        await pilot.pause()
        assert session.is_streaming and not hold.release.is_set()
        assert app.focused is app.editor and pane.is_mounted
        await pilot.press("escape")  # Esc in the editor keeps its meaning
        assert await wait_for(pilot, lambda: not session.is_streaming)


async def test_typing_right_after_esc_in_the_queue_list_goes_to_the_editor(provider, workdir):
    """Esc then typing at once, in one burst: every key lands in the editor, none in the list
    (``e`` there would start an edit, ``d`` delete a message)."""
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["steer A"])
        burst(app, "alt+q", "d", "t")  # straight into the list: the keys are the list's
        assert await wait_for(pilot, lambda: queue_shape(session) == [])
        assert await wait_for(pilot, lambda: app.editor.text == "t"), (app.editor.text, app.focused)  # the list emptied: back to the editor
        app.editor.load_text("steer A")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: queue_shape(session) == [("steer", "steer A")])
        burst(app, "alt+q", "e", *"t2", "enter", "escape", *"/settings deleted")
        assert await wait_for(pilot, lambda: app.editor.text == "/settings deleted"), (app.editor.text, queue_shape(session), app.focused)
        assert app.queue_view.editing is None and queue_shape(session) == [("steer", "steer At2")]
        hold.release.set()


def burst(app, *keys: str) -> None:
    """Keys as a terminal sends them when typed fast: all queued before the first is handled."""
    from textual import events

    for key in keys:
        character = key if len(key) == 1 else "\r" if key == "enter" else None
        app.post_message(events.Key(key, character))


async def test_the_footers_working_time_is_the_shown_sessions(provider, workdir):
    """Switching to a tab that has been working a while shows how long it has been working, not
    the time since the switch (nor the other tab's)."""
    app, hold = await held_app(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "first task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        assert not app.footer_bar.working  # the second tab is idle
        switched_at = time.monotonic()
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.workspace.active.number == 1)
        assert app.footer_bar.working and app.footer_bar._started < switched_at  # counted from the run's start
        hold.release.set()


async def test_a_preview_names_rows_with_brackets_as_they_are(session, provider):
    """The preview banner shows the row's text verbatim: ``[system]`` or a message with brackets is
    not taken as markup (a ``[/x]`` in a message must not break the app)."""
    provider.push(scripted_text("noted"), scripted_text("done"))
    await session.prompt("fix [/x] and [bold]this[/bold]")
    await session.prompt("second")
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        await pilot.press("home")  # the system message
        assert await wait_for(pilot, lambda: app.tree_pane.previewing)
        assert "PREVIEW of [system]" in screen_text(app)
        await pilot.press("down")  # the message with brackets
        assert await wait_for(pilot, lambda: "PREVIEW of user: fix [/x] and [bold]this[/bold]" in screen_text(app))
        await pilot.press(*"[/x]")  # searched for, as typed
        assert await wait_for(pilot, lambda: "search: [/x]" in screen_text(app))
        assert pane.is_mounted and pane.live.rows.query == "[/x]"


async def test_searching_for_brackets_in_tree_and_resume_shows_them(session, provider):
    """``/tree`` and ``/resume`` show the search as typed: ``[/x]`` is text, not broken markup."""
    provider.push(scripted_text("noted"))
    await session.prompt("fix [/x] now")
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        for command in ("/tree", "/resume"):
            await type_and_send(pilot, command)
            assert await wait_for(pilot, lambda: len(app.screen_stack) > 1)
            await pilot.press(*"[/x]")
            assert await wait_for(pilot, lambda: "search: [/x]" in screen_text(app))
            await pilot.press("escape", "escape")
            assert await wait_for(pilot, lambda: len(app.screen_stack) == 1)
