"""The queue pane as a user meets it: queue messages while the agent works, move into the list by
key or click, edit in place, delete, reorder, re-kind, and the message delivered mid-edit.

The agent is held inside a tool call that waits on an event the test sets, so the messages stay
queued exactly as long as the test needs; what the model then received shows the queue's order.
"""

from __future__ import annotations

import asyncio
import json

from pi_runtime.agent.tool import AgentTool, ToolResult
from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.ai.types import TextContent
from pi_tui.launch import create_app
from pi_tui.queue.queue_edit_area import QueueEditArea
from pi_tui.queue.queue_row import QueueRow
from pi_tui.transcript.notice import Notice

from .conftest import make_session, screen_text, settle, wait_for, workers_done


class HoldTool(AgentTool):
    """Runs until the test releases it."""

    name = "hold"
    description = "Wait."

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def execute(self, call_id, params, signal, on_update):
        self.started.set()
        await self.release.wait()
        return ToolResult(content=[TextContent(text="held")])


def held(provider, workdir, *answers, agent_dir=None):
    """A session whose first run waits in the ``hold`` tool, and the app on it."""
    hold = HoldTool()
    session = make_session(provider, workdir, custom_tools=[hold])
    provider.push(scripted_tool_call("hold", {}), *(answers or [scripted_text("done")] * 4))
    app = create_app(session, static=True, **({"agent_dir": str(agent_dir)} if agent_dir else {}))
    return session, hold, app


def queue_shape(session) -> list[tuple[str, str]]:
    return [(item.kind, item.text) for item in session.queued_messages()]


def user_texts(provider, request: int) -> list[str]:
    context, _ = provider.requests[request]
    return [m.content if isinstance(m.content, str) else "".join(getattr(b, "text", "") for b in m.content)
            for m in context.messages if m.role == "user"]


async def start_and_queue(pilot, session, hold, steers=(), follow_ups=()) -> None:
    """Start the held run, then type each message into the editor and queue it (Enter / Alt+Enter)."""
    await pilot.press(*"start", "enter")
    assert await wait_for(pilot, hold.started.is_set, 10)
    for text, key in [(s, "enter") for s in steers] + [(f, "alt+enter") for f in follow_ups]:
        count = len(session.queued_messages())
        pilot.app.editor.insert(text)
        await pilot.press(key)
        assert await wait_for(pilot, lambda c=count: len(session.queued_messages()) == c + 1, 5)
    app = pilot.app
    assert await wait_for(pilot, lambda: len(app.query(QueueRow)) == len(steers) + len(follow_ups), 5)


def selected_text(app) -> str:
    return next(item.text for item in app.queue_view.items if item.id == app.queue_view.selected)


async def test_queue_list_by_key_select_reorder_rekind_delete_and_esc_back_without_abort(provider, session, workdir):
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["steer A", "steer B"], follow_ups=["later C"])
        assert "alt+q to edit the queue" in screen_text(app)

        await pilot.press("alt+q")
        assert app.queue_view.has_focus and selected_text(app) == "steer A"
        assert "esc back" in screen_text(app) and "› " in screen_text(app)
        await pilot.press("down")
        assert selected_text(app) == "steer B"

        # t: the steer becomes a follow-up (first in line of them) and back.
        await pilot.press("t")
        assert queue_shape(session) == [("steer", "steer A"), ("follow_up", "steer B"), ("follow_up", "later C")]
        assert selected_text(app) == "steer B"  # the selection follows its message
        await pilot.press("t")
        assert queue_shape(session) == [("steer", "steer A"), ("steer", "steer B"), ("follow_up", "later C")]

        # Ctrl+Up moves it up; K/J too, and across the line between steers and follow-ups.
        await pilot.press("ctrl+up")
        assert queue_shape(session) == [("steer", "steer B"), ("steer", "steer A"), ("follow_up", "later C")]
        await pilot.press("J", "J")
        assert queue_shape(session) == [("steer", "steer A"), ("follow_up", "steer B"), ("follow_up", "later C")]
        assert selected_text(app) == "steer B"

        # d deletes; the selection moves to the neighbouring row.
        await pilot.press("d")
        assert queue_shape(session) == [("steer", "steer A"), ("follow_up", "later C")]
        assert selected_text(app) == "later C"
        assert len(app.query(QueueRow)) == 2

        # Esc leaves the list and does not abort the run.
        await pilot.press("escape")
        assert app.focused is app.editor
        await workers_done(pilot)
        assert session.is_streaming and len(session.queued_messages()) == 2

        hold.release.set()
        await settle(pilot, session)
        sent = [text for r in range(len(provider.requests)) for text in user_texts(provider, r)]
        assert "steer A" in sent and "later C" in sent and "steer B" not in sent
        assert sent.index("steer A") < sent.index("later C")
        assert not app.queue_view.display


