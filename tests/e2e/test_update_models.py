"""``pi update --models``: live catalogues into models-store.json, the file Pi shares.

The catalogue server, OpenRouter and the Radius gateway are played by the loopback stand-in
under their real names (``pi.dev``, ``openrouter.ai``, ``radius.pi.dev``), so pi and, where
``PI_REFERENCE`` names it, the real Pi run unchanged against them: the requests and the saved
file are compared, and each reads the file the other wrote. ``PI_CATALOG_BASE_URL`` (a pi
addition) points pi at a plain loopback server instead.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import PI

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply
from pi_runtime.testing.standin import ProviderStandIn

PI_REFERENCE = os.environ.get("PI_REFERENCE")
NEWER = "Tue, 01 Dec 2026 00:00:00 GMT"  # after the shipped data (2026-11-20): the overlay counts
COST = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}
GPT9 = {"id": "gpt-9-test", "name": "GPT 9", "api": "openai-responses", "baseUrl": "https://api.openai.com/v1",
        "reasoning": True, "input": ["text"], "cost": COST, "contextWindow": 1000, "maxTokens": 100}
GPT5 = {**GPT9, "id": "gpt-5", "name": "GPT-5 (live)", "contextWindow": 123_000}


def live_services(request: RecordedRequest) -> Reply:
    """pi.dev with a newer OpenAI catalogue (and none for the others), OpenRouter's key
    listing, Radius's gateway config."""
    if request.host == "pi.dev" and request.path.startswith("/api/models/providers/openai?"):
        if request.headers.get("if-none-match") == '"v1"':
            return Reply.raw(b"", status=304, headers={"etag": '"v1"'})
        return Reply.json(200, [GPT9, GPT5], headers={"last-modified": NEWER, "etag": '"v1"'})
    if request.host == "pi.dev":
        return Reply.json(404, {"error": "no catalogue"})
    if request.host == "openrouter.ai" and request.path == "/api/v1/models/user":
        return Reply.json(200, {"data": [{"id": "anthropic/claude-sonnet-4.5", "context_length": 1000,
                                          "top_provider": {"max_completion_tokens": 500},
                                          "pricing": {"prompt": "0.000003", "completion": "0.000015"}}]})
    if request.host == "radius.pi.dev" and request.path == "/v1/config":
        return Reply.json(200, {"baseUrl": "https://radius.pi.dev/v1", "models": [
            {"id": "balanced", "name": "Balanced", "reasoning": True, "input": ["text"], "cost": COST,
             "contextWindow": 1000, "maxTokens": 100}]})
    return Reply.json(404, {"error": f"nothing plays {request.host}{request.path}"})


@pytest.fixture
def standin(tmp_path: Path) -> Iterator[ProviderStandIn]:
    with ProviderStandIn(live_services, directory=tmp_path / "ca") as server:
        yield server


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """PATH, a fresh home and agent dir, and only the variables given (no real credentials)."""
    (home / "agent").mkdir(parents=True, exist_ok=True)
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PI_CODING_AGENT_DIR": str(home / "agent"),
            "PI_SKIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1", **extra}


KEYS = {"OPENAI_API_KEY": "sk-test", "OPENROUTER_API_KEY": "or-test", "RADIUS_API_KEY": "rad-test"}


def run(program: list[str], env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*program, *args], env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def store_of(env: dict[str, str]) -> dict[str, Any]:
    return json.loads((Path(env["PI_CODING_AGENT_DIR"]) / "models-store.json").read_text())


def without_times(store: dict[str, Any]) -> dict[str, Any]:
    return {pid: {k: v for k, v in entry.items() if k != "checkedAt"} for pid, entry in store.items()}


def listed(program: list[str], env: dict[str, str], search: str) -> dict[str, list[str]]:
    done = run(program, {**env, "PI_OFFLINE": "1"}, "--list-models", search)
    assert done.returncode == 0, done.stderr
    rows: dict[str, list[str]] = {}
    for line in done.stdout.splitlines()[1:]:
        provider, model, *rest = line.split()
        rows.setdefault(provider, []).append(" ".join([model, *rest]))
    return rows


def test_refresh_saves_each_configured_providers_catalogue(tmp_path: Path, standin: ProviderStandIn) -> None:
    env = clean_env(tmp_path / "pi", **KEYS, **standin.env())
    done = run([PI], env, "update", "--models")
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "Model catalogs refreshed", "")
    asked = sorted((r.host, r.path) for r in standin.requests)
    assert asked == [("openrouter.ai", "/api/v1/models/user"),
                     ("pi.dev", "/api/models/providers/openai?types=chat%2Cimage%2Cclassifier"),
                     ("pi.dev", "/api/models/providers/openrouter?types=chat%2Cimage%2Cclassifier"),
                     ("radius.pi.dev", "/v1/config")]
    by_host = {r.host: r for r in standin.requests}
    assert by_host["openrouter.ai"].headers["authorization"] == "Bearer or-test"
    assert by_host["radius.pi.dev"].headers["authorization"] == "Bearer rad-test"
    assert "authorization" not in by_host["pi.dev"].headers  # pi.dev needs no credentials
    assert by_host["pi.dev"].headers["user-agent"].startswith("pi/1.6.0 (")
    store = store_of(env)
    assert set(store) == {"openai", "openrouter", "radius"}
    assert store["openai"]["etag"] == '"v1"' and store["openai"]["lastModified"] == 1796083200000
    assert [m["id"] for m in store["openai"]["models"]] == ["gpt-9-test", "gpt-5"]
    chat = [m for m in store["openrouter"]["models"] if m.get("type", "chat") == "chat"]
    assert [(m["id"], m["contextWindow"], m["maxTokens"], m["cost"]["input"]) for m in chat] == [
        ("anthropic/claude-sonnet-4.5", 1000, 500, 3)]
    # What the catalogue says now: the live models overlay the shipped ones.
    models = listed([PI], env, "openai/gpt")
    assert "gpt-9-test 1K 100 yes no" in models["openai"]
    assert "gpt-5 123K 100 yes no" in models["openai"]
    assert len(models["openai"]) > 30  # the shipped OpenAI models stay
    assert listed([PI], env, "openrouter")["openrouter"] == ["anthropic/claude-sonnet-4.5 1K 500 yes yes"]
    assert listed([PI], env, "radius")["radius"] == ["balanced 1K 100 yes no"]


