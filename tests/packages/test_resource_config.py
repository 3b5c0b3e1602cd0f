"""What ``pi config`` writes (``resource_config``) and that sessions load accordingly
(``resolve.resolve_packages``, ``load_configured.builtin_disabled``): keys kept, a corrupt file
refused, project overrides as ``autoload: false`` entries layered over the personal package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.extensions.load_configured import builtin_disabled
from pi_runtime.packages.resolve import resolve_packages
from pi_runtime.packages.resource_config import ConfigError, ResourceConfig, next_state
from pi_runtime.settings import SettingsManager
from pi_tui.screenshots.config_scene import make_folders


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    return make_folders(tmp_path)


def _item(config: ResourceConfig, scope, name):
    return next(i for i in config.items(scope) if i.name == name)


def _loaded(agent: Path, project: Path, kind: str) -> list[str]:
    settings = SettingsManager.create(str(project), str(agent), project_trusted=True)
    found = resolve_packages(settings, project, project_trusted=True, install_missing=False, fresh=True)
    return sorted(p.name for p in found.paths(kind))


def test_unknown_keys_and_other_entries_survive_a_toggle(folders):
    agent, project = folders
    path = agent / "settings.json"
    data = json.loads(path.read_text())
    data["custom"] = {"kept": [1, 2]}
    data["packages"].append({"source": "pypi:other", "skills": []})
    data["extensions"] = ["./mine.py", "-builtin:mcp"]
    path.write_text(json.dumps(data))
    config = ResourceConfig(agent, project, project_available=True)
    config.toggle(_item(config, "global", "mcp"), "global")
    config.toggle(_item(config, "global", "lint.py"), "global")  # was off: the -path entry becomes +path
    after = json.loads(path.read_text())
    assert after["custom"] == {"kept": [1, 2]} and after["theme"] == "dark"
    assert after["extensions"] == ["./mine.py", "+builtin:mcp"]
    assert after["packages"] == [{"source": "../tools", "extensions": ["+extensions/lint.py"]},
                                 {"source": "pypi:other", "skills": []}]


def test_an_object_entry_without_filters_goes_back_to_a_string(folders):
    agent, project = folders
    config = ResourceConfig(agent, project, project_available=True)
    config.toggle(_item(config, "global", "lint.py"), "global")
    config.toggle(_item(config, "global", "lint.py"), "global")
    assert json.loads((agent / "settings.json").read_text())["packages"] == [
        {"source": "../tools", "extensions": ["-extensions/lint.py"]}]
    path = agent / "settings.json"
    data = json.loads(path.read_text())
    data["packages"] = [{"source": "../tools", "skills": ["-skills/review/SKILL.md"]}]
    path.write_text(json.dumps(data))
    config.toggle(_item(config, "global", "review"), "global")
    config.toggle(_item(config, "global", "review"), "global")
    assert json.loads(path.read_text())["packages"] == [{"source": "../tools", "skills": ["-skills/review/SKILL.md"]}]


@pytest.mark.parametrize("text", ['{"theme": "dark",', "[1, 2]", '{"extensions": "builtin:mcp"}'])
def test_a_file_pi_cannot_edit_is_refused_and_left_as_it_is(folders, text):
    agent, project = folders
    config = ResourceConfig(agent, project, project_available=True)
    item = _item(config, "global", "mcp")
    (agent / "settings.json").write_text(text)
    with pytest.raises(ConfigError, match="not changed"):
        config.toggle(item, "global")
    assert (agent / "settings.json").read_text() == text


def test_a_corrupt_file_is_a_warning_when_listing(folders):
    agent, project = folders
    (agent / "settings.json").write_text("{nope")
    config = ResourceConfig(agent, project, project_available=True)
    assert [i.name for i in config.items("global")] == ["codemode", "llama.cpp", "mcp", "tool-search"]
    assert any("settings.json" in w for w in config.warnings)


def test_global_toggles_change_what_a_session_loads(folders):
    agent, project = folders
    assert _loaded(agent, project, "extensions") == ["format.py"]
    assert _loaded(agent, project, "skills") == ["review"]
    config = ResourceConfig(agent, project, project_available=True)
    config.toggle(_item(config, "global", "review"), "global")  # written as Pi writes it: .../SKILL.md
    config.toggle(_item(config, "global", "lint.py"), "global")
    assert _loaded(agent, project, "skills") == []
    assert _loaded(agent, project, "extensions") == ["format.py", "lint.py"]


def test_project_overrides_layer_over_the_personal_package_and_go_away_at_inherit(folders):
    agent, project = folders
    config = ResourceConfig(agent, project, project_available=True)
    config.toggle(_item(config, "project", "format.py"), "project")  # inherited on: unload
    config.toggle(_item(config, "project", "lint.py"), "project")  # inherited off: load
    assert json.loads((project / ".pi" / "settings.json").read_text())["packages"] == [
        {"source": "../../tools", "autoload": False, "extensions": ["-extensions/format.py", "+extensions/lint.py"]}]
    assert _loaded(agent, project, "extensions") == ["lint.py"]
    # The personal entry's other kinds are still the personal entry's: all of them load.
    assert _loaded(agent, project, "prompts") == ["fix.md"]
    assert [(i.name, i.state, i.enabled) for i in config.items("project") if i.kind == "extensions"][:2] == [
        ("format.py", "unload", False), ("lint.py", "load", True)]
    # Global scope does not see the project's overrides.
    assert _item(config, "global", "format.py").enabled
    # format.py (on globally): unload -> load -> inherit; lint.py (off globally): load -> unload -> inherit.
    for name in ("format.py", "format.py", "lint.py", "lint.py"):
        config.toggle(_item(config, "project", name), "project")
    assert json.loads((project / ".pi" / "settings.json").read_text())["packages"] == []
    assert _loaded(agent, project, "extensions") == ["format.py"]


def test_project_builtin_overrides_decide_over_the_personal_setting(folders):
    agent, project = folders
    config = ResourceConfig(agent, project, project_available=True)
    settings = SettingsManager.create(str(project), str(agent), project_trusted=True)
    assert builtin_disabled(settings, True, "mcp")  # the personal settings say -builtin:mcp
    config.toggle(_item(config, "project", "mcp"), "project")
    settings = SettingsManager.create(str(project), str(agent), project_trusted=True)
    assert not builtin_disabled(settings, True, "mcp")
    assert builtin_disabled(settings, False, "mcp")  # untrusted, the project file is not read


def test_project_scope_needs_a_trusted_project(folders):
    agent, project = folders
    config = ResourceConfig(agent, project, project_available=False)
    assert config.toggle(_item(config, "global", "mcp"), "project") is False
    assert not (project / ".pi").exists()


@pytest.mark.parametrize(("state", "inherited", "after"), [
    ("inherit", True, "unload"), ("unload", True, "load"), ("load", True, "inherit"),
    ("inherit", False, "load"), ("load", False, "unload"), ("unload", False, "inherit")])
def test_project_states_cycle_as_in_pi(state, inherited, after):
    assert next_state(state, inherited) == after


def test_resources_pi_finds_by_itself_are_listed_and_toggled_in_their_folders_settings(tmp_path):
    # Pi lists the agent folder's own resources under "User (…)" and the project's under
    # "Project (.pi/)", and writes -path/+path into that folder's settings list.
    from pi_runtime.resources.loader import ResourceLoader

    agent, project = tmp_path / "agent", tmp_path / "project"
    (agent / "skills" / "demo").mkdir(parents=True)
    (agent / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\ndescription: A demo.\n---\nDo it.\n")
    (agent / "prompts").mkdir()
    (agent / "prompts" / "greet.md").write_text("say hi\n")
    (agent / "extensions").mkdir()
    (agent / "extensions" / "tool.py").write_text("def extension(pi):\n    pass\n")
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "local.md").write_text("local\n")
    config = ResourceConfig(agent, project, project_available=True)
    mine = [(i.group, i.kind, i.name, i.pattern, i.enabled) for i in config.items("global") if i.identity == "top-level"]
    assert [row[1:] for row in mine] == [("extensions", "tool.py", "extensions/tool.py", True),
                                        ("skills", "demo", "skills/demo/SKILL.md", True),
                                        ("prompts", "greet.md", "prompts/greet.md", True)]
    assert mine[0][0] == f"User ({agent.as_posix()}/)"
    config.toggle(_item(config, "global", "demo"), "global")
    assert json.loads((agent / "settings.json").read_text())["skills"] == ["-skills/demo/SKILL.md"]
    assert not _item(config, "global", "demo").enabled
    settings = SettingsManager.create(project, agent)
    loaded = ResourceLoader(project, agent, settings=settings, home=tmp_path / "home").reload()
    assert [s.name for s in loaded.skills] == [] and sorted(t.name for t in loaded.prompt_templates) == ["greet", "local"]
    local = next(i for i in config.items("project") if i.name == "local.md")
    assert (local.group, local.personal) == ("Project (.pi/)", False)
    config.toggle(local, "project")
    assert json.loads((project / ".pi" / "settings.json").read_text())["prompts"] == ["-prompts/local.md"]


def test_skills_in_home_agents_are_listed_and_turned_off_from_there(tmp_path, monkeypatch):
    # Pi lists ~/.agents/skills under "User (~/.agents/)"; their entries in the personal list are
    # named from ~/.agents, and sessions read them so.
    from pi_runtime.resources.loader import ResourceLoader

    home, agent, project = tmp_path / "home", tmp_path / "agent", tmp_path / "project"
    monkeypatch.setenv("HOME", str(home))
    skill = home / ".agents" / "skills" / "shared" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: shared\ndescription: Shared skill.\n---\nDo it.\n")
    agent.mkdir()
    project.mkdir()
    config = ResourceConfig(agent, project, project_available=False)
    item = _item(config, "global", "shared")
    assert (item.group, item.pattern, item.enabled) == ("User (~/.agents/)", "skills/shared/SKILL.md", True)
    config.toggle(item, "global")
    assert json.loads((agent / "settings.json").read_text())["skills"] == ["-skills/shared/SKILL.md"]
    assert not _item(config, "global", "shared").enabled
    settings = SettingsManager.create(project, agent, project_trusted=False)
    loaded = ResourceLoader(project, agent, settings=settings, home=home, project_trusted=False).reload()
    assert [s.name for s in loaded.skills] == []
