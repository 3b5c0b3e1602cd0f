"""The generated catalogue (Pi 1.6's providers and models) and how pi reads it.

Counts are checked against the data file itself (no Pi needed); when ``PI_REFERENCE`` names
Pi's ``pi``, the generator is run against Pi's installed packages and must reproduce the
committed file exactly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_runtime.ai.catalog import builtin_catalog, classifier_models, image_models, model_dicts
from pi_runtime.ai.env_keys import AMBIENT, describe_env, env_api_key, env_var_names, resolve_env_auth
from pi_runtime.ai.models import ModelRegistry
from pi_runtime.kernel.thinking import available_thinking_levels

REPO = Path(__file__).resolve().parents[2]
PI_REFERENCE = os.environ.get("PI_REFERENCE")


# ---------------------------------------------------------------------------- the data


def test_the_data_is_pi_16s_catalogue() -> None:
    catalog = builtin_catalog()
    assert (catalog.source.package, catalog.source.version) == ("@earendil-works/pi-ai", "1.6.0")
    assert len(catalog.providers) == 43
    counts = {kind: sum(info.counts.get(kind, 0) for info in catalog.providers.values())
              for kind in ("chat", "image", "classifier")}
    assert counts == {"chat": 1698, "image": 74, "classifier": 81}
    for pid, info in catalog.providers.items():
        rows = catalog.rows(pid)
        assert len(rows) == info.counts.get("chat", 0), pid
        assert len(image_models(pid)) == info.counts.get("image", 0), pid
        assert len(classifier_models(pid)) == info.counts.get("classifier", 0), pid
        for row in rows:
            assert {"id", "name", "api", "baseUrl", "input", "cost", "contextWindow", "maxTokens"} <= set(row), row
            assert row["api"] in info.apis
        assert len({row["id"] for row in rows}) == len(rows), f"{pid}: duplicate ids"


def test_providers_carry_pis_definitions() -> None:
    catalog = builtin_catalog()
    anthropic = catalog.providers["anthropic"]
    assert (anthropic.name, anthropic.base_url, anthropic.api) == ("Anthropic", "https://api.anthropic.com",
                                                                  "anthropic-messages")
    assert anthropic.auth.oauth is not None and anthropic.auth.oauth.is_subscription
    assert anthropic.default_model == "claude-opus-5-5"
    assert catalog.providers["openai-codex"].auth.api_key is None  # an account sign-in only
    assert catalog.providers["openrouter"].apis == ["anthropic-messages", "openai-completions"]
    copilot = model_dicts("github-copilot")[0]
    assert copilot["headers"]["Copilot-Integration-Id"] == "vscode-chat"
    assert catalog.default_model_order[:3] == ["amazon-bedrock", "ant-ling", "anthropic"]
    jev = classifier_models("typesafe")[0]
    assert (jev["type"], jev["provider"], jev["api"]) == ("classifier", "typesafe", "typesafe-system-one")
    assert {m["type"] for m in image_models("openrouter")} == {"image"}


def test_importing_the_catalogue_reads_nothing() -> None:
    code = ("import sys, pi_runtime.ai.catalog, pi_runtime.ai.env_keys, pi_runtime.ai.models; "
            "from pi_runtime.ai.catalog import data; print(data.builtin_catalog.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_the_head_is_read_alone_and_the_model_lists_when_asked(tmp_path: Path) -> None:
    # The generator's layout lets the providers be read without stepping over 1,700 model rows;
    # the same data in any other layout (compact JSON) is read whole, with the same result.
    import json

    import msgspec

    from pi_runtime.ai.catalog.data import DATA_FILE, BuiltinCatalog, _CatalogFile

    raw = DATA_FILE.read_bytes()
    whole = msgspec.json.decode(raw, type=_CatalogFile)
    compact = json.dumps(json.loads(raw), separators=(",", ":")).encode()
    for catalog, unread in ((BuiltinCatalog(raw), True), (BuiltinCatalog(compact), False)):
        assert (catalog._lists is None) is unread
        assert (catalog.source, catalog.default_model_order, catalog.providers) == (
            whole.source, whole.default_model_order, whole.providers)
        assert catalog.chat_providers() == list(whole.models)
        assert (catalog._lists is None) is unread  # the providers with chat models, from their counts
        for kind, lists in (("chat", whole.models), ("image", whole.image_models),
                            ("classifier", whole.classifier_models)):
            assert {pid: json.loads(bytes(rows)) for pid, rows in catalog._raw[kind].items()} == {
                pid: json.loads(bytes(rows)) for pid, rows in lists.items()}, kind


def test_reading_the_head_compiles_nothing() -> None:
    # msgspec reads the structs' annotations on the first decode: as strings, each was a compile()
    # and an eval() (~35, ~2 M instructions of every run that reads the catalogue).
    code = ("import sys\nfrom pi_runtime.ai.catalog import data\nseen = []\n"
            "sys.addaudithook(lambda event, args: seen.append(args[0]) if event == 'compile' else None)\n"
            "data.builtin_catalog()\nprint(len(seen), seen[:3])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0 []"


def test_a_models_json_model_leaves_the_model_lists_unread(tmp_path: Path) -> None:
    import json

    models = tmp_path / "models.json"
    models.write_text(json.dumps({"providers": {"lab": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                                                        "apiKey": "k", "models": [{"id": "m1"}]}}}))
    code = ("from pi_runtime.ai.models import ModelRegistry; from pi_runtime.ai.catalog import data\n"
            f"reg = ModelRegistry({str(models)!r}, env={{}})\n"
            "print(reg.lookup('lab/m1').id, data.builtin_catalog()._lists is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["m1", "True"]


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_do_not_load_the_catalogue(flag: str) -> None:
    code = ("import contextlib, io, sys\nfrom pi_runtime.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()):\n    main([{flag!r}])\n"
            "print(sorted(m for m in sys.modules if m.startswith(('pi_runtime.ai.catalog', 'pi_runtime.ai.env_keys'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_the_generator_reproduces_the_committed_file() -> None:
    cli = Path(PI_REFERENCE).resolve()
    modules = next(p for p in cli.parents if p.name == "node_modules")
    version = (modules / "@earendil-works" / "pi-ai" / "package.json").read_text()
    if '"version": "1.6.0"' not in version:
        pytest.skip("PI_REFERENCE is not Pi 1.6.0, the version the committed catalogue comes from")
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "generate_catalog.py"), "--from", str(modules),
                           "--check"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "1698 chat models" in done.stdout


# ---------------------------------------------------------------------------- credentials


def test_env_ways_as_pi_resolves_them(tmp_path: Path) -> None:
    assert env_api_key("openai", {"OPENAI_API_KEY": "sk-1"}) == "sk-1"
    assert env_api_key("openai", {"OPENAI_API_KEY": "  "}) is None  # blank is unset, as in Pi
    # Amazon Bedrock: one of AWS's credential sources, no key of its own.
    assert resolve_env_auth("amazon-bedrock", {"AWS_ACCESS_KEY_ID": "a"}) is None
    bedrock = resolve_env_auth("amazon-bedrock", {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"})
    assert bedrock is not None and bedrock.api_key is None and bedrock.source == "AWS access keys"
    # Cloudflare: the key needs the account id (handed on as a setting for the base URL).
    assert resolve_env_auth("cloudflare-workers-ai", {"CLOUDFLARE_API_KEY": "k"}) is None
    workers = resolve_env_auth("cloudflare-workers-ai", {"CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_ACCOUNT_ID": "acc"})
    assert workers is not None and workers.api_key == "k" and workers.settings == {"CLOUDFLARE_ACCOUNT_ID": "acc"}
    # Anthropic: ANTHROPIC_AUTH_TOKEN is a bearer header and wins; the key comes from the next way.
    token = resolve_env_auth("anthropic", {"ANTHROPIC_AUTH_TOKEN": "tok", "ANTHROPIC_API_KEY": "key"})
    assert token is not None and token.headers == {"Authorization": "Bearer tok"} and token.api_key is None
    assert env_api_key("anthropic", {"ANTHROPIC_AUTH_TOKEN": "tok", "ANTHROPIC_API_KEY": "key"}) == "key"
    # Google Vertex: project and location count only with a credentials file that exists.
    adc = {"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1",
           "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "missing.json")}
    assert resolve_env_auth("google-vertex", adc) is None
    (tmp_path / "adc.json").write_text("{}")
    assert resolve_env_auth("google-vertex", {**adc, "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "adc.json")})
    assert "GOOGLE_CLOUD_API_KEY" in env_var_names("google-vertex")
    assert describe_env("cloudflare-ai-gateway") == "CLOUDFLARE_API_KEY + CLOUDFLARE_ACCOUNT_ID + CLOUDFLARE_GATEWAY_ID"


def test_registry_uses_the_ways() -> None:
    reg = ModelRegistry(read_models_json=False, env={"ANTHROPIC_AUTH_TOKEN": "tok",
                                                     "AWS_PROFILE": "dev", "CLOUDFLARE_API_KEY": "k"})
    assert reg.provider_has_credentials("anthropic") and reg.provider_has_credentials("amazon-bedrock")
    assert not reg.provider_has_credentials("cloudflare-workers-ai")  # no account id
    auth = reg.request_auth(reg.find("anthropic", "claude-sonnet-4-5"))
    assert auth.headers == {"Authorization": "Bearer tok"} and auth.source == "env:ANTHROPIC_AUTH_TOKEN"
    bedrock = reg.request_auth(reg.models_of("amazon-bedrock")[0])
    assert bedrock.api_key == AMBIENT and bedrock.source == "env:AWS_PROFILE"  # the provider reads AWS's chain
    assert {m.provider for m in reg.available()} == {"anthropic", "amazon-bedrock"}


# ---------------------------------------------------------------------------- loading


def test_one_model_builds_one_provider() -> None:
    reg = ModelRegistry(read_models_json=False, env={})
    table = reg._table
    assert reg.lookup("anthropic/claude-opus-4-6") is not None
    assert table.is_built("anthropic") and not table.is_built("openrouter")
    # A bare id or a fuzzy search looks at ids and names and builds only the providers that match.
    hits = reg.matching(lambda _p, mid, _n: mid == "gpt-oss-120b")
    assert {m.provider for m in hits} >= {"cerebras"}
    assert not table.is_built("openrouter") and not table.is_built("amazon-bedrock")
    assert len(reg.providers()) == 42 and not table.is_built("vercel-ai-gateway")


def test_models_carry_pis_extra_fields_and_thinking_levels() -> None:
    reg = ModelRegistry(read_models_json=False, env={})
    opus = reg.find("anthropic", "claude-opus-4-6")
    assert opus is not None and opus.input_limits and opus.input_limits["maxRequestBytes"] > 0
    assert opus.to_wire()["inputLimits"] == opus.input_limits  # Pi's wire names on the way out
    radius = reg.find("radius", "balanced")
    assert radius is not None and radius.thinking_level_map["minimal"] is None
    # Levels the map sets to null are not offered (Pi's getSupportedThinkingLevels).
    assert available_thinking_levels(radius) == ["low", "high", "max"]  # Pi offers max where the map declares it
    assert "xhigh" in available_thinking_levels(reg.find("anthropic", "claude-fable-5"))
    assert "xhigh" not in available_thinking_levels(reg.find("anthropic", "claude-haiku-4-5"))
