"""``pi serve`` as a user runs it: the installed server, viewers on its socket, the loopback model.

Runs that must still be going when a viewer acts get a reply held at a gate (a loopback reply that
waits for the test) or one that stalls until aborted; every wait is on a record or a state, never
on time.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path

import pytest
from e2e_support import MODEL, PI, Reply, chunk, stalled_reply, text_reply, tool_reply, usage
from rpc_client import RpcClient
from serve_support import ServeProcess, SocketViewer, short_runtime_dir

from pi_runtime.testing.waiting import wait_until


@pytest.fixture
def served_env(env):
    runtime = short_runtime_dir()
    yield {**env, "XDG_RUNTIME_DIR": runtime}
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def serve(served_env):
    process = ServeProcess(served_env, "--model", MODEL)
    yield process
    process.stop()


def gated_reply(text: str, gate: threading.Event) -> Reply:
    """A text reply whose second half waits until the test sets ``gate``."""
    half = len(text) // 2
    events = [chunk({"content": text[:half]}), chunk({"content": text[half:]}), chunk(finish="stop"), usage(), "[DONE]"]
    return Reply.sse(events, gate_at=1, gate=gate)


def open_and_attach(viewer: SocketViewer, *others: SocketViewer) -> str:
    handle = viewer.ok({"type": "open_session"})["session"]
    for v in (viewer, *others):
        v.ok({"type": "attach", "session": handle})
    return handle


def user_texts(entries: list[dict]) -> list[str]:
    out = []
    for entry in entries:
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            out.append("".join(block.get("text", "") for block in message["content"]))
    return out


def test_two_viewers_see_the_same_records(serve, loopback):
    a, b = serve.viewer(), serve.viewer()
    handle = open_and_attach(a, b)
    loopback.push(text_reply("Hello from the loop model, to everyone."))
    a.ok({"type": "prompt", "session": handle, "message": "hi"})
    end_a = a.wait_event("agent_settled")
    end_b = b.wait_event("agent_settled")
    assert end_a == end_b
    # Compared up to the end of the run (what follows it may still be on its way to one of them).
    seen_a = [r for r in a.stream(handle) if r["cursor"] <= end_a["cursor"]]
    seen_b = [r for r in b.stream(handle) if r["cursor"] <= end_a["cursor"]]
    assert seen_a == seen_b
    cursors = [r["cursor"] for r in seen_a]
    assert cursors == list(range(cursors[0], cursors[0] + len(cursors)))  # numbered without a gap
    deltas = "".join(r["assistantMessageEvent"].get("delta", "") for r in seen_a if r["type"] == "message_update")
    assert deltas == "Hello from the loop model, to everyone."
    # The tree grows in the stream too: every message reached the viewers as an entry.
    entries = [e for r in seen_a if r["type"] == "session_entries" for e in r["entries"]]
    assert user_texts(entries) == ["hi"]


def test_a_prompt_and_a_steer_from_two_viewers_are_serialised(serve, loopback):
    a, b = serve.viewer(), serve.viewer()
    handle = open_and_attach(a, b)
    gate = threading.Event()
    loopback.push(gated_reply("First answer.", gate), text_reply("Second answer."))
    a.ok({"type": "prompt", "session": handle, "message": "start"})
    b.wait_event("message_update")  # the first answer is streaming, held at the gate
    busy = b.request({"type": "prompt", "session": handle, "message": "no behaviour given"})
    assert busy["success"] is False and busy["errorType"] == "PromptError"
    assert b.ok({"type": "steer", "session": handle, "message": "steer from b"}) == {"disposition": "queued"}
    update = a.wait(lambda r: r.get("type") == "queue_update" and r["steering"] == ["steer from b"])
    assert [q["text"] for q in update["queue"]] == ["steer from b"]  # pi's addition: the ids
    gate.set()
    a.wait_event("agent_settled")
    b.wait_event("agent_settled")
    assert [m["content"][-1]["text"] if isinstance(m["content"], list) else m["content"]
            for m in loopback.requests[-1].json()["messages"] if m["role"] == "user"] == ["start", "steer from b"]
    snapshot = a.ok({"type": "get_snapshot", "session": handle})
    assert user_texts(snapshot["entries"]) == ["start", "steer from b"]


def test_queue_edits_and_abort_from_either_viewer(serve, loopback):
    a, b = serve.viewer(), serve.viewer()
    handle = open_and_attach(a, b)
    loopback.push(stalled_reply())
    a.ok({"type": "prompt", "session": handle, "message": "start"})
    a.wait_event("message_update")
    for kind, text in (("follow_up", "one"), ("follow_up", "two"), ("steer", "three")):
        b.ok({"type": kind, "session": handle, "message": text})
    queue = a.ok({"type": "get_queue", "session": handle})["queue"]
    assert [q["text"] for q in queue] == ["three", "one", "two"]  # steering first, then follow-ups
    three, one, two = (q["id"] for q in queue)
    a.ok({"type": "edit_queued", "session": handle, "messageId": two, "message": "two, edited"})
    moved = b.ok({"type": "move_queued", "session": handle, "messageId": three, "index": -1, "kind": "followUp"})
    assert [q["text"] for q in moved["queue"]] == ["one", "two, edited", "three"]
    b.ok({"type": "remove_queued", "session": handle, "messageId": one})
    gone = a.request({"type": "edit_queued", "session": handle, "messageId": one, "message": "x"})
    assert gone["success"] is False and "was removed from the queue" in gone["error"]
    b.wait(lambda r: r.get("type") == "queue_update" and r["followUp"] == ["two, edited", "three"])

    mark = a.mark()
    b.ok({"type": "abort", "session": handle})
    assert a.wait_event("agent_settled", start=mark)["aborted"] is True
    assert a.ok({"type": "get_state", "session": handle})["isStreaming"] is False
    # Aborting keeps the queue (as Pi); the next prompt delivers it as edited, in order.
    loopback.push(text_reply("a"), text_reply("b"), text_reply("c"))
    b.wait_event("agent_settled", aborted=True)  # b has the aborted run's end: the next settle is the new run's
    mark = b.mark()
    a.ok({"type": "prompt", "session": handle, "message": "go on"})
    b.wait_event("agent_settled", start=mark)
    snapshot = b.ok({"type": "get_snapshot", "session": handle})
    assert user_texts(snapshot["entries"]) == ["start", "go on", "two, edited", "three"]
    assert snapshot["queue"] == []


def test_a_viewer_that_reconnects_with_its_cursor_gets_what_it_missed(serve, loopback):
    a, b = serve.viewer(), serve.viewer()
    handle = open_and_attach(a, b)
    loopback.push(text_reply("before"))
    a.ok({"type": "prompt", "session": handle, "message": "one"})
    cursor = a.wait_event("agent_settled")["cursor"]
    a.close()
    b.wait(lambda r: r.get("cursor") == cursor)  # b has the first run's end too: the next settle is the second's
    loopback.push(text_reply("while you were away"))
    mark = b.mark()
    b.ok({"type": "prompt", "session": handle, "message": "two"})
    b.wait_event("agent_settled", start=mark)

    again = serve.viewer()
    answer = again.ok({"type": "attach", "session": handle, "cursor": cursor})
    b.wait(lambda r: r.get("cursor") == answer["cursor"])
    missed = [r for r in b.stream(handle) if cursor < r["cursor"] <= answer["cursor"]]
    assert "snapshot" not in answer and answer["replayed"] == len(missed) > 0
    again.wait(lambda r: r.get("cursor") == missed[-1]["cursor"])
    assert [r for r in again.stream(handle) if r["cursor"] <= answer["cursor"]] == missed

    # A cursor the server never gave (another run of it): a snapshot to start again from.
    other = serve.viewer()
    resync = other.ok({"type": "attach", "session": handle, "cursor": missed[-1]["cursor"] + 1000})
    assert resync["resync"] is True and resync["snapshot"]["cursor"] == resync["cursor"]
    assert user_texts(resync["snapshot"]["entries"]) == ["one", "two"]


def test_a_run_survives_its_only_viewer_leaving_and_is_there_on_reattach(serve, loopback):
    a = serve.viewer()
    handle = open_and_attach(a)
    gate = threading.Event()
    loopback.push(gated_reply("The answer nobody watched.", gate))
    a.ok({"type": "prompt", "session": handle, "message": "work while I am away"})
    a.wait_event("message_update")
    a.close()
    watcher = serve.viewer()
    row = watcher.ok({"type": "list_sessions"})["sessions"][0]
    assert (row["session"], row["status"], row["viewers"]) == (handle, "working", 0)
    gate.set()
    assert wait_until(lambda: watcher.ok({"type": "list_sessions"})["sessions"][0]["status"] == "idle", timeout=20)
    row = watcher.ok({"type": "list_sessions"})["sessions"][0]
    assert row["lastAnswer"] == "The answer nobody watched."

    b = serve.viewer()
    snapshot = b.ok({"type": "attach", "session": handle})["snapshot"]
    answers = [e["message"] for e in snapshot["entries"] if e.get("message", {}).get("role") == "assistant"]
    assert answers[-1]["content"][0]["text"] == "The answer nobody watched."
    assert snapshot["state"]["isStreaming"] is False and snapshot["status"] == "idle"
    listed = subprocess.run([PI, "attach", "--list"], capture_output=True, text=True, env=serve.env,
                            cwd=serve.env["PI_TEST_PROJECT"], timeout=30)
    assert listed.returncode == 0 and handle in listed.stdout and "idle" in listed.stdout
    assert "The answer nobody watched." in listed.stdout


def test_the_socket_is_private_and_a_second_server_is_refused(served_env, serve):
    assert stat.S_IMODE(os.stat(serve.socket).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(serve.socket.parent).st_mode) == 0o700
    assert serve.socket.parent == Path(served_env["XDG_RUNTIME_DIR"], "pi")
    second = subprocess.run([PI, "serve"], capture_output=True, text=True, env=served_env,
                            cwd=served_env["PI_TEST_PROJECT"], timeout=30)
    assert second.returncode == 1
    assert second.stderr.count("\n") == 1 and "already running" in second.stderr
    assert str(serve.socket) in second.stderr and f"pid {serve.proc.pid}" in second.stderr
    # The first one still serves.
    assert serve.viewer().ok({"type": "list_sessions"}) == {"sessions": []}


def test_malformed_lines_get_an_error_and_the_connection_survives(serve):
    viewer = SocketViewer(serve.socket)
    early = viewer.request({"type": "list_sessions"})
    assert early["success"] is False and "hello" in early["error"]
    bad_version = viewer.request({"type": "hello", "protocol": 99})
    assert bad_version["success"] is False and "protocol 1" in bad_version["error"]
    viewer.ok({"type": "hello", "protocol": 1})
    mark = viewer.mark()
    viewer.send_raw(b"{not json\n")
    parse = viewer.wait(lambda r: r.get("type") == "response", start=mark)
    assert parse["command"] == "parse" and parse["success"] is False and "Failed to parse" in parse["error"]
    mark = viewer.mark()
    viewer.send_raw(b'["a list"]\n')
    assert "'type'" in viewer.wait(lambda r: r.get("type") == "response", start=mark)["error"]
    unknown = viewer.request({"type": "prompt", "session": "nope", "message": "hi"})
    assert unknown["success"] is False and "No live session 'nope'" in unknown["error"]
    handle = viewer.ok({"type": "open_session"})["session"]
    odd = viewer.request({"type": "no_such_command", "session": handle})
    assert odd["success"] is False and "Unknown command" in odd["error"]
    assert viewer.ok({"type": "get_state", "session": handle})["isStreaming"] is False


def test_a_pi_rpc_client_drives_one_served_session(serve, served_env, loopback):
    handle = serve.viewer().ok({"type": "open_session"})["session"]
    client = RpcClient(served_env, argv=[PI, "attach", handle, "--mode", "rpc"])
    try:
        loopback.push(text_reply("Plain RPC works."))
        assert client.ok({"type": "prompt", "message": "hello"}) == {"disposition": "started"}
        settled = client.wait_event("agent_settled")
        assert settled == {"type": "agent_settled", "aborted": False}  # Pi's shape: no session, no cursor
        for record in client.events():
            assert "session" not in record and "cursor" not in record
            assert record["type"] not in ("session_entries", "session_state", "session_changed")
        update = next(r for r in client.events() if r["type"] == "message_update")
        assert set(update) == {"type", "usage", "assistantMessageEvent"}
        state = client.ok({"type": "get_state"})
        assert state["messageCount"] >= 2 and state["isStreaming"] is False
        assert client.ok({"type": "get_last_assistant_text"}) == {"text": "Plain RPC works."}
        bad = client.request({"type": "set_thinking_level", "level": "enormous"})
        assert bad["success"] is False and "session" not in bad
    finally:
        assert client.close() == 0  # end of stdin detaches; the session stays on the server
    assert serve.viewer().ok({"type": "list_sessions"})["sessions"][0]["session"] == handle


def test_a_permission_question_goes_to_every_viewer_and_the_first_answer_wins(served_env, loopback):
    data = Path(served_env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    process = ServeProcess(served_env, "--model", MODEL, "-e", "builtin:permission-gate")
    try:
        a, b = process.viewer(), process.viewer()
        handle = open_and_attach(a, b)
        loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("done"))
        a.ok({"type": "prompt", "session": handle, "message": "clean up"})
        asked_a = a.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
        asked_b = b.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
        assert asked_a == asked_b
        # A third viewer attaching now finds the question in its snapshot.
        late = process.viewer().ok({"type": "attach", "session": handle})["snapshot"]
        assert [p["id"] for p in late["ui"]["pending"]] == [asked_a["id"]] and late["status"] == "waiting"
        b.send({"type": "extension_ui_response", "session": handle, "id": asked_a["id"], "confirmed": True})
        resolved = a.wait_event("extension_ui_resolved", id=asked_a["id"])
        assert resolved["confirmed"] is True
        a.send({"type": "extension_ui_response", "session": handle, "id": asked_a["id"], "confirmed": False})
        end = a.wait_event("tool_execution_end")
        assert end["isError"] is False and not data.exists()
        a.wait_event("agent_settled")
        assert len([r for r in b.stream(handle) if r["type"] == "extension_ui_resolved"]) == 1
    finally:
        process.stop()


def test_the_server_never_imports_the_app(served_env, loopback):
    env = {**served_env, "PYTHONPROFILEIMPORTTIME": "1"}
    process = ServeProcess(env, "--model", MODEL)
    try:
        viewer = process.viewer()
        handle = open_and_attach(viewer)
        loopback.push(text_reply("headless"))
        viewer.ok({"type": "prompt", "session": handle, "message": "hi"})
        viewer.wait_event("agent_settled")
    finally:
        process.stop()
    imported = [line.rsplit("|", 1)[-1].strip() for line in process.stderr().splitlines() if "import time:" in line]
    assert any(name.startswith("pi_runtime.serve") for name in imported)
    assert [name for name in imported if name.split(".")[0] in ("textual", "rich", "pi_tui")] == []


def test_stopping_the_server_closes_its_sessions_and_removes_the_socket(served_env, loopback):
    process = ServeProcess(served_env, "--model", MODEL)
    viewer = process.viewer()
    handle = open_and_attach(viewer)
    loopback.push(stalled_reply())
    viewer.ok({"type": "prompt", "session": handle, "message": "long job"})
    viewer.wait_event("message_update")
    assert process.stop() == 128 + 15
    closed = viewer.wait_event("session_closed")
    assert closed["reason"] == "server stopped"
    assert not process.socket.exists()
    assert "Traceback" not in process.stderr()  # the attached viewer's connection ends quietly
    [file] = Path(served_env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl")
    lines = [json.loads(line) for line in file.read_text().splitlines()]
    assert lines[-1]["message"]["stopReason"] == "aborted"


def test_a_killed_servers_place_is_taken_over_and_no_server_is_one_line(served_env):
    cwd = served_env["PI_TEST_PROJECT"]
    nobody = subprocess.run([PI, "attach", "--list"], capture_output=True, text=True, env=served_env, cwd=cwd, timeout=30)
    assert nobody.returncode == 1 and nobody.stderr.count("\n") == 1 and "no pi serve listens" in nobody.stderr
    first = ServeProcess(served_env, "--model", MODEL)
    first.proc.kill()  # no clean-up: the socket file stays behind, the lock goes with the process
    first.proc.wait(10)
    assert first.socket.exists()
    second = ServeProcess(served_env, "--model", MODEL)
    try:
        assert second.socket == first.socket
        assert second.viewer().ok({"type": "list_sessions"}) == {"sessions": []}
    finally:
        second.stop()


def test_an_untrusted_folder_is_said_at_start(served_env):
    # The server cannot ask the app's trust question: as in Pi's headless modes the folder's own
    # extensions and settings are not loaded, and the server says so rather than run without them.
    project = Path(served_env["PI_TEST_PROJECT"])
    (project / ".pi" / "extensions").mkdir(parents=True)
    (project / ".pi" / "extensions" / "mine.py").write_text("def extension(pi):\n    pass\n")
    process = ServeProcess(served_env, "--model", MODEL)
    try:
        assert wait_until(lambda: any("is not trusted" in line for line in process.lines))
    finally:
        process.stop()
    trusted = ServeProcess(served_env, "--model", MODEL, "--approve")
    try:
        trusted.viewer().ok({"type": "open_session"})  # started and answering: the notice came first
        assert not any("is not trusted" in line for line in trusted.lines)
    finally:
        trusted.stop()
