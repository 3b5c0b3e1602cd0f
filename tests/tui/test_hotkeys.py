"""/hotkeys says what each key really does: keys the main view takes before the editor are shown
under the action that gets them, never under an editor action they cannot reach."""

from __future__ import annotations

import json

from rich.console import Console

from pi_tui.dialogs.hotkeys_screen import hotkey_table
from pi_tui.keys.keymap import load_keymap
from pi_tui.launch import create_app

from .test_commands_models import type_command


def rows(keymap) -> dict[str, str]:
    """Action id -> the rendered row (keys and description), from the table /hotkeys shows."""
    console = Console(width=240, record=True, color_system=None)
    console.print(hotkey_table(keymap))
    out = {}
    for line in console.export_text().splitlines():
        parts = line.split()
        if parts and "." in parts[-1]:
            out[parts[-1]] = " ".join(parts[:-1])
    return out


def test_ctrl_f_is_the_editors_cursor_right_as_in_pi(tmp_path):
    table = rows(load_keymap(tmp_path / "none.json"))
    assert table["pi.search"].startswith("alt+s ")
    assert table["tui.editor.cursorRight"].startswith("right, ctrl+f ")
    assert "is taken by" not in table["tui.editor.cursorRight"]


def test_binding_search_to_ctrl_f_takes_it_from_the_editor(tmp_path):
    user = tmp_path / "keybindings.json"
    user.write_text(json.dumps({"pi.search": "ctrl+f"}))
    table = rows(load_keymap(user))
    assert table["tui.editor.cursorRight"].startswith("right ")
    assert "ctrl+f is taken by: Search the transcript" in table["tui.editor.cursorRight"]
    assert table["pi.search"].startswith("ctrl+f *")


async def test_ctrl_f_does_what_hotkeys_says(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        app.editor.set_text("ab")
        app.editor.move_cursor((0, 0))
        await pilot.press("ctrl+f")
        assert app.editor.cursor_location == (0, 1)  # cursor right, no search bar
        await type_command(pilot, "/hotkeys")
        assert "ctrl+f is taken by" not in str(app.screen.query_one("#hotkeys-table").render())


async def test_hotkeys_uses_the_width_and_cuts_no_key_or_id(session, agent_dir):
    from .conftest import screen_text

    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 60)) as pilot:
        await type_command(pilot, "/hotkeys")
        box = app.screen.query_one("#picker")
        assert box.size.width >= 114  # the terminal's width, not a 90-column box
        text = screen_text(app)
        scroll = app.screen.query_one("#hotkeys-scroll")
        while scroll.scroll_y < scroll.max_scroll_y:  # the rest of the list, page by page
            await pilot.press("pagedown")
            await pilot.pause()
            text += screen_text(app)
        for action_id, keys in app.keymap.pi_keys.items():
            assert action_id in text, f"{action_id} is cut off"
            live = [k for k in keys if k not in app.keymap.shadowed_keys(action_id)]
            if live:
                assert ", ".join(live) in text, f"the keys of {action_id} are cut off"
