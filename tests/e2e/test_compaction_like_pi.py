"""Automatic compaction fires when Pi's does, side by side on one loopback server (issue #37).

Each scenario is a conversation in RPC mode against a scripted OpenAI-compatible server that
reports chosen usage; the outcome is the session file's entry types and the compaction events.
The expected outcome is what the real Pi 1.6 did (recorded here); with ``PI_REFERENCE`` set,
Pi runs the scenario too and must still do that.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pi_side_by_side import RpcSession, _chunk

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply

WORDS = " ".join(f"word{i}" for i in range(1500))
BIG_FILE = "\n".join(f"line {i} " + "x" * 50 for i in range(220))  # about 3,300 estimated tokens


def _reply(text: str, prompt_tokens: int) -> Reply:
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 3, "total_tokens": prompt_tokens + 3}
    return Reply.sse([_chunk({"role": "assistant", "content": text}), _chunk(finish="stop"),
                      {"id": "c", "choices": [], "usage": usage}, "[DONE]"])


def _read_call() -> Reply:
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": "big.txt"})}}
    usage = {"prompt_tokens": 1000, "completion_tokens": 3, "total_tokens": 1003}
    return Reply.sse([_chunk({"role": "assistant", "tool_calls": [call]}), _chunk(finish="tool_calls"),
                      {"id": "c", "choices": [], "usage": usage}, "[DONE]"])


def responder(request: RecordedRequest) -> Reply:
    """Summaries for summary requests; otherwise usage by what the last message asks:
    ``readbig`` calls ``read`` on a large file, ``report N`` reports N prompt tokens."""
    messages = (request.json() or {}).get("messages") or [{}]
    last = messages[-1]
    content = last.get("content")
    text = content if isinstance(content, str) else " ".join(
        part.get("text", "") for part in content or () if isinstance(part, dict))
    if "<conversation>" in text or "# Conversation" in text:
        return _reply("## Goal\nthe summary", 500)
    if last.get("role") == "tool":
        return _reply("read it", 1500)
    if "readbig" in text:
        return _read_call()
    if text.startswith("report "):
        return _reply("reported", int(text.split()[1]))
    return _reply("ok", len(json.dumps(messages)) // 4)


@dataclass
class Scenario:
    steps: list[dict[str, Any]]
    """RPC commands; each ``prompt`` waits for the session to settle, ``bash`` for its response."""
    expected_entries: list[str]
    expected_compactions: list[tuple[str, str, bool]]
    """(event type, reason, failed) for each compaction event."""
    window: int = 20_000
    keep_recent: int = 2_000


SCENARIOS: dict[str, Scenario] = {
    # Pi compacts between the turns of a run (before the request that follows a large tool
    # result); pi used to wait for the end of the run, and then the small final usage hid it.
    "between-turns": Scenario(
        [{"type": "prompt", "message": "hello there"}, {"type": "prompt", "message": "please readbig now"}],
        ["user", "assistant", "user", "assistant", "toolResult", "compaction", "assistant"],
        [("compaction_start", "threshold", False), ("compaction_end", "threshold", False)]),
    # The trial's repro: two long prompts, then a turn reporting 19,000 tokens.
    "long-prompts": Scenario(
        [{"type": "prompt", "message": f"first {WORDS}"}, {"type": "prompt", "message": f"second {WORDS}"},
         {"type": "prompt", "message": "report 19000"}],
        ["user", "assistant", "user", "assistant", "compaction", "user", "assistant"],
        [("compaction_start", "threshold", False), ("compaction_end", "threshold", False)]),
    # Before a prompt Pi reads the last answer's own usage: a shell command's output after it
    # does not count (pi added its estimate and compacted first).
    "before-a-prompt": Scenario(
        [{"type": "prompt", "message": f"first {WORDS}"}, {"type": "prompt", "message": "report 3000"},
         {"type": "bash", "command": "seq 1 2000"}, {"type": "prompt", "message": "report 100"}],
        ["user", "assistant", "user", "assistant", "bashExecution", "user", "assistant"], []),
}


def run_scenario(binary: str, scenario: Scenario, tmp: Path, env_path: str) -> tuple[list[str], list[tuple]]:
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True)
    (project / "big.txt").write_text(BIG_FILE)
    with LoopbackServer(responder) as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "contextWindow": scenario.window, "maxTokens": 4000}]}}}))
        (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": scenario.keep_recent}}))
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(home), PATH=env_path)
        rpc = RpcSession([binary, "--model", "loop/m1"], env, project, 90)
        try:
            settled = 0
            for n, step in enumerate(scenario.steps):
                rpc.request({"id": f"s{n}", **step})
                if step["type"] == "prompt":
                    settled += 1
                    rpc.wait_for(lambda _r, want=settled: sum('"agent_settled"' in line for line in rpc.lines) >= want)
        finally:
            stdout, _code = rpc.close()
    records = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    compactions = [(r["type"], r.get("reason"), bool(r.get("errorMessage"))) for r in records
                   if r.get("type") in ("compaction_start", "compaction_end")]
    [session_file] = list((agent / "sessions").rglob("*.jsonl"))
    kinds = []
    for line in session_file.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] == "message" and entry["message"]["role"] != "system":
            kinds.append(entry["message"]["role"])
        elif entry["type"] == "compaction":
            kinds.append("compaction")
    return kinds, compactions


def _ours() -> str:
    return shutil.which("pi") or str(Path(sys.executable).parent / "pi")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_pi_compacts_when_pi_does(tmp_path, name):
    scenario = SCENARIOS[name]
    kinds, compactions = run_scenario(_ours(), scenario, tmp_path, os.environ.get("PATH", ""))
    assert (kinds, compactions) == (scenario.expected_entries, scenario.expected_compactions)


PI_REFERENCE = os.environ.get("PI_REFERENCE")


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(),
                    reason="real Pi not installed (set PI_REFERENCE)")
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_real_pi_still_compacts_there(tmp_path, name):
    scenario = SCENARIOS[name]
    assert PI_REFERENCE is not None
    kinds, compactions = run_scenario(PI_REFERENCE, scenario, tmp_path, os.environ.get("PATH", ""))
    assert (kinds, compactions) == (scenario.expected_entries, scenario.expected_compactions)

