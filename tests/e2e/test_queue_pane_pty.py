"""The queue pane in the installed ``pi`` on a real terminal (issue #24): messages typed while the
agent works are queued, Alt+Q moves into the list, and what is done there (an edit in place, a
steer turned into a follow-up, a move, a delete) is what the model receives once the run goes on.

The first answer waits on a gate the test opens (a loopback reply that streams one piece, then
nothing until told), so the queue stays put while the test works on it; no fixed sleeps.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from e2e_support import MODEL, chunk, session_files, text_reply, usage
from test_interactive_pty import Terminal

from pi_runtime.testing.loopback import Reply
from pi_runtime.testing.waiting import wait_until

ALT_ENTER = b"\x1b\r"  # app.message.followUp
ALT_Q = b"\x1bq"  # pi.queue.focus
DOWN = b"\x1b[B"
UP = b"\x1b[A"
ESC = b"\x1b"


def user_texts(body: dict) -> list[str]:
    out = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return out


def saved_user_texts(env: dict[str, str]) -> list[str]:
    [path] = session_files(env)
    entries = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = []
    for entry in entries:
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return texts


def test_queue_edits_made_in_the_pane_reach_the_model_in_the_new_order(env, loopback):
    gate = threading.Event()
    working = Reply.sse([chunk({"content": "Working on it"}), chunk({"content": " - done."}),
                         chunk(finish="stop"), usage(), "[DONE]"], gate_at=1, gate=gate)
    loopback.push(working, text_reply("Answer to charlie"), text_reply("Answer to alpha"))
    term = Terminal(["--model", MODEL], env)
    try:
        assert term.wait_for("loop-model"), term.screen[-2000:]
        term.type(b"start the work\r")
        assert term.wait_for("Workingonit"), term.screen[-2000:]
        assert len(loopback.requests) == 1

        # Enter while the agent works steers; Alt+Enter queues a follow-up (Pi's keys).
        term.type(b"alpha\r")
        assert term.wait_for("steeralpha"), term.screen[-2000:]
        term.type(b"bravo\r")
        assert term.wait_for("steerbravo"), term.screen[-2000:]
        term.type(b"charlie" + ALT_ENTER)
        assert term.wait_for("follow-upcharlie"), term.screen[-2000:]

        term.type(ALT_Q)  # into the list: the first row (alpha) is selected
        assert term.wait_for("enteredit"), term.screen[-2000:]
        term.type(b"e")  # edit alpha in place, the cursor at its end
        assert term.wait_for("entersave"), term.screen[-2000:]
        term.type(b" edited\r")
        assert term.wait_for("steeralphaedited"), term.screen[-2000:]
        term.type(b"t")  # the steer becomes the first follow-up: bravo, alpha edited, charlie
        assert term.wait_for("follow-upalphaedited"), term.screen[-2000:]
        term.type(UP)
        assert term.wait_for("›steerbravo"), term.screen[-2000:]
        mark = term.mark()
        term.type(b"d")  # bravo is deleted; the selection goes to the next row (alpha edited)
        assert term.wait_for("›follow-upalphaedited", since=mark), term.screen[-2000:]
        term.type(DOWN)
        assert term.wait_for("›follow-upcharlie"), term.screen[-2000:]
        mark = term.mark()
        term.type(b"K")  # charlie moves above alpha: charlie, alpha edited
        assert term.wait_for("›follow-upcharlie", since=mark), term.screen[-2000:]
        mark = term.mark()
        term.type(ESC)  # back to the editor (the hint names the key that comes back)
        assert term.wait_for("alt+qtoedit", since=mark), term.screen[-2000:]
        term.type(b"\x15")  # Ctrl+U: the editor is empty again
        gate.set()
        assert wait_until(lambda: len(loopback.requests) == 3, timeout=30), term.screen[-2000:]
        assert term.wait_for("Answertoalpha"), term.screen[-2000:]

        sent = [user_texts(r.json()) for r in loopback.requests]
        assert sent[1] == ["start the work", "charlie"]
        assert sent[2] == ["start the work", "charlie", "alpha edited"]
        assert wait_until(lambda: saved_user_texts(env) == ["start the work", "charlie", "alpha edited"]), \
            saved_user_texts(env)
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        gate.set()
        term.close()
