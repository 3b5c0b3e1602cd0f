"""``pi attach``'s app and the extensions of a served session, which run in ``pi serve``: their
questions (the permission gate's) are answered in the tab, asked while nobody watched or not; their
commands, argument completions and shortcuts work from the tab; the server's reports about the
session's file show there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from attach_support import app_environment, attached_as_pi_attach_does, transcript_text, until
from e2e_support import MODEL, text_reply, tool_reply
from serve_support import ServeProcess, short_runtime_dir

from pi_runtime.testing.waiting import eventually
from pi_tui.attach_app import AttachedApp
from pi_tui.dialogs.text_prompt import ConfirmPrompt


@pytest.fixture
def serve(env, monkeypatch):
    app_environment(env, monkeypatch)
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL)
    yield process
    process.stop()
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_an_extension_question_of_the_server_is_answered_in_the_app(env, loopback, monkeypatch):
    app_environment(env, monkeypatch)
    data = Path(env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", "builtin:permission-gate")
    try:
        viewer = process.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.ok({"type": "attach", "session": handle})
        # Attached before the app exists, as pi attach does: the connection's tasks are not the app's.
        app = AttachedApp(process.socket, [], attached=await attached_as_pi_attach_does(process.socket, [handle]))
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, app.ready.is_set)
            loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("removed"))
            app.editor.insert("clean up")
            await pilot.press("enter")
            assert await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
            asked = viewer.wait_event("extension_ui_request", method="confirm")
            await pilot.press("y")
            resolved = viewer.wait_event("extension_ui_resolved", id=asked["id"])
            assert resolved["confirmed"] is True
            assert await until(pilot, lambda: "removed" in transcript_text(app))
            assert not data.exists()
        viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


WAVE = '''
def extension(pi):
    async def wave(args, ctx):
        ctx.ui.set_status("wave", f"waving {args}")
        ctx.ui.notify(f"Waved {args}")

    def whom(prefix):
        return [w for w in ["hello", "goodbye", {"value": "everyone", "description": "all viewers"}]
                if (w if isinstance(w, str) else w["value"]).startswith(prefix)]

    pi.register_command("wave", wave, description="Wave at every viewer", get_argument_completions=whom)

    async def shout(ctx):
        ctx.ui.notify("Shortcut ran in the server")

    pi.register_shortcut("f7", shout, description="Shout")
'''


@pytest.mark.asyncio
async def test_a_served_extensions_command_completions_and_shortcut_work_from_the_app(env, loopback, monkeypatch, tmp_path):
    app_environment(env, monkeypatch)
    extension = tmp_path / "wave.py"
    extension.write_text(WAVE)
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", str(extension))
    try:
        viewer = process.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.ok({"type": "attach", "session": handle})
        app = AttachedApp(process.socket, [], attached=await attached_as_pi_attach_does(process.socket, [handle]))
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, app.ready.is_set)
            from pi_tui.commands.commands import COMMANDS

            assert await until(pilot, lambda: ("wave", "Wave at every viewer") in COMMANDS.menu_entries(app.session))
            await pilot.press(*"/wave ")  # the argument completions come from the server's extension
            assert await until(pilot, lambda: app.menu.is_open and app.menu.kind == "args"
                               and [c.value for c in app.menu.items] == ["hello", "goodbye", "everyone"])
            await pilot.press(*"he")
            assert await until(pilot, lambda: [c.value for c in app.menu.items] == ["hello"])
            await pilot.press("escape")
            app.editor.load_text("/wave hello")
            app.editor.move_cursor((0, len("/wave hello")))
            await pilot.press("enter")
            viewer.wait(lambda r: r.get("method") == "setStatus" and r.get("statusText") == "waving hello")
            assert await until(pilot, lambda: "waving hello" in transcript_text(app))  # the tab shows its status
            assert await until(pilot, lambda: any("Waved hello" in str(n.message) for n in app._notifications))
            assert await until(pilot, lambda: "f7" in app.extension_keys)  # bound here, it runs there
            await pilot.press("f7")
            assert await until(pilot, lambda: any("Shortcut ran in the server" in str(n.message)
                                                  for n in app._notifications))
        viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_a_question_asked_while_nobody_watched_opens_when_the_app_attaches(env, loopback, monkeypatch):
    app_environment(env, monkeypatch)
    data = Path(env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", "builtin:permission-gate")
    try:
        viewer = process.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("removed while you were away"))
        viewer.ok({"type": "prompt", "session": handle, "message": "clean up"})  # not attached: nobody is asked
        assert await eventually(lambda: viewer.ok({"type": "list_sessions"})["sessions"][0]["status"] == "waiting")
        app = AttachedApp(process.socket, [handle])
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
            await pilot.press("y")
            assert await until(pilot, lambda: "removed while you were away" in transcript_text(app))
            assert not data.exists()
        viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_the_servers_notices_about_a_file_show_in_the_tab(serve, loopback, tmp_path):
    from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
    from pi_runtime.session import SessionManager

    writer = SessionManager.create(serve.env["PI_TEST_PROJECT"], tmp_path / "sessions")
    writer.append_message(UserMessage(content="hello"))
    writer.append_message(AssistantMessage(content=[TextContent(text="hi")], api="x", provider="p", model="m"))
    writer.close()
    path = writer.session_file
    with open(path, "ab") as fh:
        fh.write(b"garbage\n")
    viewer = serve.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    app = AttachedApp(serve.socket, [handle])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        await app.session.switch_session(str(path))  # the server opens the file and reports the bad line
        assert await until(pilot, lambda: any(str(n.message).startswith(f"{path}: skipped 1 malformed line(s)")
                                              for n in app._notifications))
        assert app.session.take_session_notices() == []  # shown once
    viewer.close()
