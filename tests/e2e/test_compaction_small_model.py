"""Automatic compaction with an 8k-context model, through the installed ``pi -p`` and a loopback server.

Like Pi 1.6 (checked side by side): with the default settings nothing is ever summarised or
reported, however full the window; with a ``keepRecentTokens`` small enough to leave
something before the cut, the turn that crosses the (negative) threshold is compacted.
"""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import Reply, chunk, run_pi, session_files, usage

from pi_runtime.compaction import prompts

WORDS = "lorem ipsum dolor sit amet " * 40


def small_model(env: dict[str, str], url: str, settings: dict | None = None) -> None:
    agent = Path(env["PI_CODING_AGENT_DIR"])
    models = {"providers": {"loop": {
        "baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "loop-key",
        "models": [{"id": "small", "name": "Small", "contextWindow": 8192, "maxTokens": 2048}],
    }}}
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    base = {"defaultProvider": "loop", "defaultModel": "small", "retry": {"enabled": False}}
    (agent / "settings.json").write_text(json.dumps({**base, **(settings or {})}), encoding="utf-8")


def answer(text: str, prompt_tokens: int) -> Reply:
    return Reply.sse([chunk({"content": text}), chunk(finish="stop"), usage(prompt_tokens, 300), "[DONE]"])


def is_summary_request(request) -> bool:
    messages = request.json()["messages"]
    return bool(messages) and messages[0]["role"] == "system" and \
        prompts.SYSTEM_PROMPT[:60] in json.dumps(messages[0]["content"])


def responder(prompt_tokens: list[int]):
    def reply(request):
        if is_summary_request(request):
            return answer("## Goal\nSmall-model summary.", 500)
        prompt_tokens[0] += 1_000
        return answer(f"answer {WORDS}", prompt_tokens[0])
    return reply


def test_an_8k_model_with_default_settings_never_compacts(loopback, env):
    small_model(env, loopback.url)
    loopback.responder = responder([2_000])
    for i in range(4):
        result = run_pi([*(["-c"] if i else []), "-p", f"question {i} {WORDS}"], env)
        assert result.returncode == 0, result.stderr
        assert "ompact" not in result.stdout + result.stderr
    assert len(loopback.requests) == 4
    assert not any(is_summary_request(r) for r in loopback.requests)
    [saved] = session_files(env)
    assert not any(json.loads(line)["type"] == "compaction" for line in saved.read_text().splitlines())


def test_an_8k_model_compacts_once_the_cut_leaves_something(loopback, env):
    small_model(env, loopback.url, {"compaction": {"modelOverrides": {"loop/small": {"keepRecentTokens": 400}}}})
    loopback.responder = responder([2_000])
    for i in range(2):
        result = run_pi([*(["-c"] if i else []), "-p", f"question {i} {WORDS}"], env)
        assert result.returncode == 0, result.stderr
    assert any(is_summary_request(r) for r in loopback.requests)
    [saved] = session_files(env)
    entries = [json.loads(line) for line in saved.read_text().splitlines()]
    [compaction] = [e for e in entries if e["type"] == "compaction"]
    assert compaction["summary"].startswith("## Goal\nSmall-model summary.")
