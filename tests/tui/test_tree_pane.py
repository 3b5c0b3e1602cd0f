"""The tree pane (``/pane tree``), driven the way a user meets it: keys, clicks, resizes, a turn
streaming while it is open, previews and moves in the tree. Real ``AgentSession`` on the
scripted provider, the app built as the CLI builds it."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText, scripted_text, scripted_tool_call
from pi_tui.launch import create_app
from pi_tui.transcript.user_message import UserMessage
from pi_tui.tree.branch_preview import BranchPreview
from pi_tui.tree.summarize_prompt import SummarizePrompt
from pi_tui.tree.tree_pane import TreePane

from .conftest import screen_text, settle, wait_for


async def two_turns(session, provider) -> list[str]:
    provider.push(scripted_text("First answer"), scripted_text("Second answer"))
    await session.prompt("first question")
    await session.prompt("second question")
    return [e["id"] for e in session.session_manager.raw_entries()
            if e.get("type") == "message" and e["message"]["role"] == "user"]


async def open_pane(pilot) -> TreePane:
    app = pilot.app
    app.editor.insert("/pane tree")
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.tree_pane.pane.is_mounted)
    await pilot.pause()
    assert app.focused is app.editor  # opening leaves the keys in the editor (issue #37)
    await pilot.press("f6")  # the user moves into the pane
    return app.tree_pane.pane


async def test_pane_opens_beside_the_transcript_and_closes_keeping_the_draft(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        text = screen_text(app)
        assert "Session tree" in text and "user: first question" in text and "← current" in text
        assert app.focused is pane.list
        assert pane.region.x > app.transcript.region.right - 1  # docked beside, not over, the conversation
        assert not pane.has_class("-overlay")
        await pilot.press("f6")  # to the transcript, then the editor
        assert app.focused is app.transcript
        await pilot.press("f6")
        assert app.focused is app.editor
        await pilot.click("#transcript", offset=(10, 2))  # a click focuses the transcript; typing there goes to the editor
        assert app.focused is app.transcript
        await pilot.press("h")
        assert app.focused is app.editor and app.editor.text == "h"
        await pilot.press("backspace")
        await pilot.press(*"half a thought")
        await pilot.press("f6")  # to the pane: Alt+T there closes it too (it is not typing "t")
        assert app.focused is pane.list
        await pilot.press("alt+t")  # closes
        assert await wait_for(pilot, lambda: not app.query(TreePane))
        assert app.editor.text == "half a thought" and app.focused is app.editor
        assert pane.live.rows.query == ""
        provider.push(scripted_text("Third answer"))
        await session.prompt("third question")  # while the pane is closed
        await pilot.press("alt+t")  # opens again (the keys stay in the editor), the draft is still there
        assert await wait_for(pilot, lambda: app.tree_pane.is_open and app.focused is app.editor)
        assert app.editor.text == "half a thought"
        live = app.tree_pane.pane.live
        assert live is pane.live and live.rebuilds == 1  # the rows were kept and caught up
        assert "user: third question" in screen_text(app)
        assert live.rows.current_id == session.session_manager.leaf_id


async def test_rows_appear_while_a_turn_streams(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        await pilot.click("#editor")
        assert app.focused is app.editor
        provider.push(scripted_tool_call("read", {"path": "notes.md"}, id="r1"),
                      ScriptedResponse([ScriptedText("Streaming the third answer")], hang=True))
        await pilot.press(*"third question", "enter")
        # The user message and the tool call are in the tree while the answer is still streaming.
        assert await wait_for(pilot, lambda: "user: third question" in screen_text(app) and "read" in screen_text(app))
        assert session.is_streaming
        assert pane.live.rebuilds == 1  # each entry became one more row; nothing was flattened again
        assert pane.live.rows.current_id == session.session_manager.leaf_id  # the leaf marker follows
        await session.abort()
        await settle(pilot, session)


async def test_moving_previews_the_path_and_esc_brings_the_live_conversation_back(session, provider):
    users = await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        while pane.live.rows.current_id != users[0]:
            await pilot.press("up")
        assert await wait_for(pilot, lambda: app.tree_pane.previewing and app.tree_pane.preview.entry_id == users[0])
        preview = app.query_one(BranchPreview)
        assert not app.transcript.display
        text = screen_text(app)
        assert "PREVIEW of user: first question" in text and "esc: back to live" in text
        shown = [str(w.render()) for w in preview.query(UserMessage)]
        assert shown == ["first question"]  # the path up to the selected entry, nothing after it
        await pilot.press("escape")
        assert app.transcript.display and not preview.display
        assert pane.live.rows.current_id == session.session_manager.leaf_id
        assert not session.is_streaming  # Esc ended the preview; nothing else


async def test_enter_moves_there_after_the_summary_question(session, provider):
    users = await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        await pilot.press("home", "down")  # below the system message (the first row, as in Pi)
        assert pane.live.rows.current_id == users[0]
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SummarizePrompt))
        await pilot.press("enter")  # "No summary"
        # A user message: the leaf goes to its parent and its text comes back to the editor, as in /tree.
        assert await wait_for(pilot, lambda: app.editor.text == "first question")
        first_parent = session.session_manager.get_entry(users[0]).parent_id
        assert session.session_manager.leaf_id == first_parent
        assert await wait_for(pilot, lambda: pane.live.rows.leaf_row == pane.live.rows.row_of[first_parent])
        assert app.transcript.display  # the live (moved) conversation, not a preview


async def test_click_a_row_filters_and_search_take_the_trees_keys(session, provider):
    users = await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        await pilot.click("#editor")
        assert app.focused is app.editor
        first_row = pane.live.rows.visible.index(pane.live.rows.row_of[users[0]])
        await pilot.click(pane.list, offset=(6, first_row - int(pane.list.scroll_offset.y)))
        assert app.focused is pane.list and pane.live.rows.current_id == users[0]
        assert await wait_for(pilot, lambda: app.tree_pane.previewing)
        thinking_hidden = app.transcript.thinking_collapsed
        await pilot.press("ctrl+t")  # the tree's "no tools" filter here, not the app's thinking toggle
        assert pane.live.rows.filter == "no-tools" and app.transcript.thinking_collapsed == thinking_hidden
        await pilot.press("f12")  # a key nobody binds passes through the pane harmlessly
        await pilot.press("ctrl+u")
        assert all(pane.live.rows.rows[r].kind == "user" for r in pane.live.rows.visible)
        await pilot.press("ctrl+d", *"second")
        assert pane.live.rows.query == "second"
        assert [pane.live.rows.rows[r].text for r in pane.live.rows.visible] == [
            "user: second question", "assistant: Second answer"]
        await pilot.press("escape")  # clears the search first
        assert pane.live.rows.query == ""
        await pilot.press(*"zzz")  # no match, no selection: Esc goes back to the current leaf
        assert pane.live.rows.visible == []
        await pilot.press("escape")
        assert pane.live.rows.current_id == session.session_manager.leaf_id
        assert await wait_for(pilot, lambda: not app.tree_pane.previewing)
        assert app.editor.text == ""  # nothing typed in the pane reached the editor


async def test_narrow_terminal_floats_the_pane_and_width_keys_are_remembered(session, provider):
    await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        width = pane.region.width
        await pilot.press("shift+left")  # the edge moves left: wider
        await pilot.pause()
        assert pane.region.width == width + 4
        assert session.settings.get("treePaneWidth") == app.tree_pane.width == width + 4
        await pilot.press("shift+right")
        await pilot.pause()
        assert pane.region.width == width
        await pilot.resize_terminal(80, 24)
        assert await wait_for(pilot, lambda: pane.has_class("-overlay") and app.transcript.region.width == 80)
        text = screen_text(app)
        assert "Session tree" in text and "user: first question" in text
        await pilot.resize_terminal(120, 32)
        assert await wait_for(pilot, lambda: not pane.has_class("-overlay") and app.transcript.region.width < 80)


async def test_fork_and_clone_from_the_selected_row(session, provider):
    users = await two_turns(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        pane = await open_pane(pilot)
        second_answer = session.session_manager.leaf_id
        while pane.live.rows.current_id != users[1]:
            await pilot.press("up")
        await pilot.press("L")  # label it, as in /tree
        await pilot.pause()
        await pilot.press(*"try again", "enter")
        assert await wait_for(pilot, lambda: "[try again]" in screen_text(app))
        assert session.session_manager.get_label(users[1]) == "try again"
        assert pane.live.rebuilds == 1 and pane.live.rows.current_id == users[1]
        await pilot.press("F")  # fork before the second question: its text comes to the editor
        assert await wait_for(pilot, lambda: app.editor.text == "second question")
        texts = [pane.live.rows.rows[r].text for r in pane.live.rows.visible]
        assert await wait_for(pilot, lambda: "user: second question" not in
                              [pane.live.rows.rows[r].text for r in pane.live.rows.visible])
        assert "user: first question" in texts
        assert session.session_manager.get_entry(second_answer) is None  # another session now
        await pilot.press("home", "down", "C")  # clone the path up to the first question into a new session
        assert await wait_for(pilot, lambda: [m.role for m in session.messages if m.role != "system"] == ["user"])
        assert session.messages[-1].content[0].text == "first question"
        assert await wait_for(pilot, lambda: [pane.live.rows.rows[r].text for r in pane.live.rows.visible]
                              == ["[system]", "user: first question"])


async def test_hotkeys_lists_the_pane_keys(session, provider):
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot, session)
        app.editor.insert("/hotkeys")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: "app.pane.tree" in screen_text(app))
        [line] = [line for line in screen_text(app).splitlines() if "app.pane.tree" in line]
        assert "alt+t" in line and "Tree pane" in line
        from rich.console import Console

        from pi_tui.dialogs.hotkeys_screen import hotkey_table

        console = Console(width=160, record=True)
        console.print(hotkey_table(app.keymap))
        table = console.export_text()
        assert "Tree pane (pi: /pane tree)" in table
        for key, action_id in (("f6", "pi.pane.focus"), ("shift+left", "pi.pane.wider"), ("shift+f", "pi.pane.fork"),
                               ("shift+c", "pi.pane.clone")):
            [row] = [row for row in table.splitlines() if action_id in row]
            assert key in row
