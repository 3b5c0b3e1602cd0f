"""pi's tree commands over ``pi --mode rpc`` (and so over ``pi serve``): navigate_tree, set_label,
and the fields pi adds to Pi's cycle_model and clone."""

from __future__ import annotations

import pytest
from e2e_support import MODEL, text_reply
from rpc_client import RpcClient


@pytest.fixture
def client(env):
    c = RpcClient(env, "--model", MODEL, "--no-session")
    yield c
    c.kill()


def user_entry(entries: list[dict], text: str) -> dict:
    return next(e for e in entries if e["type"] == "message" and e["message"]["role"] == "user"
                and e["message"]["content"][0]["text"] == text)


def test_navigate_and_label_the_tree(client, loopback):
    c = client
    for text in ("one", "two"):
        loopback.push(text_reply(f"answer {text}"))
        mark = c.mark()
        c.ok({"type": "prompt", "message": text})
        c.wait_event("agent_settled", since=mark)
    entries = c.ok({"type": "get_entries"})["entries"]
    first, second = user_entry(entries, "one"), user_entry(entries, "two")

    result = c.ok({"type": "navigate_tree", "entryId": second["id"]})
    assert result == {"cancelled": False, "editorText": "two", "summaryEntryId": None}
    assert c.ok({"type": "get_entries"})["leafId"] == second["parentId"]
    assert c.ok({"type": "get_last_assistant_text"}) == {"text": "answer one"}

    label = c.ok({"type": "set_label", "entryId": first["id"], "label": "start here"})
    assert label["entryId"] != first["id"]
    root = c.ok({"type": "get_tree"})["tree"]

    def labels(nodes: list[dict]) -> dict:
        out = {}
        for node in nodes:
            if node.get("label"):
                out[node["entry"]["id"]] = node["label"]
            out.update(labels(node["children"]))
        return out

    assert labels(root) == {first["id"]: "start here"}
    c.ok({"type": "set_label", "entryId": first["id"], "label": None})
    assert labels(c.ok({"type": "get_tree"})["tree"]) == {}

    missing = c.request({"type": "navigate_tree", "entryId": "nope"})
    assert missing["success"] is False and "nope" in missing["error"]
    bad = c.request({"type": "navigate_tree", "entryId": first["id"], "summarize": 3})
    assert bad["success"] is False and "summarize" in bad["error"]


def test_cycle_model_backwards(client):
    c = client
    start = c.ok({"type": "get_state"})["model"]["id"]
    back = c.ok({"type": "cycle_model", "direction": -1})
    assert back["model"]["id"] != start
    assert c.ok({"type": "cycle_model", "direction": 1})["model"]["id"] == start
    bad = c.request({"type": "cycle_model", "direction": 2})
    assert bad["success"] is False and "direction" in bad["error"]
