"""The phone layout (``pi_tui.phone``) on the installed ``pi serve``, driven with Pilot.

A permission question asked by a run started from another viewer shows on the phone as a card
with Approve/Deny; the answer given there lets the command run, and the card follows the run.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from e2e_support import MODEL, Reply, chunk, text_reply, tool_reply, usage
from serve_support import ServeProcess, short_runtime_dir

from pi_runtime.testing.waiting import eventually
from pi_tui.phone.app import PhoneApp
from pi_tui.phone.cards import SessionCard
from pi_tui.phone.questions import QuestionBox


@pytest.fixture
def gated(env):
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "-e", "builtin:permission-gate")
    yield process
    process.stop()
    shutil.rmtree(runtime, ignore_errors=True)


def card_text(card: SessionCard) -> str:
    return " ".join(str(static.render()) for static in card.query("Static"))


async def test_a_permission_question_is_answered_from_the_phone(gated, loopback, env):
    data = Path(env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    viewer = gated.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    viewer.ok({"type": "attach", "session": handle})
    loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("Cleaned up the data folder."))
    viewer.ok({"type": "prompt", "session": handle, "message": "clean up"})
    app = PhoneApp(gated.socket)
    async with app.run_test(size=(44, 40)) as pilot:
        assert await eventually(lambda: app.query("#approve"), timeout=30), "no question on the phone"
        card = app.cards[handle]
        assert await eventually(lambda: "waiting on you" in card_text(card) and card.has_class("-waiting"))
        box = app.query_one(QuestionBox)
        assert box.kind == "confirm" and "rm -rf data" in card_text(card)
        await pilot.pause()  # laid out: the click lands on the button
        assert await pilot.click("#approve")
        viewer.wait_event("agent_settled", timeout=30)
        assert await eventually(lambda: "Cleaned up the data folder." in card_text(card), timeout=30)
        assert not app.query(QuestionBox)
        assert "✓ done" in card_text(card)
    assert not data.exists()  # approved: the command ran
    viewer.close()


async def test_deny_from_the_phone_keeps_the_files_and_another_viewers_answer_closes_the_question(gated, loopback, env):
    data = Path(env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    viewer = gated.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    viewer.ok({"type": "attach", "session": handle})
    loopback.push(tool_reply("bash", {"command": "rm -rf data"}), tool_reply("bash", {"command": "rm -rf data"},
                  call_id="call_2"), text_reply("Left it alone."))
    viewer.ok({"type": "prompt", "session": handle, "message": "clean up"})
    app = PhoneApp(gated.socket)
    async with app.run_test(size=(44, 40)) as pilot:
        assert await eventually(lambda: app.query("#deny"), timeout=30)
        await pilot.press("d")  # the key beside Deny
        second = viewer.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm"
                             and r["id"] != viewer.wait_event("extension_ui_resolved")["id"], timeout=30)
        assert await eventually(lambda: app.query(QuestionBox), timeout=30)
        # Answered on the desk: the phone's question goes.
        viewer.send({"type": "extension_ui_response", "session": handle, "id": second["id"], "confirmed": False})
        assert await eventually(lambda: not app.query(QuestionBox), timeout=30)
        viewer.wait_event("agent_settled", timeout=30)
    assert data.exists()
    viewer.close()


async def test_the_phone_shows_a_working_session_and_its_queue(env, loopback):
    runtime = short_runtime_dir()
    serve = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL)
    gate = threading.Event()
    events = [chunk({"content": "Halfway, "}), chunk({"content": "and finished."}), chunk(finish="stop"), usage(),
              "[DONE]"]
    loopback.push(Reply.sse(events, gate_at=1, gate=gate), text_reply("Tidied up too."))
    try:
        viewer = serve.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.ok({"type": "attach", "session": handle})
        viewer.ok({"type": "prompt", "session": handle, "message": "start"})
        viewer.wait_event("message_update")
        viewer.ok({"type": "follow_up", "session": handle, "message": "also tidy up"})
        app = PhoneApp(serve.socket)
        async with app.run_test(size=(44, 30)):
            assert await eventually(lambda: handle in app.cards, timeout=30)
            card = app.cards[handle]
            assert await eventually(lambda: "● working" in card_text(card) and "then: also tidy up" in card_text(card),
                                    timeout=30), card_text(card)
            gate.set()
            assert await eventually(lambda: "Tidied up too." in card_text(card) and "✓ done" in card_text(card)
                                    and "then:" not in card_text(card), timeout=30), card_text(card)
        viewer.close()
    finally:
        gate.set()
        serve.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def test_phone_snapshot(snap_compare, gated, loopback, env):
    # Two sessions: one waiting on the permission gate's question, one done.
    (Path(env["PI_TEST_PROJECT"]) / "data").mkdir()
    viewer = gated.viewer()
    waiting = viewer.ok({"type": "open_session", "name": "cleanup"})["session"]
    done = viewer.ok({"type": "open_session", "name": "docs pass"})["session"]
    for handle in (waiting, done):
        viewer.ok({"type": "attach", "session": handle})
    loopback.push(text_reply("I updated the README and the two guides; every link resolves."))
    viewer.ok({"type": "prompt", "session": done, "message": "docs"})
    viewer.wait_event("agent_settled")
    loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("Cleaned."))
    viewer.ok({"type": "prompt", "session": waiting, "message": "clean up"})
    viewer.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")

    async def ready(pilot) -> None:
        app = pilot.app
        assert await eventually(lambda: app.query("#deny") and len(app.cards) == 2, timeout=30)
        assert await eventually(lambda: "✓ done" in card_text(app.cards[done])
                                and "waiting on you" in card_text(app.cards[waiting]), timeout=30)
        await pilot.pause()

    assert snap_compare(PhoneApp(gated.socket), terminal_size=(44, 30), run_before=ready)
    viewer.close()
