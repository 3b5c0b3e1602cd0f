"""``pi attach`` in the full app (``pi_tui.attach_app``), driven with Pilot against the installed
``pi serve`` on a loopback model: an answer joined mid-stream is drawn once and whole, a prompt
typed in the app runs in the server (steer, follow-up and Esc act on its run), quitting leaves the
run going, a dropped connection comes back with what it missed, tabs and ``/open`` open sessions
on the server, and a local app attaches a served session beside its own."""

from __future__ import annotations

import shutil
import threading

import pytest
from attach_support import app_environment, attached_as_pi_attach_does, started_run, transcript_text, until
from e2e_support import MODEL, text_reply
from serve_support import ServeProcess, short_runtime_dir

from pi_tui.attach_app import AttachedApp


@pytest.fixture
def serve(env, monkeypatch):
    app_environment(env, monkeypatch)
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL)
    yield process
    process.stop()
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_an_answer_joined_mid_stream_is_drawn_once_and_a_prompt_runs_in_the_server(serve, loopback):
    gate = threading.Event()
    viewer, handle = started_run(serve, loopback, gate, "Half an answer", " and the rest of it.")
    app = AttachedApp(serve.socket, [], attached=await attached_as_pi_attach_does(serve.socket, [handle]))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        assert await until(pilot, lambda: "Half an answer" in transcript_text(app))
        assert app.footer_bar.working  # the run goes on in the server: the footer says so
        gate.set()
        assert await until(pilot, lambda: "Half an answer and the rest of it." in transcript_text(app))
        assert transcript_text(app).count("Half an answer") == 1
        assert await until(pilot, lambda: not app.session.is_streaming)
        mark = viewer.mark()
        loopback.push(text_reply("Answered for the app."))
        app.editor.insert("typed in the app")
        await pilot.press("enter")
        # The other viewer sees the app's prompt run in the server's kernel.
        viewer.wait(lambda r: r.get("type") == "message_end" and r["message"]["role"] == "user"
                    and r["message"]["content"][0]["text"] == "typed in the app", start=mark)
        viewer.wait_event("agent_settled", start=mark)
        assert await until(pilot, lambda: "Answered for the app." in transcript_text(app))
    viewer.close()


@pytest.mark.asyncio
async def test_quitting_leaves_the_run_going_and_attaching_again_shows_what_it_missed(serve, loopback):
    gate = threading.Event()
    viewer, handle = started_run(serve, loopback, gate, "Started while watched", ", finished while nobody was.")
    app = AttachedApp(serve.socket, [handle])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        assert viewer.ok({"type": "list_sessions"})["sessions"][0]["viewers"] == 2
        await pilot.press("ctrl+d")  # quit with the run still streaming: no question, the run is not ours to stop
        assert await until(pilot, lambda: not app.is_running)
    row = viewer.ok({"type": "list_sessions"})["sessions"][0]
    assert (row["status"], row["viewers"]) == ("working", 1)
    mark = viewer.mark()
    gate.set()
    viewer.wait_event("agent_settled", start=mark)
    again = AttachedApp(serve.socket, [handle])
    async with again.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, again.ready.is_set)
        assert await until(pilot, lambda: "Started while watched, finished while nobody was." in transcript_text(again))
        assert not again.footer_bar.working
    viewer.close()


@pytest.mark.asyncio
async def test_a_dropped_connection_comes_back_with_what_it_missed(serve, loopback):
    viewer = serve.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    app = AttachedApp(serve.socket, [handle])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        session = app.session
        # Prompted while the app is cut off: the server goes on; the app reconnects from its cursor.
        await session.client.close()
        viewer.ok({"type": "attach", "session": handle})
        loopback.push(text_reply("Said while you were away."))
        viewer.ok({"type": "prompt", "session": handle, "message": "while away"})
        assert await until(pilot, lambda: "Said while you were away." in transcript_text(app))
        assert session.connected
    viewer.close()


@pytest.mark.asyncio
async def test_every_running_session_gets_a_tab_and_open_makes_new_ones_on_the_server(serve, loopback):
    viewer = serve.viewer()
    first = viewer.ok({"type": "open_session"})["session"]
    second = viewer.ok({"type": "open_session"})["session"]
    app = AttachedApp(serve.socket, [first, second])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        assert [e.session.handle for e in app.workspace.sessions] == [first, second]
        assert app.workspace.active is app.workspace.sessions[0]
        # A run in the background tab: its tab follows it, the shown one is left alone.
        viewer.ok({"type": "attach", "session": second})
        loopback.push(text_reply("Background answer."))
        viewer.ok({"type": "prompt", "session": second, "message": "in the background"})
        background = app.workspace.sessions[1]
        assert await until(pilot, lambda: background.unseen == "done")
        assert background.session.get_last_assistant_text() == "Background answer."
        loopback.push(text_reply("Forked from here."))
        app.editor.insert("a question to fork before")
        await pilot.press("enter")
        assert await until(pilot, lambda: not app.session.is_streaming and "Forked from here." in transcript_text(app))
        app.editor.insert("/open new")
        await pilot.press("enter")
        assert await until(pilot, lambda: len(app.workspace.sessions) == 3 and app.workspace.active.number == 3)
        rows = viewer.ok({"type": "list_sessions"})["sessions"]
        assert len(rows) == 3 and app.session.handle == rows[2]["session"]  # opened on the server, attached here
        await app.workspace.show(app.workspace.sessions[0])
        user = next(e for e in app.session.session_manager.get_entries()
                    if getattr(getattr(e, "message", None), "role", "") == "user")
        from pi_tui.flows.open_flows import start_opening

        start_opening(app, "fork", entry_id=user.id, source=app.session)
        assert await until(pilot, lambda: len(app.workspace.sessions) == 4 and app.workspace.active.number == 4)
        assert app.editor.text == "a question to fork before"  # a fork gives the message back to edit
        assert len(viewer.ok({"type": "list_sessions"})["sessions"]) == 4
        app.editor.load_text("")
        await pilot.press("ctrl+d")  # four tabs, none of them this process's run to stop: no question
        assert await until(pilot, lambda: not app.is_running)
    assert len(viewer.ok({"type": "list_sessions"})["sessions"]) == 4  # quitting detached, closed nothing
    viewer.close()


