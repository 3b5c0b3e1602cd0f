"""Typing a search in the model picker over the whole catalogue redraws in one frame, as Pi does.

Each keystroke refilters at once (the echo and the new rows are one frame), asks for no layout of the
screen (a layout made the list's scrollbar repaint in a frame of its own), and a longer query only
looks again at what the shorter one matched. The scrollbar and the search field stay right anyway.
"""

from __future__ import annotations

import pytest
from textual.widget import Widget
from textual.widgets import Input

from pi_tui.dialogs.model_picker import ModelPicker
from pi_tui.dialogs.pick_rows import PickRows
from pi_tui.launch import create_app

from .conftest import caught_up, screen_text, wait_for
from .test_model_picker_catalog import every_key, session_with  # noqa: F401  (every_key: a fixture)

pytestmark = pytest.mark.usefixtures("every_key")  # every provider has a key: the whole catalogue


@pytest.fixture
def layouts(monkeypatch) -> list[Widget]:
    """The widgets that asked for a layout pass (Textual's ``Widget.refresh(layout=True)``) from now on."""
    seen: list[Widget] = []
    original = Widget.refresh

    def recording(self, *regions, repaint=True, layout=False, recompose=False):
        if layout:
            seen.append(self)
        return original(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    monkeypatch.setattr(Widget, "refresh", recording)
    return seen


async def open_picker(pilot) -> ModelPicker:
    await pilot.press("ctrl+l")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModelPicker))
    await caught_up(pilot)
    return pilot.app.screen


async def test_a_search_keystroke_refills_at_once_without_a_layout(agent_dir, workdir, layouts):
    app = create_app(session_with(agent_dir, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        picker = await open_picker(pilot)
        rows = picker.query_one(PickRows)
        layouts.clear()
        search = picker.query_one(Input)
        search.insert_text_at_cursor("c")  # what a typed key does
        assert picker.filtered_for == "c"  # refilled before anything else runs: one frame for both
        await pilot.press(*"laude")
        await caught_up(pilot)
        assert picker.filtered_for == "claude" and 20 < rows.count < 1000
        assert layouts == []
        bar = rows.vertical_scrollbar
        assert rows.show_vertical_scrollbar and bar.window_virtual_size == rows.count == rows.virtual_size.height
        assert rows.max_scroll_y == rows.count - rows.scrollable_content_region.height
        await pilot.press(*["backspace"] * 6)
        await caught_up(pilot)
        assert bar.window_virtual_size == rows.count == len(picker.shown) > 1700


async def test_a_search_that_leaves_few_rows_shrinks_the_list_and_drops_its_scrollbar(agent_dir, workdir):
    app = create_app(session_with(agent_dir, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        picker = await open_picker(pilot)
        rows = picker.query_one(PickRows)
        full = rows.size.height
        await pilot.press(*"claude-opus-4-6")  # 14 rows with their provider headers
        assert await wait_for(pilot, lambda: 0 < rows.count < full and rows.size.height == rows.count)
        assert not rows.show_vertical_scrollbar
        await pilot.press(*["backspace"] * 15)
        assert await wait_for(pilot, lambda: rows.show_vertical_scrollbar and rows.size.height == full)
        assert rows.vertical_scrollbar.window_virtual_size == rows.count


async def test_a_search_longer_than_its_field_keeps_the_cursor_in_view(agent_dir, workdir):
    app = create_app(session_with(agent_dir, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(60, 30)) as pilot:
        picker = await open_picker(pilot)
        search = picker.query_one(Input)
        typed = "a" * 70 + "xyz"
        await pilot.press(*typed)
        await caught_up(pilot)
        assert search.value == typed and search.scroll_offset.x > 0
        assert "aaaxyz" in screen_text(app)  # the end of what was typed is what the field shows
        await pilot.press(*["backspace"] * len(typed))
        await caught_up(pilot)
        assert search.value == "" and search.scroll_offset.x == 0
        assert "type to search models" in screen_text(app)  # the placeholder, from its start


async def test_narrowing_a_search_finds_what_a_fresh_search_finds(agent_dir, workdir):
    app = create_app(session_with(agent_dir, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        picker = await open_picker(pilot)
        for query in ["g", "gp", "gpt", "gpt ", "gpt 5", "gpt 5 m", "gpt 5 mi", "gpt 5", "o", "op4", "op4 ", "op4 6"]:
            narrowed = picker.matching(query)
            picker._narrowed = None  # a search from scratch
            assert picker.matching(query) == narrowed, query
            picker.matching(query)
        assert picker.matching("gpt 5 mi") and not picker.matching("gpt 5 mi qqq")


async def test_opening_the_picker_again_lays_nothing_out(agent_dir, workdir, layouts):
    # Its list's scrollbar is styled when the list mounts: styled only when the picker's screen came
    # back, the second opening gave it all its rules at once, a layout pass and a frame more.
    app = create_app(session_with(agent_dir, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        picker = await open_picker(pilot)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ModelPicker))
        layouts.clear()
        assert await open_picker(pilot) is picker
        assert [w for w in layouts if w.screen is picker] == []
