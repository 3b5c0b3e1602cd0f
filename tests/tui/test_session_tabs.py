"""Several sessions at once: open a second while the first is held mid-turn, switch with keys and
the mouse, drafts kept, a background end signalled, close, and quit (confirm, then
``session_shutdown`` once per session)."""

from __future__ import annotations

import asyncio
import textwrap

from pi_runtime.agent.tool import AgentTool, ToolResult
from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.ai.types import TextContent
from pi_tui.dialogs.text_prompt import ConfirmPrompt
from pi_tui.launch import create_app
from pi_tui.sessions.session_tab import SessionTab

from .conftest import make_session, screen_text, wait_for


class HoldTool(AgentTool):
    """Runs until the test releases it (or the run is aborted, as a real tool would stop): the
    first session stays mid-turn as long as needed."""

    name = "hold"
    description = "Wait."

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def execute(self, call_id, params, signal, on_update):
        self.started.set()
        waits = [asyncio.ensure_future(self.release.wait())]
        if signal is not None:
            waits.append(asyncio.ensure_future(signal.wait()))
        _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        return ToolResult(content=[TextContent(text="held")])


async def type_and_send(pilot, text: str) -> None:
    pilot.app.editor.insert(text)
    await pilot.press("enter")


async def held_app(provider, workdir, **kwargs):
    hold = HoldTool()
    session = make_session(provider, workdir, custom_tools=[hold], **kwargs)
    provider.push(scripted_tool_call("hold", {}))
    return create_app(session, static=True), hold


async def open_second(pilot) -> None:
    app = pilot.app
    await type_and_send(pilot, "/open")
    assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 2 and app.workspace.active is not None
                          and app.workspace.active.number == 2)


