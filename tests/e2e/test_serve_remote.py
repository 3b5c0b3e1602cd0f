"""``RemoteSession``: a session of the installed ``pi serve`` held through ``SessionPort``.

What a front end reads (transcript, tree, queue, usage) comes from the viewer's copy, kept exact by
the stream; what it calls is awaited with the kernel's own errors; events arrive typed.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from e2e_support import MODEL, Reply, chunk, text_reply, tool_reply, usage
from serve_support import ServeProcess, short_runtime_dir

from pi_runtime.frontend.events import (
    AgentSettledEvent,
    MessageEndEvent,
    MessageUpdateEvent,
    QueueUpdateEvent,
    SessionChangedEvent,
)
from pi_runtime.kernel.errors import PromptError
from pi_runtime.kernel.message_queue import QueueEditError
from pi_runtime.remote.client import NoServer, ServeClient
from pi_runtime.testing.waiting import eventually


@pytest.fixture
def serve(env):
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL)
    yield process
    process.stop()
    shutil.rmtree(runtime, ignore_errors=True)


def gated(text: str, gate: threading.Event) -> Reply:
    events = [chunk({"content": text[:3]}), chunk({"content": text[3:]}), chunk(finish="stop"), usage(), "[DONE]"]
    return Reply.sse(events, gate_at=1, gate=gate)


@pytest.mark.asyncio
async def test_a_remote_session_streams_typed_events_and_reads_its_state_locally(serve, loopback):
    client = await ServeClient.connect(serve.socket)
    handle = (await client.open_session())["session"]
    session = await client.attach(handle)
    events: list[object] = []
    session.subscribe(events.append)
    loopback.push(tool_reply("bash", {"command": "echo from-the-tool"}), text_reply("All done here."))
    assert await session.prompt("run it") == "started"  # waits until settled
    assert not session.is_streaming
    await eventually(lambda: any(isinstance(e, AgentSettledEvent) for e in events))
    updates = [e for e in events if isinstance(e, MessageUpdateEvent)]
    assert updates and updates[-1].message.text() == "All done here."
    assert [e.message.role for e in events if isinstance(e, MessageEndEvent)][-1] == "assistant"
    # The transcript is the replica's context: the same messages as the server's.
    roles = [m.role for m in session.messages if m.role != "system"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert session.get_last_assistant_text() == "All done here."
    assert session.session_manager.leaf_id == (await session.call("get_entries"))["leafId"]
    stats = session.get_session_stats()
    assert (stats.user_messages, stats.assistant_messages, stats.tool_results) == (1, 2, 1)
    assert session.usage_totals().input > 0
    assert session.model.ref == MODEL
    assert session.get_fork_messages()[0]["text"] == "run it"
    bash = await session.execute_bash("echo hi there", on_delta=(deltas := []).append)
    assert bash.exit_code == 0 and "hi there" in bash.output and "".join(deltas).strip() == "hi there"
    await session.dispose()
    await client.close()


@pytest.mark.asyncio
async def test_two_remote_viewers_share_the_queue_and_the_kernels_errors(serve, loopback):
    first, second = await ServeClient.connect(serve.socket), await ServeClient.connect(serve.socket)
    handle = (await first.open_session())["session"]
    a, b = await first.attach(handle), await second.attach(handle)
    gate = threading.Event()
    loopback.push(gated("Working on it.", gate), text_reply("Steered."), text_reply("Followed."))
    assert await a.prompt("start", wait=False) == "started"
    await eventually(lambda: b.is_streaming)
    with pytest.raises(PromptError):
        await b.prompt("no behaviour")
    assert await b.prompt("steer me", streaming_behavior="steer") == "queued"
    assert await b.prompt("then this", streaming_behavior="followUp") == "queued"
    await eventually(lambda: [q.text for q in a.queued_messages()] == ["steer me", "then this"])
    steer, follow = a.queued_messages()
    assert [q.text for q in a.edit_queued(follow.id, "then this, edited")] == ["steer me", "then this, edited"]
    with pytest.raises(QueueEditError):
        a.remove_queued("q-never")
    await eventually(lambda: [q.text for q in b.queued_messages()] == ["steer me", "then this, edited"])
    queue_events: list[QueueUpdateEvent] = []
    b.subscribe(lambda e: queue_events.append(e) if isinstance(e, QueueUpdateEvent) else None)
    gate.set()
    await a.wait_for_idle()
    await b.wait_for_idle()
    assert [m.content[0].text for m in b.messages if m.role == "user"] == ["start", "steer me", "then this, edited"]
    assert b.queued_messages() == [] and queue_events[-1].items == []
    assert a.messages == b.messages
    for client in (first, second):
        await client.close()


@pytest.mark.asyncio
async def test_a_remote_session_reconnects_from_its_cursor(serve, loopback):
    client = await ServeClient.connect(serve.socket)
    handle = (await client.open_session())["session"]
    session = await client.attach(handle)
    loopback.push(text_reply("first"))
    await session.prompt("one")
    await client.close()
    await eventually(lambda: not session.connected)

    other = await ServeClient.connect(serve.socket)
    helper = await other.attach(handle)
    loopback.push(text_reply("second, while away"))
    await helper.prompt("two")
    data = await session.reconnect()
    assert data["replayed"] > 0 and "snapshot" not in data
    await eventually(lambda: session.cursor == helper.cursor)
    assert session.get_last_assistant_text() == "second, while away"
    assert session.messages == helper.messages
    # From a cursor the server never gave: a snapshot, and subscribers are told to rebuild.
    rebuilt: list[object] = []
    session.subscribe(rebuilt.append)
    session.view.cursor += 1000  # a cursor from another run of the server
    await session.reconnect()
    await eventually(lambda: any(isinstance(e, SessionChangedEvent) and e.reason == "resync" for e in rebuilt))
    assert session.cursor == helper.cursor and session.messages == helper.messages
    await other.close()


@pytest.mark.asyncio
async def test_a_bound_ui_answers_an_extension_question(env, loopback):
    runtime = short_runtime_dir()
    (Path(env["PI_TEST_PROJECT"]) / "data").mkdir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", "builtin:permission-gate")
    try:
        client = await ServeClient.connect(process.socket)
        session = await client.attach((await client.open_session())["session"])

        class Approving:
            """A front end's UI that says yes (the app's dialogs, in phase 2)."""

            has_ui = True
            asked: list[str] = []

            async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
                self.asked.append(title)
                return True

        ui = Approving()
        session.ui.bind(ui)
        loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("removed"))
        await session.prompt("clean up")
        assert ui.asked and not (Path(env["PI_TEST_PROJECT"]) / "data").exists()
        assert session.view.dialogs == {}
        await client.close()
    finally:
        process.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_no_server_is_a_clear_error(tmp_path):
    with pytest.raises(NoServer, match="no pi serve listens"):
        await ServeClient.connect(tmp_path / "nothing.sock")


@pytest.mark.asyncio
async def test_the_tree_of_a_remote_session_follows_navigation_and_labels(serve, loopback):
    client = await ServeClient.connect(serve.socket)
    session = await client.attach((await client.open_session())["session"])
    for text in ("one", "two"):
        loopback.push(text_reply(f"answer {text}"))
        await session.prompt(text)
    manager = session.session_manager
    second = next(e for e in manager.get_entries() if getattr(getattr(e, "message", None), "role", "") == "user"
                  and e.message.content[0].text == "two")
    result = await session.navigate_tree(second.id)
    assert (result.cancelled, result.editor_text) == (False, "two")
    await eventually(lambda: session.session_manager.leaf_id == second.parent_id)
    assert session.get_last_assistant_text() == "answer one"
    assert [m.role for m in session.messages if m.role != "system"] == ["user", "assistant"]
    assert session.branch_messages(second.id)[-1].content[0].text == "two"
    session.set_label(second.id, "the second question")
    await eventually(lambda: session.session_manager.get_label(second.id) == "the second question")
    await client.close()


ROUTER = '''
def extension(pi):
    pi.register_virtual_model(
        provider="router", id="auto", name="Auto", thinking_levels=["low", "high"],
        route=lambda request, ctx: {"model": ctx.model_registry.find("loop", "loop-model"), "thinking_level": "low"})
'''


@pytest.mark.asyncio
async def test_a_remote_session_with_a_virtual_model_shows_where_answers_went(env, loopback, tmp_path, monkeypatch):
    """The router runs in the server; the viewer reads the selection and the answering model locally."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", env["PI_CODING_AGENT_DIR"])  # the viewer's registry: the same models
    router = tmp_path / "router.py"
    router.write_text(ROUTER)
    runtime = short_runtime_dir()
    serve = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "-e", str(router), "--model", "router/auto",
                         "--thinking", "high")
    try:
        client = await ServeClient.connect(serve.socket)
        session = await client.attach((await client.open_session())["session"])
        assert session.model.ref == "router/auto" and session.routed_model is None
        loopback.push(text_reply("routed"))
        assert await session.prompt("hello") == "started"
        routed = session.routed_model
        # "low" clamped to what the model offers (it does not reason): "off", as its answer records.
        assert routed is not None and (routed.model.ref, routed.thinking_level) == (MODEL, "off")
        window = session.model_registry.find("loop", "loop-model").context_window
        assert session.context_usage().context_window == window  # the answering model's, not the router's
        await session.dispose()
        await client.close()
    finally:
        serve.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.asyncio
