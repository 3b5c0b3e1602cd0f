"""The queue over ``pi --mode rpc``: pi's get_queue/edit_queued/remove_queued/move_queued, and a
queue count that matches what is queued after a storm of follow-ups and aborts.

The model's first answer stalls (a loopback reply that never ends), so queued messages stay
queued until the test aborts; the next prompt's requests show what the model received, in order.
"""

from __future__ import annotations

import pytest
from e2e_support import MODEL, stalled_reply, text_reply
from rpc_client import RpcClient


@pytest.fixture
def client(env):
    c = RpcClient(env, "--model", MODEL, "--no-session")
    yield c
    c.kill()


def user_texts(request) -> list[str]:
    out = []
    for message in request.json()["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return out


def start_stalled_run(c: RpcClient, loopback, message: str = "start") -> None:
    loopback.push(stalled_reply())
    before, mark = len(loopback.requests), c.mark()
    c.ok({"type": "prompt", "message": message})
    c.wait(lambda r: r.get("type") == "message_update", start=mark)
    assert len(loopback.requests) == before + 1


def test_queued_messages_are_edited_removed_moved_and_delivered_as_edited(client, loopback):
    c = client
    start_stalled_run(c, loopback)
    for kind, text in (("steer", "steer A"), ("steer", "steer B"), ("follow_up", "follow C"), ("follow_up", "follow D")):
        assert c.ok({"type": kind, "message": text}) == {"disposition": "queued"}
    queue = c.ok({"type": "get_queue"})["queue"]
    assert [(q["kind"], q["text"], q["images"]) for q in queue] == [
        ("steer", "steer A", 0), ("steer", "steer B", 0), ("followUp", "follow C", 0), ("followUp", "follow D", 0)]
    a, b, c_id, d = (q["id"] for q in queue)

    edited = c.ok({"type": "edit_queued", "messageId": b, "message": "steer B, edited"})["queue"]
    assert [q["text"] for q in edited] == ["steer A", "steer B, edited", "follow C", "follow D"]
    assert [q["id"] for q in c.ok({"type": "remove_queued", "messageId": a})["queue"]] == [b, c_id, d]
    moved = c.ok({"type": "move_queued", "messageId": d, "index": 0, "kind": "steer"})["queue"]
    assert [(q["id"], q["kind"]) for q in moved] == [(d, "steer"), (b, "steer"), (c_id, "followUp")]
    moved = c.ok({"type": "move_queued", "messageId": b, "kind": "followUp"})["queue"]  # index defaults to last
    assert [(q["id"], q["kind"]) for q in moved] == [(d, "steer"), (c_id, "followUp"), (b, "followUp")]
    # Pi's queue_update keeps Pi's shape: texts only, no ids.
    update = c.wait(lambda r: r.get("type") == "queue_update" and r["followUp"] == ["follow C", "steer B, edited"])
    assert update == {"type": "queue_update", "steering": ["follow D"], "followUp": ["follow C", "steer B, edited"]}
    assert c.ok({"type": "get_state"})["pendingMessageCount"] == 3

    bad = c.request({"type": "move_queued", "messageId": b, "index": "first"})
    assert bad["success"] is False and "index" in bad["error"]
    bad = c.request({"type": "move_queued", "messageId": b, "index": 0, "kind": "later"})
    assert bad["success"] is False and "kind" in bad["error"]
    gone = c.request({"type": "edit_queued", "messageId": a, "message": "x"})
    assert gone == {"type": "response", "id": gone["id"], "command": "edit_queued", "success": False,
                    "error": f"Queued message {a} was removed from the queue"}

    # Aborting keeps the queue (as Pi); the next run delivers it in the edited order.
    c.ok({"type": "abort"})
    loopback.push(text_reply("one"), text_reply("two"), text_reply("three"), text_reply("four"))
    mark = c.mark()
    c.ok({"type": "prompt", "message": "go on"})
    assert c.wait_event("agent_settled", since=mark)["aborted"] is False
    texts = [user_texts(r)[-1] for r in loopback.requests[-4:]]
    assert texts == ["go on", "follow D", "follow C", "steer B, edited"]
    late = c.request({"type": "edit_queued", "messageId": d, "message": "too late"})
    assert late["success"] is False and late["error"] == f"Queued message {d} was already sent"
    assert c.ok({"type": "get_queue"}) == {"queue": []}
    assert c.close() == 0


def test_the_pending_count_matches_the_queue_through_a_storm_of_follow_ups_and_aborts(client, loopback):
    """Issue 26 part 6. Pi 1.6 on the same sequence keeps the follow-ups queued after each abort and
    reports them (16 here), then delivers them with the next prompt (0)."""
    c = client
    queued: list[str] = []
    for round_ in range(4):
        start_stalled_run(c, loopback, f"prompt {round_}")
        for n in range(4):
            text = f"follow {round_}.{n}"
            c.ok({"type": "follow_up", "message": text})
            queued.append(text)
        c.ok({"type": "abort"})
        state = c.ok({"type": "get_state"})
        assert state["isStreaming"] is False
        listed = c.ok({"type": "get_queue"})["queue"]
        assert [q["text"] for q in listed] == queued
        assert state["pendingMessageCount"] == len(listed) == len(queued)
        c.wait(lambda r: r.get("type") == "queue_update" and r["followUp"] == queued)

    # The next prompt delivers every queued follow-up, one per completion (followUpMode one-at-a-time).
    loopback.push(*(text_reply(f"answer {i}") for i in range(len(queued) + 1)))
    mark = c.mark()
    c.ok({"type": "prompt", "message": "now finish"})
    c.wait_event("agent_settled", since=mark, timeout=60)
    assert user_texts(loopback.requests[-1])[-len(queued):] == queued
    state = c.ok({"type": "get_state"})
    assert (state["isStreaming"], state["pendingMessageCount"]) == (False, 0)
    assert c.ok({"type": "get_queue"}) == {"queue": []}
    assert c.ok({"type": "clear_queue"}) == {"steering": [], "followUp": []}
    assert c.close() == 0


def test_clear_queue_empties_the_list_and_the_count(client, loopback):
    c = client
    start_stalled_run(c, loopback)
    c.ok({"type": "steer", "message": "s"})
    c.ok({"type": "follow_up", "message": "f"})
    ids = [q["id"] for q in c.ok({"type": "get_queue"})["queue"]]
    assert c.ok({"type": "clear_queue"}) == {"steering": ["s"], "followUp": ["f"]}
    assert c.ok({"type": "get_state"})["pendingMessageCount"] == 0
    assert c.ok({"type": "get_queue"}) == {"queue": []}
    refused = c.request({"type": "remove_queued", "messageId": ids[0]})
    assert refused["success"] is False and "removed from the queue" in refused["error"]
    unknown = c.request({"type": "remove_queued", "messageId": "nope"})
    assert unknown["success"] is False and unknown["error"] == "Queued message nope is not a queued message"
    c.ok({"type": "abort"})
    assert c.close() == 0
