"""Config files that are FIFOs, devices or huge: refused at once by every reader, never waited on.

Real FIFOs (no writer: a blocking open would wait forever), a symlink to ``/dev/zero`` (reading
it would never end), a sparse file past the size cap. Each read runs in a thread with a time
limit, so a regression shows as a failure, not as a hung test run.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.ai.models_json import load_models_json
from pi_runtime.auth import AuthFileError, AuthStorage
from pi_runtime.config_files import MAX_CONFIG_BYTES, ConfigFileError, read_config_text
from pi_runtime.settings import SettingsManager


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a thread; fail (and unblock a FIFO reader) if it takes longer."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"still reading after {seconds} s (blocked on a FIFO or an endless device)")
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture(params=["fifo", "dev-zero", "huge"])
def bad_file(request, tmp_path: Path):
    """Make ``name`` in a folder a FIFO, a symlink to /dev/zero or an over-size sparse file."""

    def make(folder: Path, name: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if request.param == "fifo":
            os.mkfifo(path)
        elif request.param == "dev-zero":
            path.symlink_to("/dev/zero")
        else:
            with open(path, "wb") as fh:
                fh.truncate(MAX_CONFIG_BYTES + 1)
        return path

    make.kind = request.param  # type: ignore[attr-defined]
    return make


def test_the_shared_reader_refuses_them(bad_file, tmp_path):
    path = bad_file(tmp_path, "x.json")
    with pytest.raises(ConfigFileError, match="not a regular file|more than the 16.0 MB"):
        within(5, lambda: read_config_text(path))
    ok = tmp_path / "ok.json"
    ok.write_bytes(b"\xef\xbb\xbf{}")
    assert read_config_text(ok) == "{}"


def test_settings_json(bad_file, tmp_path):
    agent = tmp_path / "agent"
    bad_file(agent, "settings.json")
    manager = within(5, lambda: SettingsManager.create(tmp_path, agent))
    manager.set_project_trusted(True)  # start-up reads the files again once trust is known
    assert manager.settings.retry.max_retries == 3  # defaults
    [warning] = manager.warnings
    assert warning.path == str(agent / "settings.json")
    assert str(warning).startswith(f"{agent / 'settings.json'}: not read: it is ")
    assert str(warning).endswith("; using defaults for this file")  # never read, so nothing to keep


def test_models_json(bad_file, tmp_path):
    path = bad_file(tmp_path, "models.json")
    loaded = within(5, lambda: load_models_json(path))
    assert loaded.providers == {} or not loaded.providers
    assert len(loaded.errors) == 1 and "it is not read" in loaded.errors[0]


def test_auth_json(bad_file, tmp_path):
    path = bad_file(tmp_path, "auth.json")
    store = AuthStorage(path)
    with pytest.raises(AuthFileError, match="it is not read"):
        within(5, store._read_file)
    assert within(5, store.list) == []  # reads go on with no credentials


def test_keybindings_json(bad_file, tmp_path):
    from pi_tui.keys.keymap import load_keymap

    path = bad_file(tmp_path, "keybindings.json")
    keymap = within(5, lambda: load_keymap(path))
    assert any("it is not read" in p for p in keymap.problems)


def test_theme_file(bad_file, tmp_path):
    from pi_tui.theme.theme import ThemeError, discover_themes, load_theme_file

    path = bad_file(tmp_path / "themes", "mine.json")
    with pytest.raises(ThemeError, match="it is not read"):
        within(5, lambda: load_theme_file(path))
    themes, errors = within(5, lambda: discover_themes(tmp_path / "themes"))
    assert themes and any("mine.json" in e for e in errors)  # the built-in ones still load


def test_settings_reload_keeps_the_previous_settings_when_the_file_turns_invalid(tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    file = agent / "settings.json"
    file.write_text(json.dumps({"retry": {"maxRetries": 7}, "theme": "dark"}))
    manager = SettingsManager.create(tmp_path, agent)
    assert manager.settings.retry.max_retries == 7
    file.write_text('{"retry": {"maxRetries": 9},')  # half-saved by an editor
    manager.reload()
    assert manager.settings.retry.max_retries == 7 and manager.settings.theme == "dark"
    assert "keeping the settings read before" in str(manager.warnings[0])
    file.write_text(json.dumps({"retry": {"maxRetries": 9}}))
    manager.reload()
    assert manager.settings.retry.max_retries == 9 and manager.warnings == []


def test_auth_json_readable_by_others_is_reported_and_left_alone(tmp_path):
    path = tmp_path / "auth.json"
    store = AuthStorage(path)
    store.set_api_key("anthropic", "sk-ant-1")
    assert store.permission_problem() is None  # created 0600
    path.chmod(0o644)
    problem = store.permission_problem()
    assert problem == (f"{path} is accessible to other users (mode 0644); the keys in it are exposed. "
                       f"Run: chmod 600 {path}")
    assert store.get_api_key("anthropic") == "sk-ant-1"
    assert path.stat().st_mode & 0o777 == 0o644  # not changed behind the owner's back, as in Pi


@pytest.mark.parametrize("raw", [b'\xef\xbb\xbf{"a": 1}', b'{"a": 1}', b"\xef\xbb\xbf", b"", b'\xef\xbb\xbf\xef\xbb\xbf{}',
                                 b'\xef\xbb\xbf{"a": "\xff"}', b'{"a": "\xc3"}', b"\xef\xbb"])
def test_config_text_is_what_the_utf_8_sig_codec_gives(raw: bytes, tmp_path: Path) -> None:
    # read_config_text drops a byte-order mark itself (the codec's module cost a start-up ~0.5 M
    # instructions): the same text, and the same error, as decode("utf-8-sig").
    path = tmp_path / "f.json"
    path.write_bytes(raw)
    try:
        expected: object = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        expected = str(exc)
    try:
        got: object = read_config_text(path)
    except UnicodeDecodeError as exc:
        got = str(exc)
    assert got == expected
