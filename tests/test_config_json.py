"""What a config file holds can stop nothing (issue #34): a number of 100,000 digits, arrays
nested 100,000 deep, NaN. Each reader (settings, models.json, auth.json, keybindings, themes,
trust.json) says what it left out in one line and uses the rest; nothing that would write the
file back drops the value silently.
"""

from __future__ import annotations

import json

import pytest

from pi_runtime.ai.models_json import load_models_json
from pi_runtime.auth import AuthFileError, AuthStorage
from pi_runtime.config_files import MAX_CONFIG_DEPTH, ConfigJsonError, parse_config_json
from pi_runtime.resources.trust import TrustStore, TrustStoreError

DIGITS = "9" * 100_000
DEEP = "[" * 100_000 + "]" * 100_000


def test_huge_numbers_and_constants_are_left_out_with_where_they_were():
    text = ('{"theme": ' + DIGITS + ', "keep": 1, "list": [1, 1e999, NaN, -Infinity, 2], "nested": {"n": -'
            + "9" * 400 + ', "ok": 12345678901234567890}}')
    data, dropped = parse_config_json(text)
    assert data == {"keep": 1, "list": [1, 2], "nested": {"ok": 12345678901234567890}}
    assert sorted(map(str, dropped)) == [
        "list[1]: a number too large to use (1e999); ignored",
        "list[2]: NaN, which is not a JSON number; ignored",
        "list[3]: -Infinity, which is not a JSON number; ignored",
        "nested.n: a number of 400 digits, too large to use; ignored",
        "theme: a number of 100,000 digits, too large to use; ignored",
    ]


def test_deep_values_go_with_the_member_holding_them_and_the_rest_is_kept():
    data, dropped = parse_config_json('{"theme": ' + DEEP + ', "a": {"b": {"deep": ' + "[" * 100 + "]" * 100
                                      + ', "kept": true}}, "x": 2}')
    assert data == {"a": {"b": {"kept": True}}, "x": 2}
    assert sorted(str(d) for d in dropped) == [f"a.b.deep: nested more than {MAX_CONFIG_DEPTH} levels deep; ignored",
                                         f"theme: nested more than {MAX_CONFIG_DEPTH} levels deep; ignored"]
    shallow = "[" * MAX_CONFIG_DEPTH + "]" * MAX_CONFIG_DEPTH  # at the limit: kept
    assert parse_config_json('{"a": ' + shallow[2:-2] + "}")[1] == []


def test_unreadable_json_is_one_line():
    for text, message in [("{", "invalid JSON at line 1 column 2"),
                          ("[" * 1_000_000 + "]" * 1_000_000, "nested too deeply to read")]:
        with pytest.raises(ConfigJsonError, match=message) as caught:
            parse_config_json(text)
        assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_models_json_leaves_out_the_model_or_provider_that_lost_a_value(tmp_path):
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"providers": {
        "a": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k",
              "models": [{"id": "m1", "contextWindow": "@"}, {"id": "m2"}]},
        "b": {"baseUrl": "@", "api": "openai-completions", "apiKey": "k", "models": [{"id": "z"}]},
        "c": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k", "models": [{"id": "y"}]},
    }}).replace('"@"', DIGITS, 1).replace('"@"', DEEP, 1))
    found = load_models_json(path)
    assert sorted(found.providers) == ["a", "c"] and [m.id for m in found.providers["a"].models] == ["m2"]
    assert sorted(found.errors) == [
        f"{path}: providers.a.models[0]: contextWindow: a number of 100,000 digits, too large to use; model left out",
        f"{path}: providers.b: baseUrl: nested more than {MAX_CONFIG_DEPTH} levels deep; provider left out",
    ]


def test_auth_json_with_a_huge_number_is_refused_not_rewritten(tmp_path):
    path = tmp_path / "auth.json"
    text = '{"loop": {"type": "api_key", "key": "secret-value", "n": ' + DIGITS + "}}"
    path.write_text(text)
    store = AuthStorage(path)
    with pytest.raises(AuthFileError) as caught:
        store._read_file()
    assert "loop.n: a number of 100,000 digits" in str(caught.value) and "secret-value" not in str(caught.value)
    path.write_text('{"loop": ' + DEEP + "}")
    with pytest.raises(AuthFileError, match="nested more than"):
        store._read_file()


def test_keybindings_with_a_deep_value_keep_the_other_keys(tmp_path):
    from pi_tui.keys.keymap import load_keymap

    path = tmp_path / "keybindings.json"
    path.write_text('{"app.interrupt": ' + DEEP + ', "app.clear": "ctrl+x"}')
    keymap = load_keymap(path)
    assert keymap.keys("app.clear") == ["ctrl+x"]
    assert f"{path}: app.interrupt: nested more than {MAX_CONFIG_DEPTH} levels deep; ignored" in keymap.problems


def test_a_theme_with_a_huge_number_is_refused_and_the_others_load(tmp_path):
    from pi_tui.theme.theme import discover_themes

    folder = tmp_path / "themes"
    folder.mkdir()
    (folder / "bad.json").write_text('{"name": "bad", "colors": {"accent": ' + DIGITS + "}}")
    themes, errors = discover_themes(folder)
    assert "bad" not in themes and "dark" in themes
    assert errors == [f"{folder / 'bad.json'}: colors.accent: a number of 100,000 digits, too large to use; ignored"]


def test_trust_json_with_a_value_left_out_is_not_rewritten(tmp_path):
    path = tmp_path / "trust.json"
    text = '{"/a": true, "/b": ' + DIGITS + "}"
    path.write_text(text)
    store = TrustStore(tmp_path)
    with pytest.raises(TrustStoreError, match="holds a value pi cannot keep"):
        store.set(tmp_path, True)
    assert path.read_text() == text


def test_every_reader_takes_the_hostile_files_without_a_traceback(tmp_path):
    """Smoke: the same two texts in each file pi reads, through its real reader."""
    from pi_runtime.settings import SettingsManager

    for text in ('{"theme": ' + DIGITS + "}", '{"theme": ' + DEEP + "}"):
        agent, cwd = tmp_path / "agent", tmp_path / "cwd"
        (cwd / ".pi").mkdir(parents=True, exist_ok=True)
        agent.mkdir(exist_ok=True)
        for file in (agent / "settings.json", cwd / ".pi" / "settings.json"):
            file.write_text(text)
        manager = SettingsManager.create(cwd, agent, project_trusted=True)
        assert len(manager.warnings) == 2 and all("theme:" in str(w) for w in manager.warnings)
        assert isinstance(manager.settings.theme, str | None)
