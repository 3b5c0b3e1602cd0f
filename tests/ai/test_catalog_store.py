"""models-store.json: Pi's lock, and how a saved live catalogue overlays the shipped one."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from pi_runtime.ai.catalog import builtin_catalog
from pi_runtime.ai.catalog.store import StoreError, read_entry, update_entry
from pi_runtime.ai.models import ModelRegistry

COST = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}


def model(mid: str, **extra: object) -> dict[str, object]:
    return {"id": mid, "name": mid.upper(), "api": "openai-completions", "baseUrl": "https://api.groq.com/openai/v1",
            "reasoning": False, "input": ["text"], "cost": COST, "contextWindow": 1000, "maxTokens": 100, **extra}


def registry(tmp_path: Path, store: dict[str, object]) -> ModelRegistry:
    (tmp_path / "models-store.json").write_text(json.dumps(store))
    return ModelRegistry(tmp_path / "models.json", env={"GROQ_API_KEY": "g"})


def test_a_newer_pi_dev_catalogue_overlays_by_id(tmp_path: Path) -> None:
    newer = builtin_catalog().generated_at_ms + 1
    reg = registry(tmp_path, {"groq": {"models": [model("llama-3.3-70b-versatile"), model("brand-new"),
                                                  {"id": "img", "type": "image"}, "junk"],
                                       "lastModified": newer, "checkedAt": newer}})
    ids = [m.id for m in reg.models_of("groq")]
    assert ids[-1] == "brand-new" and ids.count("llama-3.3-70b-versatile") == 1
    assert reg.find("groq", "llama-3.3-70b-versatile").name == "LLAMA-3.3-70B-VERSATILE"
    assert "img" not in ids  # image models are not chat models
    assert reg.find("groq", "brand-new").provider == "groq"


def test_an_older_or_unstamped_catalogue_is_ignored(tmp_path: Path) -> None:
    shipped = [row["id"] for row in builtin_catalog().rows("groq")]
    older = builtin_catalog().generated_at_ms - 1
    for stamp in ({"lastModified": older}, {}):
        reg = registry(tmp_path, {"groq": {"models": [model("brand-new")], "checkedAt": 1, **stamp}})
        assert [m.id for m in reg.models_of("groq")] == shipped


def test_a_broken_store_costs_nothing(tmp_path: Path) -> None:
    (tmp_path / "models-store.json").write_text('{"groq": {"models": [')  # Pi was writing it
    reg = ModelRegistry(tmp_path / "models.json", env={})
    assert len(reg.models_of("groq")) == len(builtin_catalog().rows("groq"))
    reg = registry(tmp_path, {"groq": {"models": [{"id": "bad", "contextWindow": "huge"}],
                                       "lastModified": builtin_catalog().generated_at_ms + 1}})
    assert "bad" not in [m.id for m in reg.models_of("groq")]  # an invalid row is skipped


def test_gateway_and_personalized_lists_replace_the_shipped_ones(tmp_path: Path) -> None:
    reg = registry(tmp_path, {
        "radius": {"models": [model("balanced", api="pi-messages", provider="radius")], "checkedAt": 1},
        "openrouter": {"models": [], "checkedAt": 1},  # empty: the shipped models stay
    })
    assert [m.id for m in reg.models_of("radius")] == ["balanced"]
    assert len(reg.models_of("openrouter")) == len(builtin_catalog().rows("openrouter"))


def test_update_keeps_other_providers_and_writes_atomically(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    path.write_text(json.dumps({"groq": {"models": [], "checkedAt": 1}, "mine": {"keep": True}}))
    update_entry(path, "openai", lambda current: {"models": [model("x")], "checkedAt": 2} if current is None else None)
    data = json.loads(path.read_text())
    assert set(data) == {"groq", "mine", "openai"} and data["mine"] == {"keep": True}
    assert read_entry(path, "openai")["checkedAt"] == 2
    assert not (tmp_path / "models-store.json.lock").exists()  # released
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_pis_lock_is_respected_and_a_stale_one_broken(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    lock = tmp_path / "models-store.json.lock"
    lock.mkdir()  # Pi (proper-lockfile) is writing
    with pytest.raises(StoreError, match="holds the lock"):
        update_entry(path, "groq", lambda _c: {"models": []}, timeout=0.2)
    assert not path.exists()
    old = time.time() - 60
    os.utime(lock, (old, old))  # a holder that died a minute ago
    update_entry(path, "groq", lambda _c: {"models": [], "checkedAt": 3})
    assert read_entry(path, "groq") == {"models": [], "checkedAt": 3}
    assert not lock.exists()
