"""Pi's editor keys reach the editor (issue #37): Ctrl+F moves the cursor right and Alt+D deletes
the word after it, as in Pi; transcript search moved to Alt+S. A free Alt key types nothing."""

from __future__ import annotations

from pi_tui.launch import create_app
from pi_tui.transcript.search_bar import SearchBar

from .conftest import wait_for


async def test_ctrl_f_alt_d_and_alt_s(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hello big world", "home", "ctrl+f", "alt+d")
        assert app.editor.text == "h big world"
        await pilot.press("alt+j")  # bound to nothing: no "j" typed
        assert app.editor.text == "h big world"
        await pilot.press("alt+s")
        assert await wait_for(pilot, lambda: bool(app.query(SearchBar)) and app.query_one(SearchBar).display)