def test_second_refresh_revalidates_with_the_etag(tmp_path: Path, standin: ProviderStandIn) -> None:
    env = clean_env(tmp_path / "pi", OPENAI_API_KEY="sk-test", **standin.env())
    assert run([PI], env, "update", "--models").returncode == 0
    first = store_of(env)["openai"]
    done = run([PI], env, "update", "--models")
    assert done.returncode == 0, done.stderr
    second = standin.requests_to("pi.dev")[-1]
    assert second.headers["if-none-match"] == '"v1"'
    after = store_of(env)["openai"]
    assert after["models"] == first["models"] and after["etag"] == '"v1"'  # 304: kept
    assert after["checkedAt"] >= first["checkedAt"]


def test_nothing_configured_asks_nobody(tmp_path: Path, standin: ProviderStandIn) -> None:
    done = run([PI], clean_env(tmp_path / "pi", **standin.env()), "update", "--models")
    assert (done.returncode, done.stdout.strip()) == (0, "Model catalogs refreshed")
    assert standin.requests == []


def test_catalogue_server_from_the_environment(tmp_path: Path) -> None:
    def answer(request: RecordedRequest) -> Reply:
        return Reply.json(200, {"models": [{**GPT9, "id": "from-loopback"}]}, headers={"last-modified": NEWER})

    with LoopbackServer(answer) as server:
        env = clean_env(tmp_path / "pi", GROQ_API_KEY="g", PI_CATALOG_BASE_URL=server.url)
        done = run([PI], env, "update", "--models")
        assert done.returncode == 0, done.stderr
        assert [r.path for r in server.requests] == ["/api/models/providers/groq?types=chat%2Cimage%2Cclassifier"]
    assert [m["id"] for m in store_of(env)["groq"]["models"]] == ["from-loopback"]
    assert "from-loopback" in " ".join(listed([PI], env, "groq")["groq"])


def test_a_failing_server_is_one_line_and_keeps_the_saved_catalogue(tmp_path: Path) -> None:
    replies = iter([Reply.json(200, [GPT9], headers={"last-modified": NEWER})])

    def answer(request: RecordedRequest) -> Reply:
        return next(replies, Reply.json(503, {"error": "down"}))

    with LoopbackServer(answer) as server:
        env = clean_env(tmp_path / "pi", OPENAI_API_KEY="sk-test", PI_CATALOG_BASE_URL=server.url)
        assert run([PI], env, "update", "--models").returncode == 0
        done = run([PI], env, "update", "--models")
        assert len(server.requests) == 1 + 3  # the failing refresh was tried three times
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == ("Error: Could not refresh model catalogs: "
                                   "openai: Model catalog request failed for openai: 503")
    assert [m["id"] for m in store_of(env)["openai"]["models"]] == ["gpt-9-test"]


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = clean_env(tmp_path / "pi", OPENAI_API_KEY="sk-secret-1234", PI_CATALOG_BASE_URL=f"http://127.0.0.1:{port}")
    done = run([PI], env, "update", "--models")
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: Could not refresh model catalogs: openai: fetch failed")
    assert "sk-secret" not in done.stderr


def test_models_cannot_be_combined(tmp_path: Path) -> None:
    done = run([PI], clean_env(tmp_path / "pi"), "update", "--models", "--extensions")
    assert done.returncode == 1
    assert "--models cannot be combined" in done.stderr


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_same_requests_and_file_as_pi_and_each_reads_the_others(tmp_path: Path, standin: ProviderStandIn) -> None:
    envs = {who: clean_env(tmp_path / who, **KEYS, **standin.env()) for who in ("Pi", "pi")}
    programs = {"Pi": [str(PI_REFERENCE)], "pi": [PI]}
    sent: dict[str, list[tuple[str, str, str, str, str]]] = {}
    for who in ("Pi", "pi"):
        start = len(standin.requests)
        for _ in range(2):  # the second run revalidates
            done = run(programs[who], envs[who], "update", "--models")
            assert (done.returncode, done.stdout.strip()) == (0, "Model catalogs refreshed"), (who, done.stderr)
        sent[who] = sorted((r.method, r.host, r.path, r.headers.get("if-none-match", ""),
                            r.headers.get("authorization", "")) for r in standin.requests[start:])
    assert sent["pi"] == sent["Pi"]
    assert without_times(store_of(envs["pi"])) == without_times(store_of(envs["Pi"]))
    # Each reads the file the other wrote: the lists agree whoever wrote it.
    for search in ("openai/gpt-9", "openrouter", "radius"):
        theirs = listed(programs["Pi"], envs["pi"], search)
        ours = listed(programs["pi"], envs["Pi"], search)
        assert ours == theirs, search
