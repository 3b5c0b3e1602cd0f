"""ResourceLoader over a whole temp tree: what loads, trust gating, options, overrides, reload."""

from __future__ import annotations

import datetime as dt

from pi_runtime.resources.loader import ResourceLoader
from pi_runtime.settings import SettingsManager


def skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"


def populate(tree) -> None:
    tree.write(tree.agent / "AGENTS.md", "global context")
    tree.write(tree.repo / "AGENTS.md", "repo context")
    tree.write(tree.agent / "skills" / "user-skill" / "SKILL.md", skill("user-skill", "From the agent dir."))
    tree.write(tree.home / ".agents" / "skills" / "home-skill" / "SKILL.md", skill("home-skill", "From ~/.agents."))
    tree.write(tree.cwd / ".pi" / "skills" / "proj-skill" / "SKILL.md", skill("proj-skill", "From .pi."))
    tree.write(tree.repo / ".agents" / "skills" / "repo-skill" / "SKILL.md", skill("repo-skill", "From the repo."))
    tree.write(tree.repo / ".agents" / "skills" / "broken" / "SKILL.md", "---\nname: broken\n---\n")
    tree.write(tree.agent / "prompts" / "hello.md", "Hello $1!")
    tree.write(tree.cwd / ".pi" / "prompts" / "proj.md", "Project prompt ${1:-none}")
    tree.write(tree.agent / "SYSTEM.md", "Global system prompt.")
    tree.write(tree.cwd / ".pi" / "SYSTEM.md", "Project system prompt.")
    tree.write(tree.agent / "APPEND_SYSTEM.md", "Global addendum.")


def test_trusted_project_loads_everything(tree) -> None:
    populate(tree)
    res = ResourceLoader(tree.cwd, tree.agent, home=tree.home).reload()
    assert res.project_trusted is True
    ours = [f.content for f in res.context_files if tree.root in f.path.parents]
    assert ours == ["global context", "repo context"]
    assert [s.name for s in res.skills] == ["user-skill", "home-skill", "proj-skill", "repo-skill"]
    assert [s.source for s in res.skills] == ["user", "user", "project", "project"]
    assert sorted(t.name for t in res.prompt_templates) == ["hello", "proj"]
    assert (res.system_prompt.text, res.system_prompt.origin) == ("Project system prompt.", "project")
    assert (res.append_system_prompt.text, res.append_system_prompt.origin) == ("Global addendum.", "global")
    assert [(w.kind, w.path.name) for w in res.warnings] == [("skill", "SKILL.md")]
    assert "description is required" in res.warnings[0].message

    text = res.system_prompt_sections(["read", "bash"], today=dt.date(2025, 1, 2)).render()
    assert text.startswith("Project system prompt.")
    assert "<tools>" not in text
    assert "<addendum>\nGlobal addendum.\n</addendum>" in text
    assert "repo context" in text and "<name>repo-skill</name>" in text


def test_untrusted_project_keeps_context_files_but_drops_project_resources(tree) -> None:
    populate(tree)
    res = ResourceLoader(tree.cwd, tree.agent, project_trusted=False, home=tree.home).reload()
    assert [s.name for s in res.skills] == ["user-skill", "home-skill"]
    assert [t.name for t in res.prompt_templates] == ["hello"]
    assert res.system_prompt.text == "Global system prompt."
    assert "repo context" in [f.content for f in res.context_files]


def test_disable_switches_and_explicit_paths(tree) -> None:
    populate(tree)
    extra = tree.write(tree.root / "extra" / "x-skill" / "SKILL.md", skill("x-skill", "Explicit."))
    loader = ResourceLoader(
        tree.cwd,
        tree.agent,
        home=tree.home,
        no_context_files=True,
        no_skills=True,
        no_prompt_templates=True,
        skill_paths=[extra.parent, tree.root / "missing"],
        system_prompt="CLI prompt",
        append_system_prompt="CLI addendum",
    )
    res = loader.reload()
    assert res.context_files == []
    assert [s.name for s in res.skills] == ["x-skill"]
    assert res.prompt_templates == []
    assert (res.system_prompt.text, res.system_prompt.origin) == ("CLI prompt", "cli")
    assert res.append_system_prompt.text == "CLI addendum"
    assert [w.message for w in res.warnings] == ["skill path does not exist"]


def test_settings_paths_input_expansion_and_reload(tree) -> None:
    tree.write(tree.root / "shared-prompts" / "shared.md", "Shared: $@")
    tree.write(tree.agent / "settings.json", '{"prompts": ["../shared-prompts"]}')
    tree.write(tree.agent / "skills" / "s" / "SKILL.md", skill("s", "S."))
    settings = SettingsManager.create(tree.cwd, tree.agent)
    loader = ResourceLoader(tree.cwd, tree.agent, settings=settings, home=tree.home)
    res = loader.resources
    assert [t.name for t in res.prompt_templates] == ["shared"]
    assert res.expand_input("/shared a b") == "Shared: a b"
    assert res.expand_input("/skill:s go").endswith("</skill>\n\ngo")
    assert res.expand_input("plain text") == "plain text"

    tree.write(tree.agent / "prompts" / "new.md", "New one")
    assert "new" not in [t.name for t in loader.resources.prompt_templates]
    assert "new" in [t.name for t in loader.reload().prompt_templates]


def test_settings_overrides_turn_off_what_pi_finds_by_itself(tree) -> None:
    # Pi 1.6 applies the lists' !pattern, +path and -path entries to the resources it finds in the
    # agent folder, ~/.agents, .pi and the project's .agents folders; pi loaded them all.
    import json

    populate(tree)
    tree.write(tree.agent / "skills" / "other" / "SKILL.md", skill("other", "Another one."))
    tree.write(tree.agent / "prompts" / "bye.md", "Bye!")
    tree.write(tree.agent / "settings.json", json.dumps({
        "skills": ["-skills/user-skill/SKILL.md", "!home-skill"],
        "prompts": ["!prompts/*.md", "+prompts/bye.md"],
    }))
    tree.write(tree.cwd / ".pi" / "settings.json", json.dumps({"skills": ["-skills/proj-skill", "!repo-*"]}))
    settings = SettingsManager.create(tree.cwd, tree.agent)
    res = ResourceLoader(tree.cwd, tree.agent, home=tree.home, settings=settings).reload()
    assert [s.name for s in res.skills] == ["other"]
    assert sorted(t.name for t in res.prompt_templates) == ["bye", "proj"]
    # A personal entry does not reach the project's resources, nor a project entry the personal ones.
    tree.write(tree.agent / "settings.json", json.dumps({"prompts": ["!proj.md"]}))
    tree.write(tree.cwd / ".pi" / "settings.json", json.dumps({"prompts": ["!hello.md"]}))
    settings = SettingsManager.create(tree.cwd, tree.agent)
    res = ResourceLoader(tree.cwd, tree.agent, home=tree.home, settings=settings).reload()
    assert sorted(t.name for t in res.prompt_templates) == ["bye", "hello", "proj"]
