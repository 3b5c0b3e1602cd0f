"""``pi --session FILE`` / ``pi -c``: the end of the conversation shows before the session is built."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
from pi_runtime.cli_args import parse_args
from pi_runtime.modes.startup import build_session
from pi_runtime.session import SessionManager
from pi_runtime.testing.waiting import eventually
from pi_tui.launch import _CommandLineApp
from pi_tui.tree.session_preview import preview_file

from .conftest import screen_text, wait_for, workers_done


def _write_session(folder, cwd, turns: int):
    m = SessionManager.create(str(cwd), folder)
    m.append_model_change("scripted", "tui-test")
    for i in range(turns):
        m.append_message(UserMessage(content=f"question {i}"))
        m.append_message(AssistantMessage(content=[TextContent(text=f"answer {i}")], provider="scripted",
                                          model="tui-test", api="scripted", stop_reason="stop"))
    path = m.session_file
    m.close()
    return path


async def test_the_last_messages_show_while_the_session_is_still_being_built(tmp_path, workdir, agent_dir):
    path = _write_session(tmp_path / "sessions", workdir, 200)
    args = parse_args(["--session", str(path)])
    gate = threading.Event()

    def factory():
        gate.wait(10)  # the kernel is "slow": the preview must not wait for it
        return build_session(args)

    app = _CommandLineApp(hint=None, first_frame=threading.Event(), args=args, session_factory=factory)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: "answer 199" in screen_text(app))
        assert app.session is None
        assert "answer 199" in screen_text(app) and "question 199" in screen_text(app)
        assert "no model" not in screen_text(app)  # unknown yet, not missing
        gate.set()
        assert await wait_for(pilot, lambda: app.session is not None and app.transcript.session is not None)
        await workers_done(pilot)  # the session attached and started
        assert app.session is not None
        assert "answer 199" in screen_text(app)
        assert app.transcript.first_index > 0  # the real window replaced the preview
        await app.session.dispose()  # releases the session file


async def _open_with_preview(path, factory_before=None):
    """The app as ``pi --session path`` runs it, its session built once the preview is on screen."""
    args = parse_args(["--session", str(path)])
    gate = threading.Event()

    def factory():
        gate.wait(10)
        if factory_before is not None:
            factory_before()
        return build_session(args)

    app = _CommandLineApp(hint=None, first_frame=threading.Event(), args=args, session_factory=factory)
    return app, gate


async def test_the_preview_blocks_stay_when_the_session_shows_the_same_messages(tmp_path, workdir, agent_dir):
    # The preview was made from the same lines of the same file: they are kept, not built and
    # wrapped a second time; they now point at the session's messages, and the turn the
    # preview began inside of is completed above it.
    path = _write_session(tmp_path / "sessions", workdir, 200)
    m = SessionManager.open(path)
    m.append_message(UserMessage(content="question 200"))  # 401 messages: the last 30 start mid-turn
    m.close()
    app, gate = await _open_with_preview(path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await eventually(lambda: "question 200" in screen_text(app))
        preview_blocks = list(app.transcript.children)
        gate.set()
        assert await eventually(lambda: app.session is not None and app.transcript.session is not None)
        await pilot.pause()
        blocks = list(app.transcript.children)
        assert all(any(block is kept for kept in blocks) for block in preview_blocks)
        messages = app.session.messages
        shown = {id(message) for message in messages[app.transcript.first_index:]}
        assert all(id(block.message) in shown for block in blocks if getattr(block, "message", None) is not None)
        assert app.transcript.first_index == 370 and blocks[0].message is messages[370]  # "question 185"
        assert messages.pending  # showing the end validated only the end
        # Soon after, the rest of the initial window comes in above.
        assert await eventually(lambda: app.transcript.first_index < 370)
        await app.session.dispose()


async def test_the_preview_is_replaced_when_the_file_changed_before_the_build(tmp_path, workdir, agent_dir):
    path = _write_session(tmp_path / "sessions", workdir, 200)

    def another_answer():
        m = SessionManager.open(path)
        m.append_message(UserMessage(content="a question written meanwhile"))
        m.close()

    app, gate = await _open_with_preview(path, another_answer)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await eventually(lambda: "answer 199" in screen_text(app))
        preview_blocks = list(app.transcript.children)
        gate.set()
        assert await eventually(lambda: "a question written meanwhile" in screen_text(app))
        await pilot.pause()
        assert not any(block is old for block in app.transcript.children for old in preview_blocks)
        await app.session.dispose()


def test_only_files_known_up_front_are_previewed(tmp_path, workdir, agent_dir):
    path = _write_session(tmp_path / "sessions", workdir, 2)
    ns = lambda **kw: SimpleNamespace(**{"fork": None, "no_session": False, "session_dir": None, "session": None,
                                         "continue_": False, **kw})
    assert preview_file(ns(session=str(path)), agent_dir, str(workdir)) == path
    assert preview_file(ns(session="abc123"), agent_dir, str(workdir)) is None  # an id: found by the kernel
    assert preview_file(ns(fork=str(path)), agent_dir, str(workdir)) is None
    assert preview_file(ns(), agent_dir, str(workdir)) is None
    default = _write_session(None, workdir, 2)  # in the project's default folder under the agent dir
    assert preview_file(ns(continue_=True), agent_dir, str(workdir)) == default
    (agent_dir / "settings.json").write_text('{"sessionDir": "elsewhere"}')
    assert preview_file(ns(continue_=True), agent_dir, str(workdir)) is None


async def test_a_new_session_is_built_once_the_first_frame_is_out_with_no_preview_to_read(tmp_path, workdir, agent_dir):
    # Nothing to preview: the build is released by Textual's Ready (the first frame), not by a
    # preview worker after the next refresh (~12 ms later, most of it idle while the user types).
    from textual.worker import Worker

    args = parse_args([])
    first_frame = threading.Event()

    def factory():
        assert first_frame.wait(10)
        return build_session(args)

    started: list[str | None] = []

    def seen(message) -> None:
        if isinstance(message, Worker.StateChanged):
            started.append(message.worker.name)

    app = _CommandLineApp(hint=None, first_frame=first_frame, args=args, session_factory=factory)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        assert await wait_for(pilot, lambda: app.session is not None)
        await workers_done(pilot)
        assert "build-session" in started and "preview" not in started
        await app.session.dispose()
