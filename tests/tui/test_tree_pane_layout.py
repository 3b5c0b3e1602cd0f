"""What the tree pane and the transcript leave in sight (issue #37): the floating pane at 80
columns, the selected row after a search is cleared, deep rows in a narrow pane, and the
"Jump to latest" label beside (not over) the last line being read."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.launch import create_app

from .conftest import screen_text, wait_for


async def open_pane(pilot, *, focus: bool = True):
    app = pilot.app
    await pilot.press("alt+t")
    assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.tree_pane.pane.is_mounted)
    if focus:
        await pilot.press("alt+t")
        assert app.focused is app.tree_pane.pane.list
    return app.tree_pane.pane


async def test_the_floating_pane_leaves_half_of_an_80_column_terminal(session, provider):
    provider.push(scripted_text("An answer"))
    await session.prompt("a question")
    app = create_app(session, static=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await session.wait_for_idle()
        pane = await open_pane(pilot, focus=False)
        assert await wait_for(pilot, lambda: pane.has_class("-overlay") and pane.size.width > 0)
        assert pane.outer_size.width <= 40  # two thirds (53 columns) hid most of the conversation
        await pilot.press("alt+t", "shift+left", "shift+left", "shift+left")  # wider: still at most half
        assert await wait_for(pilot, lambda: app.tree_pane.width <= 40)


async def test_the_selected_row_is_in_sight_after_esc_clears_a_search(session, provider):
    for i in range(40):
        provider.push(scripted_text(f"answer {i}"))
        await session.prompt(f"question {i}")
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await session.wait_for_idle()
        pane = await open_pane(pilot)
        await pilot.press(*"question 3", "up", "up")  # a row near the end of the full list
        await pilot.press("escape")
        listing = pane.list
        assert pane.live.rows.query == "" and listing.cursor > listing.scrollable_content_region.height

        def in_sight() -> bool:
            top = int(listing.scroll_offset.y)
            return top <= listing.cursor < top + listing.scrollable_content_region.height

        assert await wait_for(pilot, in_sight)


async def test_deep_rows_pan_so_the_selected_text_can_be_read(session, provider):
    for i in range(14):  # a branch at every answer: each level indents the next
        provider.push(scripted_text(f"answer a{i}"), scripted_text(f"answer b{i}"))
        await session.prompt(f"question a{i}")
        keep = session.session_manager.leaf_id
        await session.prompt(f"question b{i}")
        await session.navigate_tree(keep)
    provider.push(scripted_text("deepest answer"))
    await session.prompt("the deepest question")
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await session.wait_for_idle()
        pane = await open_pane(pilot)
        app.tree_pane.width = 45
        app.tree_pane._laid_out_for = -1
        app.tree_pane.layout()
        assert await wait_for(pilot, lambda: pane.size.width <= 45)
        assert max(len(row.guide) for row in pane.live.rows.rows) > 40  # deeper than the pane is wide
        assert await wait_for(pilot, lambda: "› assistant: deepest" in screen_text(app))


async def test_the_jump_label_takes_its_own_row(session, provider):
    for i in range(30):
        provider.push(scripted_text(f"answer number {i}"))
        await session.prompt(f"question number {i}")
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 24)) as pilot:
        await session.wait_for_idle()
        await pilot.press("pageup")
        label = app.jump_hint
        assert await wait_for(pilot, lambda: label.display and label.region.height == 1)
        transcript = app.transcript
        assert await wait_for(pilot, lambda: label.region.y >= transcript.region.bottom)
        await pilot.press("ctrl+end")
        assert await wait_for(pilot, lambda: not label.display and transcript.styles.margin.bottom == 0)
