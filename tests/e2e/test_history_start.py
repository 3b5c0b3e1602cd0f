"""Every new session file starts with Pi's ``model_change`` and ``thinking_level_change`` entries,
whatever comes first (issue #37): a shell command before the first prompt, ``new_session`` on a
model without thinking. Expected entries are what Pi 1.6 wrote (checked again with PI_REFERENCE)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from pi_side_by_side import RpcSession, _answer

from pi_runtime.testing.loopback import LoopbackServer


def entry_kinds(binary: str, tmp: Path, commands: list[dict]) -> list[list[str]]:
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True)
    with LoopbackServer(lambda _r: _answer("ok")) as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000}]}}}))
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(home))
        rpc = RpcSession([binary, "--model", "loop/m1"], env, project, 60)
        try:
            prompts = 0
            for n, command in enumerate(commands):
                rpc.request({"id": f"c{n}", **command})
                if command["type"] == "prompt":
                    prompts += 1
                    rpc.wait_for(lambda _r, want=prompts: sum('"agent_settled"' in line for line in rpc.lines) >= want)
        finally:
            rpc.close()
    files = sorted((agent / "sessions").rglob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
    out = []
    for path in files:
        kinds = []
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            kind = entry["type"]
            if kind == "message":
                kind += ":" + entry["message"]["role"]
            elif kind == "thinking_level_change":
                kind += ":" + entry["thinkingLevel"]
            kinds.append(kind)
        out.append(kinds)
    return out


START = ["session", "model_change", "thinking_level_change:off"]
CASES = {
    "shell-command-first": ([{"type": "bash", "command": "echo hi"}, {"type": "prompt", "message": "hi"}],
                            [[*START, "message:bashExecution", "message:system", "message:user", "message:assistant"]]),
    "new-session": ([{"type": "prompt", "message": "hi"}, {"type": "new_session"}, {"type": "prompt", "message": "again"}],
                    [[*START, "message:system", "message:user", "message:assistant"]] * 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_new_files_start_as_pis_do(tmp_path, name):
    commands, expected = CASES[name]
    ours = shutil.which("pi") or str(Path(sys.executable).parent / "pi")
    assert entry_kinds(ours, tmp_path, commands) == expected


PI_REFERENCE = os.environ.get("PI_REFERENCE")


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
@pytest.mark.parametrize("name", list(CASES))
def test_the_real_pi_writes_them_so(tmp_path, name):
    commands, expected = CASES[name]
    assert PI_REFERENCE is not None
    assert entry_kinds(PI_REFERENCE, tmp_path, commands) == expected
