"""Assistant messages that hold only tool calls, in ``/tree`` and the tree pane.

Pi 1.6's tree leaves them out in every filter mode (the tool results below them name the
calls), except an error or aborted one and the current leaf, which is always shown so the
``← current`` marker sits where the session is. Real ``AgentSession`` on the scripted provider,
the app built as the CLI builds it.
"""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText, scripted_text, scripted_tool_call
from pi_tui.launch import create_app
from pi_tui.tree.live_tree import LiveTree
from pi_tui.tree.tree_browser import TreeBrowser
from pi_tui.tree.tree_rows import FILTERS, TreeRows

from .conftest import screen_text, settle, wait_for
from .test_tree_pane import open_pane

CALL_ROW = "assistant: → read(notes.md)"


async def a_turn_with_a_tool_call(session, provider) -> str:
    """``user → assistant(read call only) → read result → assistant text``; returns the call's entry id."""
    provider.push(scripted_tool_call("read", {"path": "notes.md"}, id="r1"), scripted_text("Nothing in there"))
    await session.prompt("look at my notes")
    [bare] = [e["id"] for e in session.session_manager.raw_entries()
              if e.get("type") == "message" and e["message"]["role"] == "assistant"
              and all(b["type"] == "toolCall" for b in e["message"]["content"])]
    return bare


def shown(tree: TreeRows) -> list[str]:
    return [tree.rows[r].text for r in tree.visible]


async def test_tree_browser_leaves_out_tool_call_only_answers_unless_they_are_the_leaf(session, provider):
    bare = await a_turn_with_a_tool_call(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot, session)
        app.editor.insert("/tree")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, TreeBrowser))
        await pilot.pause()
        tree = app.screen.tree_rows
        text = screen_text(app)
        assert "user: look at my notes" in text and "assistant: Nothing in there" in text
        assert "read(notes.md) ✗" in text  # the result row is there and names the call, as in Pi
        assert CALL_ROW not in text
        for mode in FILTERS:  # in every filter mode, as in Pi
            tree.set_filter(mode)
            assert CALL_ROW not in shown(tree), mode
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, TreeBrowser))

        await session.navigate_tree(bare)  # the session now ends at the tool call
        app.editor.clear()
        app.editor.insert("/tree")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, TreeBrowser))
        await pilot.pause()
        tree = app.screen.tree_rows
        assert tree.current_id == bare
        lines = [line for line in screen_text(app).splitlines() if CALL_ROW in line]
        assert len(lines) == 1 and "← current" in lines[0]


async def test_tree_pane_hides_the_call_once_the_session_moves_past_it(session, provider):
    bare = await a_turn_with_a_tool_call(session, provider)
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot, session)
        await open_pane(pilot)
        pane = app.tree_pane.pane
        text = screen_text(app)
        assert "user: look at my notes" in text and "read(notes.md) ✗" in text and CALL_ROW not in text

        await session.navigate_tree(bare)  # the leaf is the call: it is shown, marked current
        assert await wait_for(pilot, lambda: CALL_ROW in screen_text(app))
        [line] = [line for line in screen_text(app).splitlines() if CALL_ROW in line]
        assert "← current" in line
        assert pane.live.rows.current_id == bare

        provider.push(scripted_text("Moved on"))
        await session.prompt("and now?")  # the leaf moves on: the call row goes again
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "assistant: Moved on" in screen_text(app))
        assert CALL_ROW not in screen_text(app)


async def test_live_rows_show_the_call_only_while_it_is_the_leaf(session, provider):
    """After every message of a tool-calling turn, the rows kept current equal the rows built afresh."""
    live = LiveTree(session)
    seen_call_as_leaf = []

    def check(event) -> None:
        if getattr(event, "type", "") != "message_end":
            return
        live.sync()
        sm = session.session_manager
        expected = TreeRows(sm.raw_entries(), sm.leaf_id)
        assert shown(live.rows) == shown(expected)
        assert live.rows.rows[live.rows.display_leaf()].entry_id == sm.leaf_id
        seen_call_as_leaf.append((event.message.role, CALL_ROW in shown(live.rows)))

    session.subscribe(check)
    provider.push(scripted_tool_call("read", {"path": "notes.md"}, id="r1"),
                  ScriptedResponse([ScriptedText("Nothing in there")]))
    await session.prompt("look at my notes")
    await session.wait_for_idle()
    # The call is shown while it is the leaf, and hidden once its result follows it.
    assert seen_call_as_leaf == [("system", False), ("user", False), ("assistant", True), ("toolResult", False),
                                 ("assistant", False)]
    assert CALL_ROW not in shown(live.rows)
