"""Sending, streaming, tools, thinking and the first-run panel, driven through Pilot."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import (
    ScriptedResponse,
    ScriptedText,
    ScriptedThinking,
    scripted_text,
    scripted_tool_call,
)
from pi_tui.launch import create_app
from pi_tui.transcript.streaming_markdown import StreamingMarkdown, split_finished
from pi_tui.transcript.thinking_block import ThinkingBlock
from pi_tui.transcript.tool_box import ToolBox
from pi_tui.transcript.user_message import UserMessage
from pi_tui.transcript.welcome_panel import WelcomePanel

from .conftest import keyless_session, make_session, screen_text, settle, wait_for, workers_done


def last_user_text(provider, request: int = -1) -> str:
    context, _ = provider.requests[request]
    users = [m for m in context.messages if m.role == "user"]
    content = users[-1].content
    return content if isinstance(content, str) else "".join(b.text for b in content if b.type == "text")


async def test_send_streams_answer_into_transcript(provider, session):
    answer = "# Title\n\nFirst paragraph with **bold**.\n\n- one\n- two\n\n```python\nprint('hi')\n```\n\nThe end."
    provider.push(scripted_text(answer, chunk_size=5))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press(*"hello pi")
        await pilot.press("enter")
        await settle(pilot, session)
        assert last_user_text(provider) == "hello pi"
        assert app.editor.text == ""
        [user] = app.query(UserMessage)
        assert "hello pi" in str(user.render())
        blocks = list(app.query(StreamingMarkdown))
        assert len(blocks) == 1 and blocks[0].text == answer and not blocks[0].live
        text = screen_text(app)
        assert "First paragraph with" in text and "The end." in text and "print('hi')" in text


def test_split_finished_keeps_fences_and_list_continuations_together():
    text = "para\n\n```\ncode\n\nstill code\n```\n\n- item\n\n  continued\n\nnext"
    cut = split_finished(text)
    assert text[:cut].endswith("continued\n\n") and text[cut:] == "next"
    assert split_finished("open ```\n\n```\nin fence\n\nx") == len("open ```\n\n")
    assert split_finished("no blank line yet") == 0


async def test_edit_tool_call_shows_coloured_diff_and_expands(provider, workdir, agent_dir):
    target = workdir / "app.py"
    target.write_text("".join(f"line {i}\n" for i in range(1, 40)), encoding="utf-8")
    edits = [{"oldText": f"line {i}\n", "newText": f"changed {i}\n"} for i in (5, 6, 7, 8, 9, 10)]
    provider.push(scripted_tool_call("edit", {"path": "app.py", "edits": edits}, id="call_edit"),
                  scripted_text("Done."))
    session = make_session(provider, workdir)
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"fix it", "enter")
        await settle(pilot, session)
        box = app.query_one("#tool-call_edit", ToolBox)
        assert box.state == "success", box.output
        assert box.diff and "+ 5 changed 5" in box.diff  # Pi's display diff, as the edit tool records it
        text = screen_text(app)
        assert "edit app.py" in text and "+ 5 changed 5" in text  # numbered as Pi numbers them
        assert "changed 10" not in text  # collapsed to a few lines
        assert "ctrl+o to expand" in text
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert box.expanded
        assert "+10 changed 10" in screen_text(app)
        assert "changed 10" in target.read_text()


async def test_bash_tool_error_box(provider, session):
    provider.push(scripted_tool_call("bash", {"command": "echo boom; exit 3"}, id="call_bash"), scripted_text("ok"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"run", "enter")
        await settle(pilot, session)
        box = app.query_one("#tool-call_bash", ToolBox)
        assert box.state == "error" and box.has_class("error")
        text = screen_text(app)
        assert "$ echo boom; exit 3" in text and "boom" in text


async def test_thinking_blocks_toggle_with_ctrl_t(provider, session):
    provider.push(ScriptedResponse([ScriptedThinking("Let me think about this carefully."), ScriptedText("Answer.")]))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"q", "enter")
        await settle(pilot, session)
        block = app.query_one(ThinkingBlock)
        assert "think about this carefully" in screen_text(app)
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert block.collapsed
        text = screen_text(app)
        assert "think about this carefully" not in text and "Thinking (1 line" in text
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not block.collapsed


async def test_no_credentials_shows_welcome_and_inline_error(workdir, agent_dir, monkeypatch):
    session = keyless_session(workdir, agent_dir, monkeypatch)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert app.query(WelcomePanel)
        assert "ANTHROPIC_API_KEY" in screen_text(app) and "/login" in screen_text(app)
        await pilot.press(*"hello", "enter")
        await workers_done(pilot)
        text = screen_text(app)
        assert "No API key for provider" in text
        assert "Traceback" not in text


async def test_user_bash_command_runs_and_is_recorded(provider, session):
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"!echo from-shell", "enter")
        await app.workers.wait_for_complete()
        await workers_done(pilot)
        assert "from-shell" in screen_text(app)
        [message] = [m for m in session.messages if m.role == "bashExecution"]
        assert message.command == "echo from-shell" and "from-shell" in message.output
        assert not provider.requests  # `!` does not call the model


async def test_a_cut_command_says_where_its_whole_output_is_and_the_footer_counts_it_as_pi_does(provider, session):
    from pathlib import Path

    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"!seq 1 30000", "enter")  # 169 KB: cut, and saved whole (over 50 KB)
        await app.workers.wait_for_complete()
        await workers_done(pilot)
        [message] = [m for m in session.messages if m.role == "bashExecution"]
        assert message.truncated and message.full_output_path
        note = f"Output truncated. Full output: {message.full_output_path}"
        assert await wait_for(pilot, lambda: note in screen_text(app).replace("\n", ""))
        assert Path(message.full_output_path).read_text().endswith("29999\n30000\n")
        usage = session.context_usage()
        assert usage is not None and usage.percent and usage.tokens and usage.tokens > 2_000  # the kept 2,000 lines
        assert await wait_for(pilot, lambda: f"{usage.percent:.1f}%/200k" in screen_text(app))  # the footer says so at once
        await pilot.press(*"!echo short", "enter")
        await app.workers.wait_for_complete()
        await workers_done(pilot)
        assert screen_text(app).count("Output truncated") == 1  # only under the cut one
    replayed = create_app(session, static=True)  # the recorded command, shown again from the session
    async with replayed.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: note in screen_text(replayed).replace("\n", ""))


async def test_a_command_without_output_is_its_label_alone(session):
    from pi_tui.transcript.message_panel import MessagePanel

    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"!true", "enter")
        await app.workers.wait_for_complete()
        await workers_done(pilot)
        [panel] = app.query(MessagePanel)
        assert panel.label == "! true" and not panel.query_one(".panel-body").display  # no blank row under it
        await pilot.press(*"!echo out", "enter")
        await app.workers.wait_for_complete()
        await workers_done(pilot)
        assert app.query(MessagePanel)[-1].query_one(".panel-body").display


async def test_a_dialog_answered_twice_takes_the_first_answer_and_leaves_the_app_open(session):
    # Keys typed ahead (Enter, then text and Enter) can reach a dialog after its first answer took it
    # off the stack; the second answer used to pop the app's own screen and end pi.
    from pi_tui.dialogs.pick_list import PickItem, PickList

    app = create_app(session, static=True)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        items = [PickItem(value, value, value, "", i == 0) for i, value in enumerate(["first", "second"])]
        picker = PickList("Choose", items)
        app.push_screen(picker, answers.append)
        await pilot.pause()
        picker.dismiss("first")
        picker.dismiss("second")
        await pilot.pause()
        assert answers == ["first"]
        assert len(app.screen_stack) == 1 and app.is_running
        await pilot.press(*"still here")
        assert app.editor.text == "still here"


async def test_a_running_commands_panel_keeps_the_end_of_a_flood_and_counts_the_rest(session):
    # Each update used to copy and split all the output so far: `yes` froze the app for seconds.
    from pi_tui.transcript.message_panel import LIVE_OUTPUT_CHARS

    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        panel = await app.transcript.start_bash("req-1", "seq 1 300000", exclude=False)
        lines = [f"{n}\n" for n in range(1, 300001)]
        for start in range(0, len(lines), 3000):
            panel.append_output("".join(lines[start:start + 3000]))
            assert len(panel.body) <= LIVE_OUTPUT_CHARS
        await pilot.pause()
        assert "… 299995 earlier lines" in screen_text(app)  # the count is exact: 300,000 - the 5 shown
        assert "300000" in screen_text(app)
