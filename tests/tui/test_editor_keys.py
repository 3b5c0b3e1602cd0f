"""The prompt editor's keys are Pi's, by id: emacs motions, kills and yanks, jumps, undo, and the
user's keybindings.json applied to them."""

from __future__ import annotations

import json

from pi_tui.editor.kill_ring import KillRing
from pi_tui.launch import create_app


async def test_emacs_motions_and_kills_with_yank(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        editor = app.editor
        editor.set_text("first line\nsecond line")
        editor.move_cursor((0, 0))
        await pilot.press("ctrl+e")
        assert editor.cursor_location == (0, 10)
        await pilot.press("ctrl+a", "ctrl+k", "ctrl+k")  # the line, then its line break: one kill
        assert editor.text == "second line"
        await pilot.press("ctrl+e", "ctrl+y")
        assert editor.text == "second linefirst line\n"
        await pilot.press("ctrl+w")  # back from the start of a line: the line break goes
        assert editor.text == "second linefirst line"
        await pilot.press("alt+b")
        assert editor.cursor_location == (0, 17)


async def test_yank_pop_cycles_through_earlier_kills(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        editor = app.editor
        editor.set_text("alpha beta")
        await pilot.press("ctrl+w")  # "beta"
        await pilot.press("ctrl+a", "right")  # move: the next kill is a new entry
        await pilot.press("ctrl+k")  # "lpha "
        assert editor.text == "a"
        await pilot.press("ctrl+y")
        assert editor.text == "alpha "
        await pilot.press("alt+y")
        assert editor.text == "abeta"


async def test_jump_forward_moves_to_the_next_character_typed(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        editor = app.editor
        editor.set_text("find the x here")
        editor.move_cursor((0, 0))
        await pilot.press("ctrl+right_square_bracket", "x")
        assert editor.cursor_location == (0, 9)
        assert editor.text == "find the x here"  # the x was a target, not typed


async def test_keybindings_json_rebinds_an_editor_action(session, agent_dir):
    (agent_dir / "keybindings.json").write_text(json.dumps({"tui.editor.cursorLineStart": "alt+a"}))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        editor = app.editor
        editor.set_text("some text")
        await pilot.press("alt+a")
        assert editor.cursor_location == (0, 0)
        editor.move_cursor((0, 4))
        await pilot.press("ctrl+a")  # no longer bound
        assert editor.cursor_location == (0, 4)


async def test_keys_that_arrive_together_apply_in_order(session, agent_dir):
    # One read from the terminal (a fast typist, tmux, a macro) is posted as several keys at
    # once. Textual ran the editor's bindings only after the key bubbled up to the app, behind
    # the keys already handed to the editor: "abc", Home, "X" gave "abcX".
    from textual import events

    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        keys = [*"abc def", "home", "X", "end", "Y", "alt+left", "Z", "ctrl+w"]
        for key in keys:  # posted as the driver posts one read's keys: no pause between them
            character = key if len(key) == 1 else None
            app.post_message(events.Key(key if len(key) > 1 else ("space" if key == " " else key), character))
        await pilot.pause()
        assert app.editor.text == "Xabc defY"  # Pi's result ("Z" then Ctrl+W took back "Z")


def test_kills_in_a_row_join_in_text_order():
    ring = KillRing()
    ring.kill("world", backward=False, continues=False)
    ring.kill("!", backward=False, continues=True)
    ring.kill("hello ", backward=True, continues=True)
    assert ring.yank() == "hello world!"
    assert ring.yank_pop() == "hello world!"  # one entry: popping comes round to it
    ring.other_key()
    assert ring.yank_pop() is None