async def test_edit_in_place_saves_with_enter_and_esc_cancels(provider, session, workdir):
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["fix the bug"], follow_ups=["then the docs"])
        ids = [item.id for item in session.queued_messages()]
        app.editor.insert("my draft")
        await pilot.press("alt+q", "enter")
        edit = app.query_one(QueueEditArea)
        assert app.focused is edit and edit.text == "fix the bug"
        assert "enter save" in screen_text(app)
        await pilot.press(*" in parser.py", "enter")
        assert queue_shape(session) == [("steer", "fix the bug in parser.py"), ("follow_up", "then the docs")]
        assert [item.id for item in session.queued_messages()] == ids  # edited in place: same ids
        assert app.queue_view.editing is None and app.queue_view.has_focus
        assert "fix the bug in parser.py" in screen_text(app)

        # e edits too; Esc cancels (and does not abort the run); keys like d and Ctrl+Up type/move the cursor.
        await pilot.press("down", "e", "ctrl+up", *" d", "escape")
        assert queue_shape(session)[1] == ("follow_up", "then the docs")
        assert app.queue_view.has_focus and session.is_streaming
        assert app.editor.text == "my draft"

        hold.release.set()
        await settle(pilot, session)
        sent = [text for r in range(len(provider.requests)) for text in user_texts(provider, r)]
        assert "fix the bug in parser.py" in sent and "fix the bug" not in sent


async def test_click_on_a_row_moves_into_the_list_and_selects_it(provider, session, workdir):
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["one", "two", "three"])
        third = list(app.query(QueueRow))[2]
        assert third.item.text == "three"
        await pilot.click(third)
        assert app.queue_view.has_focus and selected_text(app) == "three"
        await pilot.press("enter")
        assert app.query_one(QueueEditArea).text == "three"
        await pilot.press("escape", "escape")
        assert app.focused is app.editor
        hold.release.set()
        await settle(pilot, session)


async def test_message_delivered_while_its_edit_is_open_returns_the_text_to_the_editor(provider, session, workdir):
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["use the cache"], follow_ups=["write tests"])
        app.editor.insert("draft in the editor")
        await pilot.press("alt+q", "enter", *" but not for writes")
        # The tool ends: the agent takes the steer while its edit is open.
        hold.release.set()
        assert await wait_for(pilot, lambda: app.queue_view.editing is None, 10)
        assert app.focused is app.editor
        assert app.editor.text == "use the cache but not for writes\n\ndraft in the editor"
        notices = [str(n.render()) for n in app.query(Notice)]
        assert any("already sent" in n and "back in the editor" in n for n in notices), notices
        await settle(pilot, session)
        assert "use the cache" in user_texts(provider, 1)


async def test_alt_up_restores_all_and_says_how_many(provider, session, workdir):
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["first"], follow_ups=["second"])
        await pilot.press("alt+up")
        assert await wait_for(pilot, lambda: "Restored 2 queued messages to editor" in screen_text(app), 5)
        assert app.editor.text == "first\n\nsecond" and session.queued_messages() == []
        assert await wait_for(pilot, lambda: not app.queue_view.display, 5)
        await pilot.press("alt+q")  # nothing queued: the editor keeps the focus
        assert app.focused is app.editor
        hold.release.set()
        await settle(pilot, session)


async def test_queue_focus_key_is_listed_and_remappable(provider, workdir, agent_dir):
    (agent_dir / "keybindings.json").write_text(json.dumps({"pi.queue.focus": "alt+w"}), encoding="utf-8")
    session, hold, app = held(provider, workdir, agent_dir=agent_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await start_and_queue(pilot, session, hold, steers=["only one"])
        assert "alt+w to edit the queue" in screen_text(app)
        await pilot.press("alt+q")
        assert app.focused is app.editor
        await pilot.press("alt+w")
        assert app.queue_view.has_focus
        await pilot.press("escape")
        app.editor.insert("/hotkeys")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: "Keyboard shortcuts" in screen_text(app), 5)
        for _ in range(10):  # pi's own ids are listed after Pi's: page down to them
            if "pi.queue.focus" in screen_text(app):
                break
            await pilot.press("pagedown")
        assert "pi.queue.focus" in screen_text(app)
        assert "alt+w *" in screen_text(app)  # set in keybindings.json
        assert "Move into the queued messages" in screen_text(app)
        await pilot.press("escape")
        hold.release.set()
        await settle(pilot, session)


async def test_a_row_too_long_for_the_pane_ends_in_an_ellipsis_and_the_hint_names_ctrl_j(provider, session, workdir):
    """A message cut at the pane's edge says so (…); tmux without extended keys sends Shift+Enter as
    Enter, so the edit hint names Ctrl+J as well (found trying the pane in tmux)."""
    session, hold, app = held(provider, workdir)
    long = "a very long steering message that goes on and on past the width of this narrow terminal window"
    async with app.run_test(size=(80, 24)) as pilot:
        await start_and_queue(pilot, session, hold, steers=[long])
        [line] = [line for line in screen_text(app).splitlines() if "a very long steering" in line]
        assert line.rstrip().endswith("…")
        await pilot.press("alt+q", "e")
        assert await wait_for(pilot, lambda: isinstance(app.focused, QueueEditArea))
        assert "shift+enter/ctrl+j new line" in screen_text(app)
        await pilot.press("escape", "escape")
        hold.release.set()
        await settle(pilot, session)


async def test_the_queue_key_with_nothing_queued_says_so(session):
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, session)
        await pilot.press("alt+q")
        assert await wait_for(pilot, lambda: any("No queued messages to edit" in str(n.message) for n in app._notifications))
        assert app.focused is app.editor


async def test_the_queue_text_area_is_mounted_with_the_first_queued_message(provider, workdir):
    # Not with the app: a second text area's styles before the first frame cost about what the editor's do.
    session, hold, app = held(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await workers_done(pilot)
        assert not app.query(QueueEditArea)
        await start_and_queue(pilot, session, hold, steers=["steer A"])
        assert len(app.query(QueueEditArea)) == 1
        hold.release.set()
        await settle(pilot, session)
