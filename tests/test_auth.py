"""AuthStorage: Pi's auth.json format, 0600 files, atomic locked writes, no leaked keys."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import stat
import time
from pathlib import Path

import pytest

from pi_runtime.auth import AuthFileError, AuthStorage


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_set_get_remove_list_in_pis_format(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    store = AuthStorage(path)
    assert store.list() == [] and store.get("anthropic") is None
    store.set_api_key("anthropic", "sk-ant-123")
    store.set_api_key("openai", "sk-oa-456", env={"OPENAI_ORG": "org-1"})
    assert json.loads(path.read_text()) == {
        "anthropic": {"type": "api_key", "key": "sk-ant-123"},
        "openai": {"type": "api_key", "key": "sk-oa-456", "env": {"OPENAI_ORG": "org-1"}},
    }
    assert store.list() == ["anthropic", "openai"]
    cred = store.get("openai")
    assert (cred.type, cred.key, cred.env) == ("api_key", "sk-oa-456", {"OPENAI_ORG": "org-1"})
    assert store.get_api_key("anthropic") == "sk-ant-123"
    assert store.remove("anthropic") is True
    assert store.remove("anthropic") is False
    assert store.list() == ["openai"]


def test_file_is_created_0600_and_directory_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "auth.json"
    AuthStorage(path).set_api_key("groq", "gsk-1")
    assert mode_of(path) == 0o600
    assert mode_of(path.parent) & 0o077 == 0
    # No temp files and no lock left next to it (Pi's lock, a directory, is gone once released).
    assert sorted(p.name for p in path.parent.iterdir()) == ["auth.json"]


def test_existing_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("{}")
    os.chmod(path, 0o640)
    AuthStorage(path).set_api_key("groq", "gsk-1")
    assert mode_of(path) == 0o640


def test_oauth_and_unknown_entries_survive_writes(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    original = {
        "openai-codex": {"type": "oauth", "access": "acc", "refresh": "ref", "expires": 1700000000000},
        "future": {"type": "something-new", "blob": [1, 2, 3]},
    }
    path.write_text(json.dumps(original))
    store = AuthStorage(path)
    assert store.get_api_key("openai-codex") == "acc"
    assert store.get_api_key("future") is None and not store.has_api_key("future")
    store.set_api_key("xai", "xai-key")
    data = json.loads(path.read_text())
    assert data["openai-codex"] == original["openai-codex"]
    assert data["future"] == original["future"]


def test_keys_never_in_repr(tmp_path: Path) -> None:
    store = AuthStorage(tmp_path / "auth.json")
    store.set_api_key("anthropic", "sk-ant-SECRET", env={"X": "ENVSECRET"})
    cred = store.get("anthropic")
    for text in (repr(store), str(store), repr(cred), str(cred)):
        assert "SECRET" not in text
    assert "anthropic" in repr(cred)


def test_corrupt_file_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    broken = '{"anthropic": {"type": "api_key", "key": "sk-ant-LEAK"'
    path.write_text(broken)
    store = AuthStorage(path)
    assert store.get("anthropic") is None
    assert store.errors and str(path) in store.errors[0] and "invalid JSON" in store.errors[0]
    with pytest.raises(AuthFileError) as info:
        store.set_api_key("openai", "sk-new")
    assert "LEAK" not in str(info.value) and "LEAK" not in store.errors[0]
    assert path.read_text() == broken
    # Fixing the file by hand is picked up.
    path.write_text('{"anthropic": {"type": "api_key", "key": "sk-ant-ok"}}')
    assert store.get_api_key("anthropic") == "sk-ant-ok" and store.errors == []


def test_other_process_writes_are_seen(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    reader, writer = AuthStorage(path), AuthStorage(path)
    assert reader.get("groq") is None
    writer.set_api_key("groq", "gsk-1")
    assert reader.get_api_key("groq") == "gsk-1"
    writer.set_api_key("groq", "gsk-22")
    assert reader.get_api_key("groq") == "gsk-22"


def test_a_held_lock_blocks_writes_until_released(tmp_path: Path) -> None:
    # Pi (proper-lockfile) holds auth.json by the directory auth.json.lock, renewed while held.
    path = tmp_path / "auth.json"
    store = AuthStorage(path, lock_timeout=0.2)
    store.set_api_key("a", "1")
    (tmp_path / "auth.json.lock").mkdir()
    with pytest.raises(AuthFileError, match="lock"):
        store.set_api_key("b", "2")
    assert json.loads(path.read_text()) == {"a": {"type": "api_key", "key": "1"}}
    (tmp_path / "auth.json.lock").rmdir()
    store.set_api_key("b", "2")
    assert store.list() == ["a", "b"]


def test_an_abandoned_lock_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    lock = tmp_path / "auth.json.lock"
    lock.mkdir()
    old = time.time() - 60
    os.utime(lock, (old, old))  # its holder died a minute ago: no renewal since
    AuthStorage(path, lock_timeout=0.5).set_api_key("a", "1")
    assert json.loads(path.read_text()) == {"a": {"type": "api_key", "key": "1"}}
    assert not lock.exists()


def test_an_earlier_pis_lock_file_is_cleared_unless_held(tmp_path: Path) -> None:
    # Earlier pi versions flock()ed a plain file there, which Pi cannot remove (ENOTDIR).
    path = tmp_path / "auth.json"
    lock = tmp_path / "auth.json.lock"
    lock.write_text("")
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(AuthFileError, match="lock"):
            AuthStorage(path, lock_timeout=0.2).set_api_key("a", "1")
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    AuthStorage(path, lock_timeout=0.5).set_api_key("a", "1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["auth.json"]


def test_writes_through_a_symlink_keep_the_link(tmp_path: Path) -> None:
    real = tmp_path / "shared" / "auth.json"
    real.parent.mkdir()
    real.write_text("{}")
    link_dir = tmp_path / "agent"
    link_dir.mkdir()
    (link_dir / "auth.json").symlink_to(real)
    AuthStorage(link_dir / "auth.json").set_api_key("groq", "gsk-1")
    assert (link_dir / "auth.json").is_symlink()
    assert json.loads(real.read_text()) == {"groq": {"type": "api_key", "key": "gsk-1"}}


def _writer(path: str, prefix: str, count: int) -> None:
    store = AuthStorage(path, lock_timeout=30)
    for i in range(count):
        store.set_api_key(f"{prefix}{i}", f"key-{prefix}-{i}")


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    count = 40
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), prefix, count)) for prefix in ("a", "b")]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    data = json.loads(path.read_text())
    expected = {f"{p}{i}" for p in ("a", "b") for i in range(count)}
    assert set(data) == expected
    assert data["b7"] == {"type": "api_key", "key": "key-b-7"}
    assert mode_of(path) == 0o600


def test_default_path_follows_agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "custom"))
    store = AuthStorage()
    assert store.path == tmp_path / "custom" / "auth.json"
    store.set_api_key("x", "y")
    assert (tmp_path / "custom" / "auth.json").exists()


def test_bad_arguments() -> None:
    store = AuthStorage("/nonexistent/never-written/auth.json")
    with pytest.raises(ValueError):
        store.set_api_key("x", "")
    with pytest.raises(ValueError):
        store.set("x", {"key": "no type"})


def _stats_of(path: Path, work) -> int:
    """How many times ``work()`` stats ``path`` (C calls seen by a profile hook; nothing replaced)."""
    import sys

    seen = 0

    def watch(frame, event, arg) -> None:
        nonlocal seen
        if event == "c_call" and arg is os.stat and frame.f_locals.get("self") == path:
            seen += 1

    sys.setprofile(watch)
    try:
        work()
    finally:
        sys.setprofile(None)
    return seen


def _write_key(path: Path, provider: str) -> None:
    # Another process's write: a new file in place (its size and time change).
    tmp = path.with_name("auth.json.new")
    tmp.write_text(json.dumps({provider: {"type": "api_key", "key": "k"}}))
    os.replace(tmp, path)


def test_a_burst_of_lookups_checks_the_file_once_and_a_later_lookup_sees_a_change(tmp_path: Path) -> None:
    from pi_runtime.ai.models import ModelRegistry

    path = tmp_path / "auth.json"
    _write_key(path, "anthropic")
    store = AuthStorage(path)
    registry = ModelRegistry(read_models_json=False, auth=store, env={})
    # Choosing among 43 providers asks for each one's key: one check of the file, not one each.
    assert _stats_of(path, registry.available_providers) == 1
    assert registry.available_providers() == ["anthropic"]
    # Between two lookups the file changed (a login in another process): the next lookup sees it.
    assert store.has_api_key("anthropic") and not store.has_api_key("openai")
    _write_key(path, "openai")
    assert store.has_api_key("openai") and not store.has_api_key("anthropic")
    assert registry.available_providers() == ["openai"]
    with store.lookups():
        assert store.has_api_key("openai")
        _write_key(path, "google")
        assert not store.has_api_key("google")  # within the burst, the file read at its start
    assert store.has_api_key("google")