@pytest.mark.asyncio
async def test_steer_follow_up_and_escape_from_the_app_act_on_the_servers_run(serve, loopback):
    gate = threading.Event()
    viewer, handle = started_run(serve, loopback, gate, "Working", " on and on.")
    app = AttachedApp(serve.socket, [handle])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        mark = viewer.mark()
        app.editor.insert("steer this way")
        await pilot.press("enter")  # while a run streams: a steer
        app.editor.insert("and then this")
        await pilot.press("alt+enter")  # a follow-up
        viewer.wait(lambda r: r.get("type") == "queue_update"
                    and [(q["kind"], q["text"]) for q in r.get("queue", [])]
                    == [("steer", "steer this way"), ("followUp", "and then this")], start=mark)
        assert await until(pilot, lambda: [q.text for q in app.session.queued_messages()]
                           == ["steer this way", "and then this"])
        await pilot.press("escape")  # abort: the server's run stops, for every viewer
        viewer.wait_event("agent_settled", start=mark)
        assert await until(pilot, lambda: not app.session.is_streaming)
        assert await until(pilot, lambda: "Operation aborted" in transcript_text(app))
    gate.set()
    viewer.close()


@pytest.mark.asyncio
async def test_a_prompt_to_a_session_the_server_closed_is_kept_and_said(serve, loopback):
    viewer = serve.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    app = AttachedApp(serve.socket, [handle])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(pilot, app.ready.is_set)
        viewer.ok({"type": "close_session", "session": handle})
        assert await until(pilot, lambda: any("pi serve closed this session" in str(n.message)
                                              for n in app._notifications))
        app.editor.insert("typed too late")
        await pilot.press("enter")
        assert await until(pilot, lambda: "Not sent:" in transcript_text(app))
        # What to do instead: no reconnect brings a closed session back (it had no prompt, so no file).
        said = "Not sent: pi serve closed this session (closed): /close this tab"
        assert "".join(said.split()) in "".join(transcript_text(app).split())  # however it wraps
        assert app.editor.text == "typed too late"  # nothing lost
    viewer.close()


@pytest.mark.asyncio
async def test_a_restarted_server_without_the_session_is_said_once_it_is_back(env, loopback, monkeypatch):
    app_environment(env, monkeypatch)
    runtime = short_runtime_dir()
    served_env = {**env, "XDG_RUNTIME_DIR": runtime}
    first = ServeProcess(served_env, "--model", MODEL)
    second = None
    try:
        viewer = first.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.close()
        app = AttachedApp(first.socket, [handle])
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, app.ready.is_set)
            first.proc.kill()  # gone without a word: the connection drops, the tab keeps trying
            first.proc.wait(10)
            assert await until(pilot, lambda: any("reconnecting" in str(n.message) for n in app._notifications))
            second = ServeProcess(served_env, "--model", MODEL)  # the same place, none of the old sessions
            assert await until(pilot, lambda: any("pi serve no longer has this session" in str(n.message)
                                                  for n in app._notifications), timeout=30)
    finally:
        for process in (first, second):
            if process is not None:
                process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_a_local_app_attaches_a_served_session_in_a_tab_beside_its_own(env, loopback, monkeypatch):
    from pi_runtime.frontend import SessionManager, create_agent_session
    from pi_tui.launch import create_app

    runtime = short_runtime_dir()
    for name, value in (("PI_CODING_AGENT_DIR", env["PI_CODING_AGENT_DIR"]), ("HOME", env["HOME"]),
                        ("XDG_RUNTIME_DIR", runtime)):
        monkeypatch.setenv(name, value)  # the app finds the folder's server as pi attach would
    monkeypatch.chdir(env["PI_TEST_PROJECT"])
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL)
    try:
        viewer = process.viewer()
        handles = [viewer.ok({"type": "open_session"})["session"] for _ in range(2)]
        local = create_agent_session(cwd=env["PI_TEST_PROJECT"], session_manager=SessionManager.in_memory())
        app = create_app(local, static=True)
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, lambda: app.session is local)
            from pi_tui.dialogs.pick_list import PickList

            app.editor.insert("/open attach")  # two not shown here: the user picks
            await pilot.press("enter")
            assert await until(pilot, lambda: isinstance(app.screen, PickList))
            await pilot.press("down", "enter")
            assert await until(pilot, lambda: len(app.workspace.sessions) == 2)
            served = app.workspace.sessions[1].session
            assert served.handle == handles[1] and app.session is served
            loopback.push(text_reply("Answered by the server."))
            app.editor.insert("to the served tab")
            await pilot.press("enter")
            assert await until(pilot, lambda: "Answered by the server." in transcript_text(app))
            assert local.messages == []  # the local session had none of it
            app.editor.insert(f"/open attach {handles[0][:4]}")  # by its id
            await pilot.press("enter")
            assert await until(pilot, lambda: len(app.workspace.sessions) == 3)
            assert app.session.handle == handles[0]
            app.editor.insert("/open attach")
            await pilot.press("enter")
            assert await until(pilot, lambda: any("Every session pi serve runs is open here" in str(n.message)
                                                  for n in app._notifications))
        assert [row["viewers"] for row in viewer.ok({"type": "list_sessions"})["sessions"]] == [0, 0]  # detached
        viewer.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)
