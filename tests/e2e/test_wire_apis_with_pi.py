"""The four wire APIs (mistral-conversations, azure-openai-responses, openai-codex-responses, pi-messages)
through the installed ``pi``, and side by side with the real Pi when ``PI_REFERENCE`` names it.

The side-by-side test runs the same prompt (one ``bash`` call, then an answer) through each API
with Pi and with pi against one scripted server and compares the first request and the tool
round-trip request: method, path, headers and the JSON body byte for byte (key order included),
less what ``wire_side_by_side.KEPT`` names (volatile values, the HTTP clients' own headers, the
prompt and tool texts, which are the agent's and not the API's).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import wire_side_by_side as side

PI_REFERENCE = os.environ.get("PI_REFERENCE")
OURS = str(Path(sys.executable).parent / "pi")
APIS = list(side.SERVERS)


HOSTS = {"mistral-conversations": "api.mistral.ai", "azure-openai-responses": "pi-side.openai.azure.com",
         "openai-codex-responses": "chatgpt.com", "pi-messages": "radius.pi.dev"}


@pytest.mark.parametrize("real_hosts", [False, True], ids=["loopback", "real-hosts"])
@pytest.mark.parametrize("api", APIS)
def test_a_tool_round_trip_through_pi(tmp_path, api, real_hosts):
    """Through the installed pi; with ``real_hosts`` to the provider's own host name over TLS, through
    the stand-in's CONNECT proxy (Codex's WebSocket included; Azure's host from its resource name)."""
    requests, _, stdout = side.run(OURS, api, tmp_path, real_hosts=real_hosts)
    assert stdout.strip() == "done"
    if real_hosts:
        assert {r.host for r in requests} == {HOSTS[api]}
    methods = [r.method for r in requests]
    # Codex: one socket for both turns (the second sends only the tool result after previous_response_id).
    assert methods == (["GET", "WS", "WS"] if api == "openai-codex-responses" else ["POST", "POST"])
    if api == "pi-messages":  # the transcript as Pi holds it: the system message declares prompt and tools
        context = requests[0].json()["context"]
        assert list(context) == ["messages"] and context["messages"][0]["role"] == "system"
        assert context["messages"][0]["toolsAdded"][0]["constrainedSampling"] == {"type": "json_schema",
                                                                                   "strict": "prefer"}
    if api == "openai-codex-responses":
        follow = requests[2].json()
        assert follow["previous_response_id"] == "resp_1"
        assert [i["type"] for i in follow["input"]] == ["function_call_output"]


CASES = [(api, thinking, None, False) for api in APIS for thinking in (None, "high")] + [
    # Codex as Pi's catalog describes its models: tools as additional_tools items, the effort as
    # configuration_update items (high, and off on a reasoning model).
    ("openai-codex-responses", "high", "catalog", False), ("openai-codex-responses", "off", "catalog", False),
] + [(api, None, None, True) for api in APIS]  # to the real host names, through the stand-in


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
@pytest.mark.parametrize(("api", "thinking", "model", "real_hosts"), CASES)
def test_pi_sends_what_pi_sends(tmp_path, api, thinking, model, real_hosts):
    assert PI_REFERENCE is not None
    entry = side.CODEX_CATALOG_MODEL if model == "catalog" else None
    theirs, their_cwd, _ = side.run(PI_REFERENCE, api, tmp_path / "Pi", thinking=thinking, model=entry,
                                    real_hosts=real_hosts)
    ours, our_cwd, _ = side.run(OURS, api, tmp_path / "pi", thinking=thinking, model=entry, real_hosts=real_hosts)
    assert len(ours) == len(theirs) >= 2
    for mine, reference in zip(ours, theirs):
        assert mine.host == reference.host
        assert side.comparable(mine, our_cwd) == side.comparable(reference, their_cwd)
        assert side.comparable(mine, our_cwd)["compact"]  # JSON.stringify's spacing: none
