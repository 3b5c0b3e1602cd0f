"""What a prompt costs, recorded in the session file as Pi 1.6 records it for the same usage.

The figures below are Pi 1.6's ``usage`` for the same prompt against the same loopback server
and models.json (run side by side: Pi's and pi's ``usage.cost`` agree to the last bit). Servers
report cache hits in different places, and long prompts may be priced at a higher tier; a
cache hit counted as fresh input makes the footer read $0.023 where Pi reads $0.022.
"""

from __future__ import annotations

import json

import pytest
from e2e_support import chunk, run_pi, session_files

from pi_runtime.testing.loopback import Reply

PRICES = {"input": 1.25, "output": 10, "cacheRead": 0.125, "cacheWrite": 1.5,
          "tiers": [{"inputTokensAbove": 200000, "input": 2.5, "output": 15, "cacheRead": 0.25, "cacheWrite": 3}]}
BASE = {"prompt_tokens": 12345, "completion_tokens": 678, "total_tokens": 13023}

CASES = {
    # Kimi puts the cache hits at the top level of usage.
    "top-level cached_tokens": ({**BASE, "cached_tokens": 10000},
                                {"input": 2345, "cacheRead": 10000, "total": 0.01096125}),
    # A reported 0 in prompt_tokens_details is the answer (Pi reads it first and stops there).
    "a reported zero wins": ({**BASE, "prompt_tokens_details": {"cached_tokens": 0}, "prompt_cache_hit_tokens": 10000},
                             {"input": 12345, "cacheRead": 0, "total": 0.022211250000000002}),
    # Past the tier's threshold every token is priced at the tier's rates.
    "long-context tier": ({"prompt_tokens": 250000, "completion_tokens": 678, "total_tokens": 250678},
                          {"input": 250000, "cacheRead": 0, "total": 0.63517}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_usage_cost_matches_pi(env, loopback, case):
    usage, expected = CASES[case]
    agent = env["PI_CODING_AGENT_DIR"]
    models = json.loads(open(f"{agent}/models.json", encoding="utf-8").read())
    models["providers"]["loop"]["models"][0]["cost"] = PRICES
    models["providers"]["loop"]["models"][0]["contextWindow"] = 400000
    open(f"{agent}/models.json", "w", encoding="utf-8").write(json.dumps(models))
    loopback.push(Reply.sse([chunk({"content": "ok"}), chunk(finish="stop"),
                             {"id": "chatcmpl-1", "choices": [], "usage": usage}, "[DONE]"]))
    result = run_pi(["-p", "hi"], env)
    assert result.returncode == 0, result.stderr
    [path] = session_files(env)
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    [recorded] = [e["message"]["usage"] for e in entries
                  if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert (recorded["input"], recorded["cacheRead"]) == (expected["input"], expected["cacheRead"])
    assert recorded["cost"]["total"] == expected["total"]
