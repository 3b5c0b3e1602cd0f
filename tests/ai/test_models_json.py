"""models.json: Pi's format, JSONC, overrides, and bad files that cost only the broken part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.ai.models import ModelRegistry
from pi_runtime.ai.models_json import load_models_json, strip_jsonc


def write(tmp_path: Path, content: object) -> Path:
    path = tmp_path / "models.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def registry(path: Path, **env: str) -> ModelRegistry:
    return ModelRegistry(path, env=env)


def test_custom_provider_from_docs_example(tmp_path: Path) -> None:
    path = write(tmp_path, {
        "$schema": "https://pi.dev/schemas/models.schema.json",
        "providers": {
            "ollama": {
                "baseUrl": "http://localhost:11434/v1",
                "api": "openai-completions",
                "apiKey": "ollama",
                "models": [{"id": "qwen2.5-coder:7b"}],
            }
        },
    })
    reg = registry(path)
    assert reg.errors == [] and reg.warnings == []
    model = reg.find("ollama", "qwen2.5-coder:7b")
    assert model is not None
    assert model.api == "openai-completions"
    assert model.base_url == "http://localhost:11434/v1"
    # Schema defaults for everything left out.
    assert (model.name, model.context_window, model.max_tokens) == ("qwen2.5-coder:7b", 128_000, 16_384)
    assert model.input == ["text"] and model.reasoning is False
    assert reg.resolve_api_key(model) == "ollama"
    # Built-ins are still there.
    assert reg.find("anthropic", "claude-sonnet-4-5") is not None


def test_full_model_fields_and_extras_survive(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {"lab": {
        "baseUrl": "https://lab.example/v1",
        "api": "openai-completions",
        "compat": {"supportsDeveloperRole": False, "maxTokensField": "max_tokens"},
        "models": [{
            "id": "lab-1",
            "name": "Lab One",
            "reasoning": True,
            "input": ["text", "image"],
            "contextWindow": 64000,
            "maxTokens": 4096,
            "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 0},
            "thinkingLevelMap": {"minimal": None, "high": "max"},
            "samplingParams": {"temperature": 0.6},
            "compat": {"maxTokensField": "max_completion_tokens"},
        }],
    }}})
    reg = registry(path)
    assert reg.errors == []
    model = reg.find("lab", "lab-1")
    assert model is not None
    assert (model.name, model.reasoning, model.context_window, model.max_tokens) == ("Lab One", True, 64000, 4096)
    assert model.input == ["text", "image"]
    assert (model.cost.input, model.cost.output, model.cost.cache_read) == (1, 2, 0.1)
    # Model compat wins over provider compat, key by key.
    assert model.compat == {"supportsDeveloperRole": False, "maxTokensField": "max_completion_tokens"}
    wire = model.to_wire()
    assert wire["thinkingLevelMap"] == {"minimal": None, "high": "max"}
    assert wire["samplingParams"] == {"temperature": 0.6}


def test_jsonc_comments_and_trailing_commas(tmp_path: Path) -> None:
    text = """{
      // a line comment
      "providers": {
        /* block
           comment */
        "lab": {
          "baseUrl": "http://localhost:8080/v1", // url with // inside a string
          "api": "openai-completions",
          "models": [{"id": "m1",},],
        },
      },
    }"""
    reg = registry(write(tmp_path, text))
    assert reg.errors == []
    assert reg.find("lab", "m1").base_url == "http://localhost:8080/v1"
    assert len(strip_jsonc(text)) == len(text)


def test_builtin_provider_base_url_headers_and_overrides(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {"anthropic": {
        "baseUrl": "https://proxy.example.com/v1",
        "headers": {"X-Gateway": "gw-$TEAM"},
        "models": [{"id": "claude-custom", "contextWindow": 50000}],
        "modelOverrides": {
            "claude-sonnet-4-5": {"name": "Sonnet (proxy)", "cost": {"input": 9}, "contextWindow": 1000000},
            "no-such-model": {"name": "ignored"},
        },
    }}})
    reg = registry(path, ANTHROPIC_API_KEY="sk-ant-test", TEAM="blue")
    assert reg.errors == []
    sonnet = reg.find("anthropic", "claude-sonnet-4-5")
    assert sonnet.base_url == "https://proxy.example.com/v1"
    assert sonnet.name == "Sonnet (proxy)" and sonnet.context_window == 1_000_000
    # Object fields merge: only input cost changed.
    assert sonnet.cost.input == 9 and sonnet.cost.output == 15
    # Other built-ins are kept and re-pointed at the proxy.
    haiku = reg.find("anthropic", "claude-haiku-4-5")
    assert haiku.base_url == "https://proxy.example.com/v1" and haiku.cost.input == 1
    custom = reg.find("anthropic", "claude-custom")
    assert custom.api == "anthropic-messages" and custom.context_window == 50000
    auth = reg.request_auth(sonnet)
    assert auth.headers == {"X-Gateway": "gw-blue"}
    assert auth.api_key == "sk-ant-test"
    assert any("no-such-model" in w for w in reg.warnings)


def test_model_entry_replaces_builtin_with_same_id(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {"openai": {"models": [{"id": "gpt-4o", "name": "Mine", "maxTokens": 99}]}}})
    reg = registry(path)
    models = [m for m in reg.all() if m.ref == "openai/gpt-4o"]
    assert len(models) == 1
    assert models[0].name == "Mine" and models[0].max_tokens == 99
    assert models[0].api == "openai-responses"  # inherited from the built-in provider


def test_invalid_json_names_file_and_position_and_keeps_builtins(tmp_path: Path) -> None:
    path = write(tmp_path, '{"providers": {"x": {"baseUrl": "http://a",}\n  "oops"}')
    reg = registry(path)
    assert len(reg.errors) == 1
    assert str(path) in reg.errors[0] and "invalid JSON" in reg.errors[0] and "line 2" in reg.errors[0]
    assert reg.find("openai", "gpt-5") is not None
    assert len(reg.all()) > 20


def test_wrong_type_names_the_field_and_keeps_other_providers(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {
        "good": {"baseUrl": "http://localhost:1/v1", "api": "openai-completions", "models": [{"id": "g"}]},
        "bad": {"baseUrl": "http://localhost:2/v1", "api": "openai-completions", "authHeader": "yes",
                "models": [{"id": "b"}]},
        "half": {"baseUrl": "http://localhost:3/v1", "api": "openai-completions", "models": [
            {"id": "ok"},
            {"id": "broken", "contextWindow": "128000"},
            {"id": "neg", "maxTokens": -5},
            "not-an-object",
        ]},
    }})
    reg = registry(path)
    joined = "\n".join(reg.errors)
    assert "providers.bad.authHeader" in joined
    assert "providers.half.models[1].contextWindow" in joined
    assert "providers.half.models[2].maxTokens" in joined
    assert "providers.half.models[3]: must be an object" in joined
    assert all(str(path) in e for e in reg.errors)
    assert reg.find("good", "g") is not None
    assert reg.find("bad", "b") is None
    assert reg.find("half", "ok") is not None and reg.find("half", "broken") is None
    assert reg.find("anthropic", "claude-haiku-4-5") is not None


def test_unknown_api_is_reported_with_a_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {
        "typo": {"baseUrl": "http://localhost:1", "api": "openai-completion", "models": [{"id": "a"}]},
        "permodel": {"baseUrl": "http://localhost:2", "api": "openai-completions",
                     "models": [{"id": "x", "api": "carrier-pigeon"}, {"id": "y"}]},
    }})
    reg = registry(path)
    joined = "\n".join(reg.errors)
    assert "providers.typo.api: unknown api 'openai-completion'" in joined
    assert "did you mean 'openai-completions'" in joined
    assert "providers.permodel.models[0].api: unknown api 'carrier-pigeon'" in joined
    assert reg.find("typo", "a") is None
    assert reg.find("permodel", "x") is None and reg.find("permodel", "y") is not None


def test_new_provider_without_base_url_or_api(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {"nowhere": {"models": [{"id": "m"}]}}})
    reg = registry(path)
    assert any("providers.nowhere.models[0]" in e and "api and baseUrl" in e for e in reg.errors)
    assert reg.find("nowhere", "m") is None


def test_structural_problems(tmp_path: Path) -> None:
    assert "missing required field 'providers'" in load_models_json(write(tmp_path, {"x": 1})).errors[0]
    assert "providers: must be an object" in load_models_json(write(tmp_path, {"providers": []})).errors[0]
    assert "top level must be an object" in load_models_json(write(tmp_path, "[1]")).errors[0]
    missing = load_models_json(tmp_path / "absent.json")
    assert not missing.exists and missing.errors == []


def test_unknown_fields_warn_with_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {"lab": {
        "baseURL": "http://localhost:1", "baseUrl": "http://localhost:1", "api": "openai-completions",
        "models": [{"id": "m", "contextWindw": 5}],
    }}})
    reg = registry(path)
    assert reg.errors == []
    assert any("unknown field 'baseURL'" in w and "baseUrl" in w for w in reg.warnings)
    assert any("models[0]: unknown field 'contextWindw'" in w and "contextWindow" in w for w in reg.warnings)


def test_error_messages_never_quote_values(tmp_path: Path) -> None:
    secret = "sk-very-secret-value-123"
    path = write(tmp_path, {"providers": {"lab": {
        "baseUrl": "http://localhost:1", "api": "openai-completions",
        "headers": {"Authorization": 12345, "X-Key": secret}, "apiKey": ["sk", secret],
        "models": [{"id": "m"}],
    }}})
    reg = registry(path)
    assert reg.errors
    assert all(secret not in e for e in reg.errors)
    assert any("providers.lab.apiKey" in e for e in reg.errors)


def test_refresh_picks_up_edits(tmp_path: Path) -> None:
    path = write(tmp_path, {"providers": {}})
    reg = registry(path)
    assert reg.find("lab", "m") is None
    write(tmp_path, {"providers": {"lab": {"baseUrl": "http://localhost:9", "api": "openai-completions",
                                           "models": [{"id": "m"}]}}})
    reg.refresh()
    assert reg.find("lab", "m") is not None


@pytest.mark.parametrize("text", ['{"a": "// not a comment", "b": [1, 2,]}', '{"s": "a\\"/*x*/", }'])
def test_strip_jsonc_leaves_strings_alone(text: str) -> None:
    data = json.loads(strip_jsonc(text))
    assert "//" in data.get("a", "") or "/*x*/" in data.get("s", "")
