"""Commands that leave a background job holding their output open, through the real ``pi``.

The model's ``bash`` tool (``pi -p``) and the user's own command (RPC ``bash``) both return
when the shell exits; the job keeps running, and shutting down afterwards is quiet.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from e2e_support import MODEL, run_pi, session_files, text_reply, tool_reply
from rpc_client import RpcClient


def _wait_for_pid(path: Path) -> int:
    for _ in range(500):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError(f"{path} was never written")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def test_print_mode_tool_call_with_a_background_job_returns_and_exits_cleanly(loopback, env, tmp_path):
    pid_file = tmp_path / "job.pid"
    loopback.push(
        tool_reply("bash", {"command": f"sleep 60 & echo $! > {pid_file}; echo started"}),
        text_reply("The job is running."),
    )
    # Before: no tool result ever came (the subprocess timeout fired).
    result = run_pi(["-p", "start a job", "--model", MODEL], env, timeout=60)
    pid = _wait_for_pid(pid_file)
    try:
        assert result.returncode == 0, result.stderr
        assert result.stdout == "The job is running.\n"
        assert "Event loop is closed" not in result.stderr and "Traceback" not in result.stderr
        assert _alive(pid)  # left alone, as Pi does
        tool_result = loopback.requests[1].json()["messages"][-1]
        assert tool_result["role"] == "tool" and tool_result["content"] == "started\n"
        [saved] = session_files(env)
        assert all(json.loads(line) for line in saved.read_text().splitlines())
    finally:
        _kill(pid)


def test_rpc_user_bash_with_a_setsid_job_answers(env, tmp_path):
    pid_file = tmp_path / "job.pid"
    client = RpcClient(env, "--no-session")
    pid = None
    try:
        command = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 60' & echo started"
        data = client.ok({"id": "b1", "type": "bash", "command": command}, timeout=30)
        assert data == {"output": "started\n", "exitCode": 0, "cancelled": False, "truncated": False}
        pid = _wait_for_pid(pid_file)
        assert _alive(pid)
        assert client.close() == 0
        assert "Traceback" not in client.proc.stderr.read().decode()
    finally:
        client.kill()
        if pid is not None:
            _kill(pid)
