"""A crash during a session's first reply keeps the first prompt (issue #34).

pi used to write a new session's file only with the first assistant message, so ``kill -9``
while that reply streamed left nothing on disk. Like Pi 1.6, the header, the setup entries and
the prompt are written as soon as the prompt is taken; the reply waits on a gate the test never
opens, so the process is killed while it is streaming, with no fixed sleep.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

from e2e_support import MODEL, chunk, run_pi, session_files, text_reply, usage
from rpc_client import RpcClient
from test_interactive_pty import Terminal

from pi_runtime.testing.loopback import Reply


def gated_reply(gate: threading.Event) -> Reply:
    return Reply.sse([chunk({"content": "Streaming the first"}), chunk({"content": " answer"}),
                      chunk(finish="stop"), usage(), "[DONE]"], gate_at=1, gate=gate)


def entries_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def user_text(entry: dict[str, Any]) -> str:
    content = entry["message"]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def assert_prompt_saved(env: dict[str, str], prompt: str) -> Path:
    [path] = session_files(env)
    entries = entries_of(path)
    assert entries[0]["type"] == "session" and entries[0]["cwd"] == env["PI_TEST_PROJECT"]
    messages = [e for e in entries if e["type"] == "message" and e["message"]["role"] in ("user", "assistant")]
    assert [(m["message"]["role"], user_text(m)) for m in messages] == [("user", prompt)]
    return path


def assert_continued(env: dict[str, str], loopback: Any, path: Path, prompt: str) -> None:
    # The killed process held the file's lock; the kernel let it go, so the next pi continues
    # the same file, and the model sees the first prompt too.
    loopback.push(text_reply("Continued."))
    again = run_pi(["-p", "go on", "-c", "--model", MODEL], env)
    assert (again.returncode, again.stdout, again.stderr) == (0, "Continued.\n", "")
    assert session_files(env) == [path]
    sent = [m for m in loopback.requests[-1].json()["messages"] if m["role"] == "user"]
    assert [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in sent] == [prompt, "go on"]
    roles = [e["message"]["role"] for e in entries_of(path) if e["type"] == "message"]
    assert roles[-3:] == ["user", "user", "assistant"]


def test_kill_9_during_the_first_rpc_reply_keeps_the_prompt(env, loopback):
    gate = threading.Event()
    loopback.push(gated_reply(gate))
    client = RpcClient(env, "--model", MODEL)
    try:
        client.ok({"type": "prompt", "message": "the first prompt"})
        client.wait(lambda r: r.get("type") == "message_update"
                    and r.get("assistantMessageEvent", {}).get("type") == "text_delta")
        os.kill(client.proc.pid, signal.SIGKILL)
        client.proc.wait()
    finally:
        gate.set()
        client.proc.kill()
        client.proc.wait()
    path = assert_prompt_saved(env, "the first prompt")
    assert_continued(env, loopback, path, "the first prompt")


def test_kill_9_during_the_first_reply_in_the_app_keeps_the_prompt(env, loopback):
    gate = threading.Event()
    loopback.push(gated_reply(gate))
    term = Terminal(["--model", MODEL], env)
    try:
        assert term.wait_for("loop-model"), term.screen[-2000:]
        term.type(b"asked in the app\r")
        assert term.wait_for("Streamingthefirst"), term.screen[-2000:]
        os.kill(term.pid, signal.SIGKILL)
        os.waitpid(term.pid, 0)
    finally:
        gate.set()
        term.close()
    path = assert_prompt_saved(env, "asked in the app")
    assert_continued(env, loopback, path, "asked in the app")
