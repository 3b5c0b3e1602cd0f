"""``enabledModels`` saved in settings.json (``/scoped-models``, Ctrl+S) applies at the next start,
as in Pi (issue #37: pi read it nowhere, so Ctrl+P cycled every model). Checked in RPC mode with
``cycle_model``; with ``PI_REFERENCE`` set, Pi runs the same conversation."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from pi_side_by_side import RpcSession

from pi_runtime.testing.loopback import LoopbackServer


def conversation(binary: str, tmp: Path, settings: dict) -> list[str]:
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True)
    with LoopbackServer() as server:
        (agent / "models.json").write_text(json.dumps({"providers": {"loop": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": name, "contextWindow": 100000, "maxTokens": 4000} for name in ("m1", "m2", "m3")]}}}))
        (agent / "settings.json").write_text(json.dumps(settings))
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(home))
        rpc = RpcSession([binary], env, project, 60)
        try:
            seen = [rpc.request({"id": "s", "type": "get_state"})["data"]["model"]["id"]]
            for n in range(3):
                seen.append(rpc.request({"id": f"c{n}", "type": "cycle_model"})["data"]["model"]["id"])
        finally:
            rpc.close()
    return seen


SETTINGS = {"enabledModels": ["loop/m3", "loop/m1"], "defaultProvider": "loop", "defaultModel": "m1"}
EXPECTED = ["m1", "m3", "m1", "m3"]  # the saved default is in the scope: it starts there; m2 never comes


def test_the_saved_scope_applies_at_start(tmp_path):
    ours = shutil.which("pi") or str(Path(sys.executable).parent / "pi")
    assert conversation(ours, tmp_path, SETTINGS) == EXPECTED


def test_a_default_outside_the_scope_starts_on_its_first_model(tmp_path):
    ours = shutil.which("pi") or str(Path(sys.executable).parent / "pi")
    settings = {**SETTINGS, "defaultModel": "m2", "enabledModels": ["loop/m3", "loop/m1", "loop/nothing-*"]}
    assert conversation(ours, tmp_path, settings) == ["m3", "m1", "m3", "m1"]


PI_REFERENCE = os.environ.get("PI_REFERENCE")


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_the_real_pi_does_the_same(tmp_path):
    assert PI_REFERENCE is not None
    assert conversation(PI_REFERENCE, tmp_path / "a", SETTINGS) == EXPECTED
    settings = {**SETTINGS, "defaultModel": "m2", "enabledModels": ["loop/m3", "loop/m1", "loop/nothing-*"]}
    assert conversation(PI_REFERENCE, tmp_path / "b", settings) == ["m3", "m1", "m3", "m1"]
