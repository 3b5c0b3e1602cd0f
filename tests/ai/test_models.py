"""ModelRegistry: catalogue, lookup and suggestions, credential order, commands, local servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pi_runtime.ai import catalog
from pi_runtime.ai.credentials import CredentialError, clear_command_cache, resolve_value
from pi_runtime.ai.models import ModelNotFoundError, ModelRegistry, NoCredentialsError
from pi_runtime.auth import AuthStorage


@pytest.fixture(autouse=True)
def _fresh_command_cache():
    clear_command_cache()
    yield
    clear_command_cache()


def write_models(tmp_path: Path, providers: dict) -> Path:
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"providers": providers}), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- catalogue


def test_catalogue_covers_pis_ten_apis_with_sane_figures() -> None:
    reg = ModelRegistry(read_models_json=False, env={})
    apis = {m.api for m in reg.all()}
    assert apis == {"anthropic-messages", "openai-responses", "google-generative-ai", "openai-completions",
                    "mistral-conversations", "azure-openai-responses", "openai-codex-responses",
                    "bedrock-converse-stream", "google-vertex", "pi-messages"}
    for provider in ("anthropic", "openai", "google", "openrouter", "groq", "deepseek", "xai", "mistral", "cerebras"):
        models = reg.models_of(provider)
        assert len(models) >= 2, provider
        for m in models:
            assert m.base_url.startswith("https://"), m.ref
            assert 0 < m.max_tokens <= m.context_window, m.ref
            assert m.cost.input >= 0 and m.cost.output >= 0, m.ref
            assert m.name and m.input and set(m.input) <= {"text", "image"}, m.ref
    sonnet = reg.find("anthropic", "claude-sonnet-4-5")
    assert sonnet.reasoning and "image" in sonnet.input and sonnet.cost.input == 3
    assert sonnet.base_url == catalog.PROVIDERS["anthropic"]["baseUrl"] == "https://api.anthropic.com"
    assert sonnet.prompt_cache == {"short": 300, "long": 3600}  # Pi's fields beyond the basics carry over
    assert reg.find("openai", "gpt-5").api == "openai-responses"
    assert reg.find("google", "gemini-2.5-pro").base_url.endswith("/v1beta")


def test_catalogue_import_is_cheap() -> None:
    import subprocess

    code = "import sys, pi_runtime.ai.catalog; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------- lookup


def test_lookup_forms() -> None:
    reg = ModelRegistry(read_models_json=False, env={})
    assert reg.lookup("anthropic/claude-haiku-4-5").ref == "anthropic/claude-haiku-4-5"
    assert reg.lookup("claude-haiku-4-5").provider == "anthropic"
    assert reg.lookup("CLAUDE-HAIKU-4-5").id == "claude-haiku-4-5"
    # By display name: several providers carry Anthropic's names; one with credentials wins.
    keyed = ModelRegistry(read_models_json=False, env={"ANTHROPIC_API_KEY": "k"})
    assert keyed.lookup("Claude Haiku 4.5 (latest)").ref == "anthropic/claude-haiku-4-5"
    # OpenRouter ids contain a slash themselves.
    assert reg.lookup("openrouter/anthropic/claude-sonnet-4.5").provider == "openrouter"
    assert reg.lookup("anthropic/claude-sonnet-4.5").provider == "openrouter"
    assert reg.lookup("nope/nothing") is None


def test_bare_id_prefers_a_provider_with_credentials() -> None:
    no_keys = ModelRegistry(read_models_json=False, env={})
    with_cerebras = ModelRegistry(read_models_json=False, env={"CEREBRAS_API_KEY": "c"})
    with_groq = ModelRegistry(read_models_json=False, env={"GROQ_API_KEY": "g"})
    # gpt-oss-120b is cerebras's id; groq's is openai/gpt-oss-120b (a different id).
    assert no_keys.lookup("gpt-oss-120b").provider == "cerebras"
    assert with_cerebras.lookup("gpt-oss-120b").provider == "cerebras"
    assert with_groq.lookup("openai/gpt-oss-120b").provider == "groq"


def test_same_bare_id_on_two_providers(tmp_path: Path) -> None:
    path = write_models(tmp_path, {
        "first": {"baseUrl": "https://a.example/v1", "api": "openai-completions", "models": [{"id": "twin"}]},
        "second": {"baseUrl": "https://b.example/v1", "api": "openai-completions", "apiKey": "k",
                   "models": [{"id": "twin"}]},
    })
    reg = ModelRegistry(path, env={})
    assert reg.lookup("twin").provider == "second"
    assert reg.lookup("first/twin").provider == "first"


def test_fuzzy_suggestions_in_errors() -> None:
    reg = ModelRegistry(read_models_json=False, env={})
    with pytest.raises(ModelNotFoundError) as info:
        reg.resolve("claude-sonet-4-5")
    assert "anthropic/claude-sonnet-4-5" in info.value.suggestions
    assert "Did you mean" in str(info.value) and "claude-sonnet-4-5" in str(info.value)
    assert any(s.endswith("/gpt-5") for s in reg.suggest("gpt5"))
    # An id many providers serve is suggested from one with credentials.
    assert "openai/gpt-5" in ModelRegistry(read_models_json=False, env={"OPENAI_API_KEY": "k"}).suggest("gpt5")
    assert any(s.startswith("google/gemini-2.5") for s in reg.suggest("gemini-2.5"))
    assert reg.suggest("zzzzzzzzzzzz") == []
    assert len(reg.suggest("claude", limit=3)) == 3


# ---------------------------------------------------------------------------- credentials


def test_credential_precedence(tmp_path: Path) -> None:
    path = write_models(tmp_path, {"openai": {"apiKey": "from-models-json"}})
    auth = AuthStorage(tmp_path / "auth.json")
    env = {"OPENAI_API_KEY": "from-env"}
    reg = ModelRegistry(path, auth, env=env)
    model = reg.find("openai", "gpt-5")
    steps = []
    reg.set_runtime_api_key("openai", "from-runtime")
    auth.set_api_key("openai", "from-auth-json")
    steps.append((reg.resolve_api_key(model), reg.request_auth(model).source))
    reg.set_runtime_api_key("openai", None)
    steps.append((reg.resolve_api_key(model), reg.request_auth(model).source))
    auth.remove("openai")
    steps.append((reg.resolve_api_key(model), reg.request_auth(model).source))
    write_models(tmp_path, {"openai": {"baseUrl": "https://api.openai.com/v1"}})
    reg.refresh()
    steps.append((reg.resolve_api_key(model), reg.request_auth(model).source))
    assert steps == [
        ("from-runtime", "runtime"),
        ("from-auth-json", "auth.json"),
        ("from-models-json", "models.json"),
        ("from-env", "env:OPENAI_API_KEY"),
    ]
    env.clear()
    assert reg.resolve_api_key(model) is None
    with pytest.raises(NoCredentialsError) as info:
        reg.request_auth(model)
    assert "OPENAI_API_KEY" in str(info.value)


def test_env_interpolation_in_api_key(tmp_path: Path) -> None:
    path = write_models(tmp_path, {
        "a": {"baseUrl": "https://a.example", "api": "openai-completions", "apiKey": "$A_KEY", "models": [{"id": "m"}]},
        "b": {"baseUrl": "https://b.example", "api": "openai-completions", "apiKey": "pre-${B_KEY}-post",
              "models": [{"id": "m"}]},
        "c": {"baseUrl": "https://c.example", "api": "openai-completions", "apiKey": "C_KEY", "models": [{"id": "m"}]},
        "d": {"baseUrl": "https://d.example", "api": "openai-completions", "apiKey": "cost$$5 $!x",
              "models": [{"id": "m"}]},
        "e": {"baseUrl": "https://e.example", "api": "openai-completions", "apiKey": "$UNSET_KEY",
              "models": [{"id": "m"}]},
    })
    reg = ModelRegistry(path, env={"A_KEY": "aaa", "B_KEY": "bbb", "C_KEY": "ccc"})
    keys = {p: reg.resolve_api_key(reg.find(p, "m")) for p in "abcde"}
    assert keys == {"a": "aaa", "b": "pre-bbb-post", "c": "ccc", "d": "cost$5 !x", "e": None}
    available = {m.provider for m in reg.available()}
    assert {"a", "b", "c", "d"} <= available and "e" not in available


def test_command_key_runs_once_and_is_cached(tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    cmd = f"!echo run >> {counter}; echo sk-from-command"
    path = write_models(tmp_path, {"lab": {"baseUrl": "https://lab.example", "api": "openai-completions",
                                           "apiKey": cmd, "models": [{"id": "m"}]}})
    reg = ModelRegistry(path, env={})
    model = reg.find("lab", "m")
    assert reg.has_credentials(model)
    assert not counter.exists()  # checking availability runs nothing
    assert reg.resolve_api_key(model) == "sk-from-command"
    assert reg.request_auth(model).api_key == "sk-from-command"
    assert counter.read_text().count("run") == 1


def test_failing_command_gives_a_clear_error(tmp_path: Path) -> None:
    path = write_models(tmp_path, {"lab": {"baseUrl": "https://lab.example", "api": "openai-completions",
                                           "apiKey": "!printf 'sec%s' ret-out; echo not found >&2; exit 3",
                                           "models": [{"id": "m"}]}})
    reg = ModelRegistry(path, env={})
    with pytest.raises(CredentialError) as info:
        reg.resolve_api_key(reg.find("lab", "m"))
    message = str(info.value)
    assert "providers.lab.apiKey" in message and str(path) in message
    # Neither its output nor its standard error is shown: either may be the secret.
    assert message.endswith("failed with exit status 3") and "secret-out" not in message


def test_command_timeout_and_empty_output() -> None:
    with pytest.raises(CredentialError, match="timed out"):
        resolve_value("!sleep 5", where="k", timeout=0.3)
    with pytest.raises(CredentialError, match="printed nothing"):
        resolve_value("!true", where="k")
    # Failures are cached too: the same command is not run again.
    with pytest.raises(CredentialError, match="timed out"):
        resolve_value("!sleep 5", where="k", timeout=30)


def test_headers_resolve_and_auth_header(tmp_path: Path) -> None:
    path = write_models(tmp_path, {"gw": {
        "baseUrl": "https://gw.example/v1", "api": "openai-completions", "apiKey": "gw-key", "authHeader": True,
        "headers": {"X-Team": "$TEAM", "X-Static": "plain"},
        "models": [{"id": "m", "headers": {"X-Model": "!echo from-cmd"}}, {"id": "n"}],
    }})
    reg = ModelRegistry(path, env={"TEAM": "blue"})
    auth = reg.request_auth(reg.find("gw", "m"))
    assert auth.headers == {"X-Team": "blue", "X-Static": "plain", "X-Model": "from-cmd",
                            "Authorization": "Bearer gw-key"}
    assert "X-Model" not in reg.request_auth(reg.find("gw", "n")).headers
    # Header templates never reach the serialisable model.
    assert reg.find("gw", "m").headers is None
    assert "gw-key" not in repr(auth) and "blue" not in repr(auth)
    unset = ModelRegistry(path, env={})
    with pytest.raises(CredentialError, match=r"headers\.X-Team.*TEAM"):
        unset.request_auth(unset.find("gw", "m"))


def test_local_base_url_needs_no_key(tmp_path: Path) -> None:
    path = write_models(tmp_path, {
        "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions", "models": [{"id": "q"}]},
        "lan": {"baseUrl": "http://127.0.0.1:8080/v1", "api": "openai-completions", "models": [{"id": "l"}]},
        "remote": {"baseUrl": "https://remote.example/v1", "api": "openai-completions", "models": [{"id": "r"}]},
    })
    reg = ModelRegistry(path, env={})
    refs = {m.ref for m in reg.available()}
    assert {"ollama/q", "lan/l"} <= refs and "remote/r" not in refs
    auth = reg.request_auth(reg.find("ollama", "q"))
    assert auth.api_key is None and auth.source == "local"
    with pytest.raises(NoCredentialsError):
        reg.request_auth(reg.find("remote", "r"))


def test_available_follows_env_keys() -> None:
    reg = ModelRegistry(read_models_json=False, env={"GEMINI_API_KEY": "g"})
    assert {m.provider for m in reg.available()} == {"google"}
    assert ModelRegistry(read_models_json=False, env={}).available() == []


def test_auth_json_command_key_and_stored_env(tmp_path: Path) -> None:
    auth = AuthStorage(tmp_path / "auth.json")
    auth.set("groq", {"type": "api_key", "key": "$GROQ_SCOPED", "env": {"GROQ_SCOPED": "scoped-key"}})
    auth.set_api_key("xai", "!echo xai-from-cmd")
    reg = ModelRegistry(read_models_json=False, auth=auth, env={})
    assert reg.resolve_api_key(reg.find("groq", "qwen/qwen3.6-27b")) == "scoped-key"
    assert reg.resolve_api_key(reg.find("xai", "grok-4.7")) == "xai-from-cmd"
    assert {m.provider for m in reg.available()} == {"groq", "xai"}


async def test_request_auth_async_runs_commands_off_the_loop(tmp_path: Path) -> None:
    path = write_models(tmp_path, {"lab": {"baseUrl": "https://lab.example", "api": "openai-completions",
                                           "apiKey": "!echo async-key", "models": [{"id": "m"}]}})
    reg = ModelRegistry(path, env={})
    auth = await reg.request_auth_async(reg.find("lab", "m"))
    assert auth.api_key == "async-key" and auth.source == "models.json"


def test_add_model_survives_refresh(tmp_path: Path) -> None:
    from pi_runtime.ai.types import Model

    reg = ModelRegistry(write_models(tmp_path, {}), env={})
    reg.add_model(Model(id="ext-1", api="openai-completions", provider="ext", base_url="http://localhost:1"))
    reg.refresh()
    assert reg.find("ext", "ext-1") is not None
    assert "ext" in reg.providers()


def test_default_models_json_comes_from_the_agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    write_models(agent, {"lab": {"baseUrl": "http://localhost:5/v1", "api": "openai-completions",
                                 "models": [{"id": "from-agent-dir"}]}})
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    reg = ModelRegistry(env={})
    assert reg.models_path == agent / "models.json"
    assert reg.find("lab", "from-agent-dir") is not None
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/somewhere")
    from pi_runtime.paths import agent_dir, sessions_dir

    assert agent_dir() == Path.home() / "somewhere"
    assert sessions_dir() == Path.home() / "somewhere" / "sessions"