async def test_a_gap_in_the_cursors_is_mended_from_a_snapshot(serve, loopback):
    client = await ServeClient.connect(serve.socket)
    handle = (await client.open_session())["session"]
    session = await client.attach(handle)
    rebuilt: list[object] = []
    session.subscribe(rebuilt.append)
    loopback.push(text_reply("first"))
    await session.prompt("one")
    # A record numbered past the next one: those between never came (the stream has no gaps,
    # so this is what a lost record looks like to a viewer).
    stale = session.cursor
    session.receive({"type": "session_state", "state": {}, "session": handle, "cursor": stale + 3})
    assert await eventually(lambda: any(isinstance(e, SessionChangedEvent) and e.reason == "resync" for e in rebuilt))
    helper = await (await ServeClient.connect(serve.socket)).attach(handle)
    assert session.cursor == helper.cursor and session.messages == helper.messages
    assert session.view.state["sessionId"] == helper.view.state["sessionId"]  # the crafted state did not stick
    loopback.push(text_reply("second"))
    await session.prompt("two")  # the stream goes on from the snapshot
    assert session.get_last_assistant_text() == "second"
    await client.close()


@pytest.mark.asyncio
async def test_scoped_models_set_by_a_viewer_are_the_servers_and_every_viewers(serve, env, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", env["PI_CODING_AGENT_DIR"])  # the viewers' registry: the same models
    first, second = await ServeClient.connect(serve.socket), await ServeClient.connect(serve.socket)
    handle = (await first.open_session())["session"]
    a, b = await first.attach(handle), await second.attach(handle)
    assert a.scoped_models == []
    reasoner = a.model_registry.find("loop", "loop-reasoner")
    a.scoped_models = [(a.model, None), (reasoner, "high")]
    assert [(m.ref, lv) for m, lv in a.scoped_models] == [(MODEL, None), ("loop/loop-reasoner", "high")]
    await eventually(lambda: len(b.scoped_models) == 2)
    assert [(m.ref, lv) for m, lv in b.scoped_models] == [(MODEL, None), ("loop/loop-reasoner", "high")]
    cycled = await b.cycle_model()  # the server cycles through the scoped list, with its level
    assert cycled is not None and cycled.model.ref == "loop/loop-reasoner" and cycled.thinking_level == "high"
    with pytest.raises(Exception, match="Model not found"):
        await a.call("set_scoped_models", models=[{"provider": "loop", "modelId": "nope"}])
    for client in (first, second):
        await client.close()


@pytest.mark.asyncio
async def test_exports_of_a_remote_session_are_written_from_the_viewers_copy(serve, loopback, tmp_path):
    client = await ServeClient.connect(serve.socket)
    session = await client.attach((await client.open_session())["session"])
    loopback.push(text_reply("An answer worth keeping."))
    await session.prompt("keep this")
    from pi_runtime.kernel.export_html.data import decode_session_data

    page = Path(session.export_html(str(tmp_path / "out.html")))
    embedded = decode_session_data(page.read_text())
    assert embedded["leafId"] == session.session_manager.leaf_id
    assert "An answer worth keeping." in str(embedded["entries"][-1])
    branch = Path(session.export_jsonl(str(tmp_path / "branch.jsonl")))
    lines = branch.read_text().splitlines()
    assert '"type":"session"' in lines[0].replace(" ", "") and "An answer worth keeping." in lines[-1]
    session.add_notice("said here")
    assert session.take_session_notices() == ["said here"] and session.take_session_notices() == []
    await client.close()