async def test_a_second_session_opens_while_the_first_works_and_each_keeps_its_draft(provider, workdir):
    app, hold = await held_app(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        first = app.session
        assert not app.session_tabs.display or not app.session_tabs.has_class("-several")  # one session: no bar
        await type_and_send(pilot, "first task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        second = app.session
        assert second is not first and first.is_streaming
        assert app.session_tabs.has_class("-several")
        # The second's (empty) transcript is shown (the first task's name is on its tab).
        assert not app.transcript.children or "first task" not in str([str(w.render()) for w in app.transcript.children])
        text = screen_text(app)
        assert "1 ● first task · working" in text and "2 ○ new session · idle" in text

        app.editor.insert("draft for two")
        app.editor.move_cursor((0, 5))
        await pilot.press("alt+pageup")  # app.session.previous
        assert await wait_for(pilot, lambda: app.session is first)
        assert app.editor.text == "" and "first task" in screen_text(app)
        app.editor.insert("draft for one")
        await pilot.press("alt+pagedown")  # app.session.next
        assert await wait_for(pilot, lambda: app.session is second)
        assert app.editor.text == "draft for two" and app.editor.cursor_location == (0, 5)

        tabs = list(app.session_tabs.query(SessionTab))
        await pilot.click(tabs[0])  # a click on a tab shows it
        assert await wait_for(pilot, lambda: app.session is first)
        assert app.editor.text == "draft for one"
        assert app.footer_bar is not None and first.is_streaming

        # The prompt sent in the second session runs there, not in the first.
        await pilot.press("alt+pagedown")
        assert await wait_for(pilot, lambda: app.session is second)
        app.editor.clear()
        provider.push(scripted_text("answer in two"))
        await type_and_send(pilot, "second task")
        assert await wait_for(pilot, lambda: "answer in two" in screen_text(app))
        assert [m.role for m in first.messages].count("user") == 1
        hold.release.set()
        provider.push(scripted_text("first finished"))
        await first.wait_for_idle()


async def test_a_background_end_is_signalled_on_its_tab(provider, workdir):
    app, hold = await held_app(provider, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        first = app.session
        await type_and_send(pilot, "long task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        provider.push(scripted_text("all done in one"))
        hold.release.set()
        entry = app.workspace.sessions[0]
        assert await wait_for(pilot, lambda: entry.unseen == "done")
        assert "1 ○ long task · done" in screen_text(app)
        assert any("long task: finished" in str(n.message) for n in app._notifications)
        assert "all done in one" not in screen_text(app)  # still in the background
        tab = list(app.session_tabs.query(SessionTab))[0]
        assert tab.has_class("-unseen")
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.session is first)
        assert entry.unseen is None and not tab.has_class("-unseen")
        assert await wait_for(pilot, lambda: "all done in one" in screen_text(app))


async def test_close_shows_the_neighbour_and_hides_the_bar(provider, workdir, tmp_path):
    log = tmp_path / "events.log"
    ext = tmp_path / "recorder.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            pi.on("session_shutdown", lambda event, ctx: open({str(log)!r}, "a").write(
                ctx.session_manager.session_id + "\\n"))
    """))
    session = make_session(provider, workdir, extensions=[str(ext)])
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_second(pilot)
        second = app.session
        await type_and_send(pilot, "/close")
        assert await wait_for(pilot, lambda: len(app.workspace.sessions) == 1)
        assert app.session is session and not app.session_tabs.has_class("-several")
        assert not app.session_tabs.query(SessionTab)  # a lone session's tab is not kept behind the hidden bar
        assert await wait_for(pilot, lambda: log.exists() and second.session_id in log.read_text())
        await type_and_send(pilot, "/close")  # the last session is never closed
        assert await wait_for(pilot, lambda: "only open session" in screen_text(app))
    assert sorted(log.read_text().split()) == sorted([session.session_id, second.session_id])


async def test_quitting_with_a_session_working_asks_then_shuts_every_session_down_once(provider, workdir, tmp_path):
    log = tmp_path / "events.log"
    ext = tmp_path / "recorder.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            pi.on("session_shutdown", lambda event, ctx: open({str(log)!r}, "a").write(
                ctx.session_manager.session_id + " " + event.reason + "\\n"))
    """))
    app, hold = await held_app(provider, workdir, extensions=[str(ext)])
    async with app.run_test(size=(100, 30)) as pilot:
        first = app.session
        await type_and_send(pilot, "long task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        second = app.session
        await pilot.press("ctrl+d")  # quit on an empty editor: asks first
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        assert "Still working: long task" in screen_text(app)
        await pilot.press("n")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmPrompt))
        assert app.is_running and first.is_streaming
        await pilot.press("ctrl+d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not app.is_running)
    lines = log.read_text().splitlines()
    assert sorted(lines) == sorted([f"{first.session_id} quit", f"{second.session_id} quit"])
    assert not first.is_streaming


async def test_the_quit_question_follows_a_run_that_ends_while_it_is_open(provider, workdir):
    app, hold = await held_app(provider, workdir)
    provider.push(scripted_text("finished"))
    async with app.run_test(size=(100, 30)) as pilot:
        first = app.session
        await type_and_send(pilot, "long task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        await pilot.press("ctrl+d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        assert "Still working: long task" in screen_text(app)
        hold.release.set()
        assert await wait_for(pilot, lambda: not first.is_streaming)
        assert await wait_for(pilot, lambda: "Nothing is working now." in screen_text(app))
        assert "Still working" not in screen_text(app)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not app.is_running)


async def test_an_idle_workspace_quits_without_asking(provider, workdir):
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_second(pilot)
        await pilot.press("ctrl+d")
        assert await wait_for(pilot, lambda: not app.is_running)


async def test_the_tab_bar_fits_80_columns_and_survives_a_resize(provider, workdir):
    app, hold = await held_app(provider, workdir)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_and_send(pilot, "task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        text = screen_text(app)
        assert "1 ● task" in text and "2 ○ new" in text
        await pilot.resize_terminal(60, 20)
        assert await wait_for(pilot, lambda: "2 ○ new" in screen_text(app))
        await pilot.resize_terminal(80, 24)
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: app.workspace.active.number == 1)
        hold.release.set()
        provider.push(scripted_text("ok"))
        await app.session.wait_for_idle()


async def test_a_background_question_waits_for_its_tab_and_is_signalled(provider, workdir, tmp_path):
    ext = tmp_path / "asker.py"
    ext.write_text(textwrap.dedent("""
        def extension(pi):
            async def ask(event, ctx):
                await ctx.ui.confirm("Deploy now?", "the run ended")
            pi.on("agent_end", ask)
    """))
    app, hold = await held_app(provider, workdir, extensions=[str(ext)])
    async with app.run_test(size=(100, 30)) as pilot:
        first = app.session
        await type_and_send(pilot, "task")
        assert await wait_for(pilot, lambda: hold.started.is_set())
        await open_second(pilot)
        provider.push(scripted_text("done"))
        hold.release.set()
        entry = app.workspace.sessions[0]
        assert await wait_for(pilot, lambda: entry.questions == 1)
        assert "1 ? task · waiting for you" in screen_text(app)
        assert any("task asks: Deploy now?" in str(n.message) for n in app._notifications)
        assert not isinstance(app.screen, ConfirmPrompt)  # not over the session shown
        await pilot.press("alt+pageup")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        assert app.session is first and "Deploy now?" in screen_text(app)
        await pilot.press("y")
        await first.wait_for_idle()
        assert await wait_for(pilot, lambda: entry.questions == 0)
