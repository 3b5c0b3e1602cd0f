"""When stdout's reader goes away (``pi --mode json … | head -1``), pi stops the run.

The model here would call ``bash`` 30 times (each call appends a line to a counter file);
the reader takes one line, then closes its end of the pipe. pi must stop calling the model
and the tools, keep the session file whole, print no traceback and exit 141, as a tool
killed by SIGPIPE would.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from e2e_support import MODEL, PI, session_files, text_reply, tool_reply

CALLS = 30


@pytest.fixture
def busy_model(loopback, tmp_path):
    counter = tmp_path / "tool-runs"
    counter.write_text("")
    served = []

    def responder(request):
        served.append(request)
        if len(served) > CALLS:
            return text_reply("done")
        return tool_reply("bash", {"command": f"echo {len(served)} >> {counter}"}, call_id=f"call_{len(served)}")

    loopback.responder = responder
    return counter, served


def _start(env, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([PI, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=env["PI_TEST_PROJECT"])


def _finish(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    assert proc.stderr is not None
    code = proc.wait(60)
    return code, proc.stderr.read().decode()


def _assert_session_whole(env) -> list[dict]:
    [saved] = session_files(env)
    text = saved.read_text()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def _tool_runs(counter: Path) -> int:
    return len(counter.read_text().split())


def test_json_mode_stops_when_the_reader_leaves(env, busy_model):
    counter, served = busy_model
    proc = _start(env, "--mode", "json", "--model", MODEL, "keep going")
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    first = json.loads(proc.stdout.readline())  # what `head -1` reads
    assert first["type"] == "session"
    proc.stdout.close()
    code, stderr = _finish(proc)
    assert code == 141, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    # Before: every one of the 30 model and tool calls ran, and pi exited 0.
    assert _tool_runs(counter) <= 2 and len(served) <= 3
    entries = _assert_session_whole(env)
    assert entries[0]["type"] == "session"


def test_print_mode_stops_when_nobody_will_read_the_answer(env, busy_model):
    counter, served = busy_model
    proc = _start(env, "-p", "--model", MODEL, "keep going")
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.close()  # the reader is gone before the answer exists
    proc.stdin.close()
    code, stderr = _finish(proc)
    assert code == 141, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert _tool_runs(counter) <= 2 and len(served) <= 3
    _assert_session_whole(env)


def test_rpc_mode_stops_when_the_client_stops_reading(env, busy_model):
    counter, served = busy_model
    proc = _start(env, "--mode", "rpc", "--model", MODEL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"id":"p","type":"prompt","message":"keep going"}\n')
    proc.stdin.flush()
    while json.loads(proc.stdout.readline()).get("id") != "p":
        pass
    proc.stdout.close()
    code, stderr = _finish(proc)
    assert code == 141, stderr
    assert "Traceback" not in stderr, stderr
    assert _tool_runs(counter) <= 2 and len(served) <= 3
    _assert_session_whole(env)
    proc.stdin.close()


def test_list_models_into_a_closed_pipe_is_quiet(env):
    # The reader is gone before pi starts: closing it after the start raced a fast pi that
    # had already written everything and exited 0.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.Popen([PI, "--list-models"], stdin=subprocess.DEVNULL, stdout=write_end,
                                stderr=subprocess.PIPE, env=env, cwd=env["PI_TEST_PROJECT"])
    finally:
        os.close(write_end)
    code, stderr = _finish(proc)
    assert code == 141, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
