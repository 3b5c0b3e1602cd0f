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


def test_attach_mistakes_are_one_line_before_the_app_starts(env):
    import subprocess

    from e2e_support import PI

    runtime = short_runtime_dir()
    served_env = {**env, "XDG_RUNTIME_DIR": runtime}
    cwd = env["PI_TEST_PROJECT"]
    try:
        nobody = subprocess.run([PI, "attach"], capture_output=True, text=True, env=served_env, cwd=cwd, timeout=30)
        assert nobody.returncode == 1 and nobody.stderr.count("\n") == 1 and "no pi serve listens" in nobody.stderr
        serve = ServeProcess(served_env, "--model", MODEL)
        try:
            viewer = serve.viewer()
            handles = [viewer.ok({"type": "open_session"})["session"] for _ in range(2)]
            unknown = subprocess.run([PI, "attach", "zzzz"], capture_output=True, text=True, env=served_env, cwd=cwd,
                                     timeout=30)
            assert unknown.returncode == 1 and unknown.stderr == "pi: no session zzzz on this pi serve (pi attach --list names them)\n"
            listed = subprocess.run([PI, "attach", "--list"], capture_output=True, text=True, env=served_env, cwd=cwd,
                                    timeout=30)
            numbered = [line.split()[:2] for line in listed.stdout.splitlines() if not line.startswith("    ")]
            assert numbered == [["1", handles[0]], ["2", handles[1]]]
            viewer.close()
        finally:
            serve.stop()
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
