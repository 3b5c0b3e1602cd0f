"""End-to-end fixtures: the installed ``pi`` executable against a loopback OpenAI-compatible server.

Each test gets a fresh agent dir whose models.json points a custom provider (``loop``, api
``openai-completions``) at the module's ``LoopbackServer``; settings make retries fast.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.testing.loopback import LoopbackServer, Reply  # noqa: F401 - LoopbackServer is re-exported to the tests

MODEL = "loop/loop-model"


def pi_executable() -> str:
    """The ``pi`` console script of the running environment (CI installs with ``pip install -e .``)."""
    beside = Path(sys.executable).parent / "pi"
    if beside.exists():
        return str(beside)
    found = shutil.which("pi")
    if found is None:
        pytest.skip("the pi executable is not installed (pip install -e .)")
    return found


PI = pi_executable()


# ----------------------------------------------------------------------------- replies


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "loop-model",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def usage(prompt: int = 20, completion: int = 5) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


def text_reply(text: str, *, finish: str = "stop", size: int = 4, delay: float = 0.0) -> Reply:
    pieces = [chunk({"content": text[i:i + size]}) for i in range(0, len(text), size)]
    return Reply.sse([*pieces, chunk(finish=finish), usage(), "[DONE]"], delay=delay)


def tool_reply(name: str, arguments: dict[str, Any], call_id: str = "call_1", text: str | None = None) -> Reply:
    events: list[Any] = [chunk({"content": text})] if text else []
    call = {"index": 0, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}
    events += [chunk({"tool_calls": [call]}), chunk(finish="tool_calls"), usage(), "[DONE]"]
    return Reply.sse(events)


def stalled_reply(text: str = "Working on it") -> Reply:
    """Starts answering, then sends nothing more until the client gives up."""
    return Reply.sse([chunk({"content": text})], stall=True)


def error_reply(status: int, message: str) -> Reply:
    return Reply.json(status, {"error": {"message": message, "type": "server_error"}})


# ----------------------------------------------------------------------------- fixtures


def run_pi(args: list[str], env: dict[str, str], *, stdin: str | bytes | None = None,
           timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Run ``pi`` in the test project folder; stdin is a pipe (so pi is never interactive)."""
    data = stdin.encode() if isinstance(stdin, str) else (stdin if stdin is not None else b"")
    proc = subprocess.run([PI, *args], input=data, capture_output=True, env=env,
                          cwd=env["PI_TEST_PROJECT"], timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def session_files(env: dict[str, str]) -> list[Path]:
    return sorted(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))


def assert_one_line_error(stderr: str) -> None:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
