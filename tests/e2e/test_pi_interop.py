"""Session files shared with the real Pi: Pi writes, pi continues, Pi continues again.

Runs only where Pi is installed and named by ``PI_REFERENCE`` (the path of its ``pi``
executable; Node ≥ 22.19 on PATH), e.g. after
``npm install node@22 @earendil-works/pi-coding-agent`` in a scratch folder. Elsewhere it
is skipped, which the test report shows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_runtime.testing.loopback import Reply

PI_REFERENCE = os.environ.get("PI_REFERENCE")
pytestmark = pytest.mark.skipif(
    not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)"
)


def _tool_then_answer(counter):
    def responder(request):
        counter[0] += 1
        body = request.json() or {}
        last = (body.get("messages") or [{}])[-1]
        if last.get("role") == "user" and body.get("tools"):
            return Reply.sse([
                {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                    {"index": 0, "id": f"call_{counter[0]}", "type": "function",
                     "function": {"name": "bash", "arguments": '{"command": "echo shared"}'}}]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                 "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}},
                "[DONE]",
            ])
        return Reply.sse([
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": f"answer {counter[0]}"}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 60, "completion_tokens": 2, "total_tokens": 62}},
            "[DONE]",
        ])

    return responder


def test_pi_and_pi_share_one_session_file(tmp_path):
    from pi_runtime.testing.loopback import LoopbackServer

    ours = shutil.which("pi") or str(Path(os.sys.executable).parent / "pi")
    counter = [0]
    agent = tmp_path / "agent"
    project = tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    with LoopbackServer(_tool_then_answer(counter)) as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000}]}}}))
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent)}

        def run(binary, *args):
            out = subprocess.run([binary, *args], cwd=project, env=env, capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr
            return out.stdout.strip()

        run(PI_REFERENCE, "-p", "--model", "loop/m1", "first, by Pi")
        assert run(ours, "-c", "-p", "second, by pi") .startswith("answer")
        assert run(PI_REFERENCE, "-c", "-p", "third, by Pi again").startswith("answer")
    files = list((agent / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    users = [e["message"]["content"] for e in lines if e.get("type") == "message" and e["message"]["role"] == "user"]
    texts = [u if isinstance(u, str) else u[0]["text"] for u in users]
    assert texts == ["first, by Pi", "second, by pi", "third, by Pi again"]
    # One linear path: every entry's parent is the entry before it.
    assert [e["parentId"] for e in lines[2:]] == [e["id"] for e in lines[1:-1]]
