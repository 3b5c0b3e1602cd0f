"""Two ``pi attach`` apps (the installed command, each on its own terminal) on one served session:
a prompt typed in either runs in the server, both draw both answers, and quitting both leaves the
session in the server."""

from __future__ import annotations

import shutil

from e2e_support import MODEL, text_reply
from serve_support import ServeProcess, short_runtime_dir
from test_interactive_pty import Terminal


def test_two_attached_apps_share_one_session(env, loopback):
    runtime = short_runtime_dir()
    served_env = {**env, "XDG_RUNTIME_DIR": runtime}
    serve = ServeProcess(served_env, "--model", MODEL)
    terms: list[Terminal] = []
    try:
        viewer = serve.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        terms = [Terminal(["attach", handle], served_env) for _ in range(2)]
        for term in terms:
            assert term.wait_for("loop-model"), term.screen[-2000:]
        one, two = terms
        loopback.push(text_reply("Answer for the first app."))
        mark = [term.mark() for term in terms]
        one.type(b"from the first\r")
        for term, since in zip(terms, mark, strict=True):
            assert term.wait_for("Answerforthefirstapp.", since=since), term.screen[-2000:]
        loopback.push(text_reply("Answer for the second app."))
        mark = [term.mark() for term in terms]
        two.type(b"from the second\r")
        for term, since in zip(terms, mark, strict=True):
            assert term.wait_for("fromthesecond", since=since), term.screen[-2000:]
            assert term.wait_for("Answerforthesecondapp.", since=since), term.screen[-2000:]
        for term in terms:
            term.type(b"\x04")  # Ctrl+D on an empty editor: quit (detach)
            assert term.exit_status() == 0
            assert term.wait_for(f"Detached:piservegoesonrunningit(piattach{handle})"), term.screen[-2000:]
        [row] = viewer.ok({"type": "list_sessions"})["sessions"]
        assert (row["viewers"], row["lastAnswer"]) == (0, "Answer for the second app.")  # both apps detached
        viewer.close()
    finally:
        for term in terms:
            term.close()
        serve.stop()
        shutil.rmtree(runtime, ignore_errors=True)
