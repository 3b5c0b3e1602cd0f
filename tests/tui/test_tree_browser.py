"""Pilot tests: the /tree browser and the "Summarize branch?" prompt on a real AgentSession.

The session is branched the way a user does it: prompt, prompt again, go back with
``navigate_tree``, prompt once more. Screens are shown in ``NavHostApp`` (Pi's themes and keymap).
"""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text
from pi_tui.screenshots.nav_scenes import SIZE, make_scene
from pi_tui.tree.nav_host import NavHostApp
from pi_tui.tree.summarize_prompt import SummarizePrompt
from pi_tui.tree.tree_browser import TreeBrowser

from .conftest import screen_text


async def branched(session, provider) -> dict[str, str]:
    provider.push(scripted_text("First answer"), scripted_text("Second answer"), scripted_text("Other answer"))
    await session.prompt("first question")
    await session.prompt("second question")
    sm = session.session_manager
    users = [e for e in sm.raw_entries() if e.get("type") == "message" and e["message"]["role"] == "user"]
    second = users[1]["id"]
    result = await session.navigate_tree(second)  # a user message: back to its parent, text to the editor
    assert result.editor_text == "second question"
    await session.prompt("another question")
    assistants = [e["id"] for e in sm.raw_entries()
                  if e.get("type") == "message" and e["message"]["role"] == "assistant"]
    return {"first_user": users[0]["id"], "second_user": second, "first_answer": assistants[0],
            "leaf": sm.leaf_id}


async def test_open_move_filter_label_select(session, provider):
    ids = await branched(session, provider)
    app = NavHostApp(lambda: TreeBrowser(session), exit_on_dismiss=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TreeBrowser)
        text = screen_text(app)
        assert "user: first question" in text and "├─ user: second question" in text
        assert "└─ user: another question" in text and "← current" in text
        assert screen.tree_rows.current_id == ids["leaf"]
        total = len(screen.tree_rows.visible)
        assert f"{total}/{total}" in text

        await pilot.press("up", "up")
        assert screen.tree_rows.counter() == f"{total - 2}/{total}"

        await pilot.press("ctrl+u")  # user messages only
        assert screen.tree_rows.filter == "user-only"
        assert all(screen.tree_rows.rows[r].kind == "user" for r in screen.tree_rows.visible)
        assert "assistant:" not in screen_text(app)
        await pilot.press("ctrl+d")
        assert screen.tree_rows.filter == "default"

        # Type to search, then label the match with Shift+L (the terminal sends "L").
        await pilot.press(*"second")
        assert screen.tree_rows.query == "second"
        shown = [screen.tree_rows.rows[r].text for r in screen.tree_rows.visible]
        assert shown == ["user: second question", "assistant: Second answer"]
        await pilot.press("home")
        target = screen.tree_rows.current_id
        assert target == ids["second_user"]
        await pilot.press("L")
        await pilot.pause()
        await pilot.press(*"checkpoint", "enter")
        await pilot.pause()
        assert session.session_manager.get_label(target) == "checkpoint"
        assert "[checkpoint]" in screen_text(app)

        await pilot.press("T")  # label timestamps on
        assert screen.show_label_times
        await pilot.press("escape")  # first Esc clears the search
        assert screen.tree_rows.query == "" and app.screen is screen

        await pilot.press("home", "down", "enter")  # the first row is the system message, as in Pi
        await pilot.pause()
        assert app.results == [ids["first_user"]]
        chosen = app.results[-1]
    # The caller then moves the leaf there.
    result = await session.navigate_tree(chosen)
    assert result.to_wire() == {"cancelled": False, "editorText": "first question", "summaryEntryId": None}


async def test_escape_closes_with_none(session, provider):
    await branched(session, provider)
    app = NavHostApp(lambda: TreeBrowser(session), exit_on_dismiss=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


async def test_fold_with_ctrl_left(session, provider):
    ids = await branched(session, provider)
    app = NavHostApp(lambda: TreeBrowser(session), exit_on_dismiss=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        tree = screen.tree_rows
        tree.go_to_row(tree.row_of[ids["second_user"]])
        screen._sync(full=False)
        before = len(tree.visible)
        await pilot.press("ctrl+left")
        assert len(tree.visible) == before - 1 and "▸" in screen_text(app)
        await pilot.press("ctrl+right")
        assert len(tree.visible) == before


async def test_summarize_prompt_choices():
    for keys, expected in ((["enter"], False), (["down", "enter"], True),
                           (["down", "down", "enter", *"focus on tests", "enter"], "focus on tests"),
                           (["escape"], None)):
        app = NavHostApp(SummarizePrompt, exit_on_dismiss=False)
        async with app.run_test(size=(80, 20)) as pilot:
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()
            assert app.results == [expected], keys


def test_tree_snapshot(snap_compare, tmp_path):
    app, prepare = make_scene("tree", tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=prepare)
