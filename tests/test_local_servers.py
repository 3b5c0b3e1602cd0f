"""Probing local OpenAI-compatible servers and saving one to models.json."""

from __future__ import annotations

import json

from pi_runtime.ai.models import ModelRegistry
from pi_runtime.local_servers import LocalServer, add_to_models_json, probe_local_servers
from pi_runtime.testing.loopback import LoopbackServer, Reply


async def test_probe_finds_a_server_and_skips_silent_ports():
    with LoopbackServer() as server:
        server.push(Reply.json(200, {"object": "list", "data": [{"id": "qwen2.5-coder:7b"}, {"id": "llama3.2"}]}))
        with LoopbackServer() as broken:
            broken.push(Reply.json(500, {"error": "no"}))
            found = await probe_local_servers(
                (("ollama", "Ollama", server.port), ("lm-studio", "LM Studio", broken.port), ("none", "Nothing", 1)),
                timeout=1.0,
            )
    assert [(s.provider, s.models) for s in found] == [("ollama", ["qwen2.5-coder:7b", "llama3.2"])]
    assert found[0].base_url == f"http://127.0.0.1:{server.port}/v1"
    assert server.requests[0].method == "GET" and server.requests[0].path == "/v1/models"


def test_add_to_models_json_keeps_other_providers_and_needs_no_key(tmp_path):
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"providers": {"mine": {"baseUrl": "https://x.example/v1", "api": "openai-completions",
                                                        "apiKey": "$MY_KEY", "models": [{"id": "m"}]}}, "extra": 1}))
    add_to_models_json(path, LocalServer("ollama", "Ollama", "http://127.0.0.1:11434/v1", ["qwen2.5-coder:7b"]))
    data = json.loads(path.read_text())
    assert data["extra"] == 1 and data["providers"]["mine"]["apiKey"] == "$MY_KEY"
    assert data["providers"]["ollama"] == {"baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions",
                                           "models": [{"id": "qwen2.5-coder:7b"}]}
    registry = ModelRegistry(path)
    model = registry.find("ollama", "qwen2.5-coder:7b")
    assert model is not None and registry.has_credentials(model)


def test_a_broken_models_json_is_not_overwritten(tmp_path):
    path = tmp_path / "models.json"
    path.write_text("[1, 2, 3]")
    try:
        add_to_models_json(path, LocalServer("ollama", "Ollama", "http://127.0.0.1:11434/v1", ["m"]))
    except ValueError as exc:
        assert "not a JSON object" in str(exc)
    else:
        raise AssertionError("expected a ValueError")
    assert path.read_text() == "[1, 2, 3]"
