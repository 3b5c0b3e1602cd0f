"""Settings: Pi's defaults, global/project merge, bad values and files, atomic write-back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.settings import SettingsError, SettingsManager
from pi_runtime.settings_model import Settings


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    agent, cwd = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    (cwd / ".pi").mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    return agent, cwd


def write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_defaults_are_pis() -> None:
    s = SettingsManager.in_memory().settings
    assert (s.compaction.enabled, s.compaction.reserve_tokens, s.compaction.keep_recent_tokens) == (True, 16384, 20000)
    assert (s.retry.enabled, s.retry.max_retries, s.retry.base_delay_ms, s.retry.max_agent_delay_ms) == (True, 3, 2000, 60000)
    assert (s.steering_mode, s.follow_up_mode) == ("one-at-a-time", "one-at-a-time")
    assert (s.default_thinking_level, s.default_project_trust, s.double_escape_action) == ("medium", "ask", "tree")
    assert (s.theme, s.hide_thinking_block, s.quiet_startup, s.default_model) == ("system", False, False, None)


def test_every_field_has_a_docstring() -> None:
    from pi_runtime.settings_model import field_docs

    docs = field_docs(Settings)
    missing = [name for name in Settings.model_fields if not docs.get(name)]
    assert missing == []
    assert "thinking" in docs["default_thinking_level"].lower()


def test_project_wins_and_nested_objects_merge(dirs) -> None:
    agent, cwd = dirs
    write(agent / "settings.json", {"theme": "dark", "defaultModel": "m1", "compaction": {"enabled": False, "reserveTokens": 1000}})
    write(cwd / ".pi" / "settings.json", {"theme": "light", "compaction": {"reserveTokens": 2000}, "retry": {"maxRetries": 5}})
    manager = SettingsManager.create(cwd, agent)
    s = manager.settings
    assert (s.theme, s.default_model) == ("light", "m1")
    assert (s.compaction.enabled, s.compaction.reserve_tokens, s.compaction.keep_recent_tokens) == (False, 2000, 20000)
    assert (s.retry.max_retries, s.retry.base_delay_ms) == (5, 2000)
    assert manager.global_settings.theme == "dark"
    assert manager.get("compaction.reserveTokens") == 2000
    assert manager.get("retry.base_delay_ms") == 2000
    assert manager.warnings == []


def test_project_settings_only_when_trusted(dirs) -> None:
    agent, cwd = dirs
    write(agent / "settings.json", {"theme": "dark"})
    write(cwd / ".pi" / "settings.json", {"theme": "light", "sessionDir": "sessions-here"})
    manager = SettingsManager.create(cwd, agent, project_trusted=False)
    assert manager.settings.theme == "dark"
    # Pi reads sessionDir before trust; pi reads nothing of an untrusted project (a stranger's
    # clone must not choose where the user's conversations are written).
    assert manager.project_session_dir() is None
    manager.set_project_trusted(True)
    assert manager.settings.theme == "light"
    assert manager.project_session_dir() == "sessions-here"


def test_a_trust_decision_reads_the_project_file_only(dirs) -> None:
    # The global file was read at creation and trust does not concern it: reading it again cost a
    # read, a clean-up and its warnings once more on every start-up in a trusted folder.
    agent, cwd = dirs
    write(agent / "settings.json", {"theme": "dark", "quietStartup": "yes"})
    write(cwd / ".pi" / "settings.json", {"hideThinkingBlock": True})
    manager = SettingsManager.create(cwd, agent, project_trusted=False)
    assert [w.key for w in manager.warnings] == ["quietStartup"]
    write(agent / "settings.json", "{ not json")
    manager.set_project_trusted(True)
    assert (manager.settings.theme, manager.settings.hide_thinking_block) == ("dark", True)
    assert [w.key for w in manager.warnings] == ["quietStartup"]
    manager.set_project_trusted(False)
    assert (manager.settings.theme, manager.settings.hide_thinking_block) == ("dark", False)
    manager.reload()  # an explicit reload still reads both
    assert any("keeping the settings read before" in w.message for w in manager.warnings)


def test_a_huge_number_or_deep_nesting_is_one_warning_and_the_rest_applies(dirs) -> None:
    agent, cwd = dirs
    project = write(cwd / ".pi" / "settings.json", {})
    project.write_text('{"theme": ' + "9" * 100_000 + ', "hideThinkingBlock": true, "quietStartup": '
                       + "[" * 100_000 + "]" * 100_000 + ', "steeringMode": "all"}')
    manager = SettingsManager.create(cwd, agent, project_trusted=True)
    assert [str(w) for w in manager.warnings] == [
        f"{project}: theme: a number of 100,000 digits, too large to use; ignored",
        f"{project}: quietStartup: nested more than 64 levels deep; ignored",
    ]
    assert manager.settings.hide_thinking_block is True and manager.settings.steering_mode == "all"
    assert manager.settings.theme == Settings().theme
    # Setting a project value would write the file back without what was left out: refused.
    with pytest.raises(SettingsError, match="holds a value pi cannot keep"):
        manager.set("steeringMode", "one-at-a-time", scope="project")
    assert "9" * 100_000 in project.read_text()


def test_bad_values_warn_with_file_and_key_and_keep_the_rest(dirs) -> None:
    agent, cwd = dirs
    global_file = write(
        agent / "settings.json",
        {
            "theme": "dark",
            "steeringMode": "sometimes",
            "hideThinkingBlock": "yes",
            "quietStartup": "loud",
            "compaction": {"reserveTokens": -5, "keepRecentTokens": "lots", "enabled": False},
            "modelThinkingLevels": {"a/b": "high", "c/d": "extreme"},
            "enabledModels": ["ok", 3],
            "myExtensionKey": {"anything": True},
        },
    )
    project_file = write(cwd / ".pi" / "settings.json", {"defaultProjectTrust": "always", "retry": {"baseDelayMs": "2s"}})
    manager = SettingsManager.create(cwd, agent)
    found = {(w.path, w.key) for w in manager.warnings}
    assert found == {
        (str(global_file), "steeringMode"),
        (str(global_file), "hideThinkingBlock"),
        (str(global_file), "quietStartup"),
        (str(global_file), "compaction.reserveTokens"),
        (str(global_file), "compaction.keepRecentTokens"),
        (str(global_file), "modelThinkingLevels.c/d"),
        (str(global_file), "enabledModels"),
        (str(project_file), "retry.baseDelayMs"),
        (str(project_file), "defaultProjectTrust"),
    }
    by_key = {w.key: str(w) for w in manager.warnings}
    assert by_key["steeringMode"] == f'{global_file}: steeringMode: invalid value "sometimes" (input should be \'all\' or \'one-at-a-time\'); using the default'
    s = manager.settings
    assert (s.theme, s.steering_mode, s.hide_thinking_block, s.quiet_startup) == ("dark", "one-at-a-time", False, False)
    assert (s.compaction.enabled, s.compaction.reserve_tokens, s.compaction.keep_recent_tokens) == (False, 16384, 20000)
    assert s.model_thinking_levels == {"a/b": "high"}
    assert s.enabled_models is None and s.retry.base_delay_ms == 2000
    assert s.default_project_trust == "ask"  # global-only key ignored in the project file
    assert s.model_extra == {"myExtensionKey": {"anything": True}}


def test_malformed_json_warns_and_uses_defaults(dirs) -> None:
    agent, cwd = dirs
    bad = write(agent / "settings.json", '{"theme": "dark",,}')
    write(cwd / ".pi" / "settings.json", {"followUpMode": "all"})
    manager = SettingsManager.create(cwd, agent)
    [warning] = manager.warnings
    assert warning.path == str(bad) and warning.key is None
    assert "invalid JSON at line 1" in warning.message
    assert manager.settings.theme == "system"
    assert manager.settings.follow_up_mode == "all"
    write(agent / "settings.json", "[1, 2]")
    manager.reload()
    assert "expected a JSON object" in manager.warnings[0].message


def test_set_writes_atomically_and_keeps_unknown_and_untouched_keys(dirs) -> None:
    agent, cwd = dirs
    original = {"theme": "dark", "unknownFutureKey": [1, 2], "compaction": {"enabled": False, "extra": "x"}, "steeringMode": "bogus"}
    path = write(agent / "settings.json", original)
    manager = SettingsManager.create(cwd, agent)
    manager.set("compaction.reserveTokens", 9000)
    manager.set_default_model("anthropic", "claude-x")
    on_disk = json.loads(path.read_text())
    assert on_disk == {
        "theme": "dark",
        "unknownFutureKey": [1, 2],
        "compaction": {"enabled": False, "extra": "x", "reserveTokens": 9000},
        "steeringMode": "bogus",  # the user's (invalid) text is not silently rewritten
        "defaultProvider": "anthropic",
        "defaultModel": "claude-x",
    }
    assert sorted(p.name for p in agent.iterdir()) == ["settings.json"]  # no temp files left
    assert manager.settings.compaction.reserve_tokens == 9000
    assert SettingsManager.create(cwd, agent).settings.default_model == "claude-x"
    manager.unset("theme")
    assert "theme" not in json.loads(path.read_text()) and manager.settings.theme == "system"


def test_set_rejects_bad_values_without_touching_anything(dirs) -> None:
    agent, cwd = dirs
    path = write(agent / "settings.json", {"theme": "dark"})
    manager = SettingsManager.create(cwd, agent)
    with pytest.raises(SettingsError, match="invalid value for followUpMode"):
        manager.set("follow_up_mode", "sometimes")
    with pytest.raises(SettingsError, match="only be set in the agent-directory"):
        manager.set("defaultProjectTrust", "always", scope="project")
    with pytest.raises(SettingsError, match="invalid settings key"):
        manager.set("compaction..x", 1)
    assert json.loads(path.read_text()) == {"theme": "dark"}
    assert manager.settings.follow_up_mode == "one-at-a-time"


def test_set_never_overwrites_a_malformed_file(dirs) -> None:
    agent, cwd = dirs
    path = write(agent / "settings.json", '{"theme": "dark" oops')
    manager = SettingsManager.create(cwd, agent)
    with pytest.raises(SettingsError, match="not saved"):
        manager.set_theme("light")
    assert path.read_text() == '{"theme": "dark" oops'
    assert manager.settings.theme == "light"  # applies to this run


def test_project_scope_writes_the_project_file(dirs) -> None:
    agent, cwd = dirs
    manager = SettingsManager.create(cwd, agent)
    manager.set("steeringMode", "all", scope="project")
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {"steeringMode": "all"}
    assert not (agent / "settings.json").exists()
    assert manager.settings.steering_mode == "all" and manager.global_settings.steering_mode == "one-at-a-time"


def test_in_memory_overrides_and_legacy_keys(tmp_path: Path) -> None:
    manager = SettingsManager.in_memory({"queueMode": "all"}, default_model="m", compaction={"enabled": False}, retry={"maxRetries": 1})
    s = manager.settings
    assert (s.default_model, s.compaction.enabled, s.compaction.reserve_tokens, s.retry.max_retries) == ("m", False, 16384, 1)
    assert s.steering_mode == "all"
    manager.set("theme", "dark")
    assert manager.settings.theme == "dark" and manager.path() is None
    with pytest.raises(SettingsError, match="invalid settings override"):
        SettingsManager.in_memory(follow_up_mode="never")
    legacy = SettingsManager.in_memory({"retry": {"maxDelayMs": 5}, "websockets": True}).settings
    assert (legacy.retry.provider.max_retry_delay_ms, legacy.transport) == (5, "websocket")


def test_resource_paths_resolve_per_scope(dirs) -> None:
    agent, cwd = dirs
    write(agent / "settings.json", {"skills": ["my-skills", "/abs/skills", "!skip/*"]})
    write(cwd / ".pi" / "settings.json", {"skills": ["+proj-skills", "-gone"]})
    manager = SettingsManager.create(cwd, agent)
    assert manager.resource_paths("skills") == [agent / "my-skills", Path("/abs/skills"), cwd / ".pi" / "proj-skills"]
    manager.set_project_trusted(False)
    assert manager.resource_paths("skills") == [agent / "my-skills", Path("/abs/skills")]
