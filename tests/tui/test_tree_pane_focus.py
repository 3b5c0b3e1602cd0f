"""Where the keys go while the tree pane is open (issue #37): opening it leaves them in the
editor, the user moves into the pane on purpose (Alt+T on the open pane, F6, a click), a chosen
row and Esc give them back, and the pane says plainly whether it has them."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app
from pi_tui.tree.summarize_prompt import SummarizePrompt
from pi_tui.tree.tree_pane import TreePane

from .conftest import screen_text, wait_for


async def two_turns(session, provider) -> list[str]:
    provider.push(scripted_text("First answer"), scripted_text("Second answer"))
    await session.prompt("first question")
    await session.prompt("second question")
    return [e["id"] for e in session.session_manager.raw_entries()
            if e.get("type") == "message" and e["message"]["role"] == "user"]


def title(app) -> str:
    return str(app.query_one("#tree-pane-title").render())


async def test_opening_the_pane_leaves_the_keys_in_the_editor(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await session.wait_for_idle()
        await pilot.press("alt+t")
        assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.tree_pane.pane.is_mounted)
        pane = app.tree_pane.pane
        assert app.focused is app.editor
        await pilot.press(*"hello", "ctrl+u", *"next")  # Ctrl+U is the editor's, not the pane's filter
        assert app.editor.text == "next"
        assert pane.live.rows.query == "" and pane.live.rows.filter == "default"
        assert await wait_for(pilot, lambda: "move here" in screen_text(app))  # how to get in
        assert "keys here" not in title(app)
        await pilot.press("alt+t")  # on the open pane: into it
        assert app.focused is pane.list
        assert await wait_for(pilot, lambda: "keys here" in title(app))
        await pilot.press("ctrl+u")
        assert pane.live.rows.filter == "user-only"
        await pilot.press("alt+t")  # from inside: closes it
        assert await wait_for(pilot, lambda: not app.query(TreePane))
        assert app.focused is app.editor and app.editor.text == "next"


async def test_pane_command_opens_it_without_the_focus(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await session.wait_for_idle()
        await pilot.press(*"/pane tree", "enter", *"typed on")
        assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.editor.text == "typed on")
        assert app.tree_pane.pane.live.rows.query == ""
        await pilot.press("f6")
        assert app.focused is app.tree_pane.pane.list


async def test_a_chosen_row_gives_the_keys_back_to_the_editor(session, provider):
    users = await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await session.wait_for_idle()
        await pilot.press("alt+t")
        assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.tree_pane.pane.is_mounted)
        await pilot.press("alt+t")
        pane = app.tree_pane.pane
        await pilot.press("home", "down")
        assert pane.live.rows.current_id == users[0]
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SummarizePrompt))
        await pilot.press("enter")  # "No summary"
        assert await wait_for(pilot, lambda: app.editor.text == "first question")
        assert app.focused is app.editor
        await pilot.press(*" again")
        assert app.editor.text == "first question again" and pane.live.rows.query == ""


async def test_esc_clears_a_search_then_leaves_preview_and_pane_at_once(session, provider):
    users = await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await session.wait_for_idle()
        await pilot.press("alt+t")
        assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.tree_pane.pane.is_mounted)
        await pilot.press("alt+t")
        pane = app.tree_pane.pane
        await pilot.press(*"first")
        assert pane.live.rows.query == "first"
        await pilot.press("escape")  # the search goes, the keys stay in the pane
        assert pane.live.rows.query == "" and app.focused is pane.list
        while pane.live.rows.current_id != users[0]:
            await pilot.press("up")
        assert await wait_for(pilot, lambda: app.tree_pane.previewing)
        await pilot.press("escape")  # the live conversation and the editor, in one press
        assert not app.tree_pane.previewing and app.transcript.display
        assert app.focused is app.editor
        await pilot.press(*"typed")
        assert app.editor.text == "typed" and not session.is_streaming


async def test_shift_letters_sent_as_extended_keys_reach_the_pane_actions(session, provider):
    from textual import events
    from textual._xterm_parser import XTermParser

    from pi_tui.terminal import extended_keys

    extended_keys.install()
    parser = XTermParser()
    # tmux with extended-keys on sends Shift+L as csi-u naming the unshifted key (108 = "l").
    keys = [(e.key, e.character) for e in parser.feed("\x1b[108;2u\x1b[102;2u\x1b[99;2u")
            if isinstance(e, events.Key)]
    assert keys == [("L", "L"), ("F", "F"), ("C", "C")]

    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await session.wait_for_idle()
        await pilot.press("alt+t")
        assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.tree_pane.pane.is_mounted)
        await pilot.press("alt+t")
        await pilot.press(keys[0][0])
        assert await wait_for(pilot, lambda: "Label for" in screen_text(app))
        assert app.tree_pane.pane.live.rows.query == ""
