"""Skills: parsing, validation warnings, discovery order, prompt listing and /skill: expansion."""

from __future__ import annotations

import pytest

from pi_runtime.resources.skills import (
    SkillError,
    expand_skill_command,
    format_skills_for_prompt,
    load_skill_file,
    load_skills_from,
    merge_skills,
    project_skill_dirs,
)


def skill_md(name: str | None, description: str | None, body: str = "Do the thing.", extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    return "\n".join([*lines, "---", body, ""])


def test_valid_skill_is_parsed(tree) -> None:
    path = tree.write(tree.agent / "skills" / "pdf-tools" / "SKILL.md", skill_md("pdf-tools", "Read PDFs."))
    skill, warnings = load_skill_file(path, "user")
    assert warnings == []
    assert (skill.name, skill.description, skill.source) == ("pdf-tools", "Read PDFs.", "user")
    assert skill.file_path == path and skill.base_dir == path.parent
    assert skill.disable_model_invocation is False


def test_name_defaults_to_folder_and_bad_names_warn_but_load(tree) -> None:
    path = tree.write(tree.agent / "skills" / "My_Skill" / "SKILL.md", skill_md(None, "Something."))
    skill, warnings = load_skill_file(path, "user")
    assert skill is not None and skill.name == "My_Skill"
    assert [w.message for w in warnings] == ["name may only contain lowercase letters a-z, digits 0-9 and hyphens"]
    path2 = tree.write(tree.agent / "skills" / "x" / "SKILL.md", skill_md("-a--b", "d"))
    _, warnings2 = load_skill_file(path2, "user")
    assert {w.message for w in warnings2} == {
        "name must not start or end with a hyphen",
        "name must not contain consecutive hyphens",
    }


def test_missing_description_is_reported_and_not_loaded(tree) -> None:
    path = tree.write(tree.agent / "skills" / "empty" / "SKILL.md", skill_md("empty", None))
    skill, warnings = load_skill_file(path, "user")
    assert skill is None
    assert [(w.path, w.message) for w in warnings] == [(path, "description is required; skill not loaded")]


def test_malformed_front_matter_is_reported(tree) -> None:
    path = tree.write(tree.agent / "skills" / "bad" / "SKILL.md", '---\nname: "bad\n---\nbody')
    skill, warnings = load_skill_file(path, "user")
    assert skill is None and "malformed front matter" in warnings[0].message


def test_folder_scan_rules(tree) -> None:
    base = tree.agent / "skills"
    tree.write(base / "a" / "SKILL.md", skill_md("a", "A."))
    tree.write(base / "a" / "inner" / "SKILL.md", skill_md("inner", "not reached: a is a skill root"))
    tree.write(base / "group" / "b" / "SKILL.md", skill_md("b", "B."))
    tree.write(base / "standalone.md", skill_md("standalone", "S."))
    tree.write(base / "notes.md", "# no front matter: not a skill, no warning\n")
    tree.write(base / "group" / "loose.md", skill_md("loose", "only top-level .md files count"))
    tree.write(base / ".hidden" / "SKILL.md", skill_md("hidden", "H."))
    tree.write(base / "node_modules" / "dep" / "SKILL.md", skill_md("dep", "D."))
    skills, warnings = load_skills_from(base, "user")
    assert sorted(s.name for s in skills) == ["a", "b", "standalone"]
    assert warnings == []


def test_project_dirs_stop_at_git_root_and_skip_user_dir(tree) -> None:
    (tree.cwd / ".agents" / "skills").mkdir(parents=True)
    (tree.repo / ".agents" / "skills").mkdir(parents=True)
    (tree.root / "work" / ".agents" / "skills").mkdir(parents=True)  # above the repo: not used
    assert project_skill_dirs(tree.cwd, tree.home) == [
        tree.cwd / ".agents" / "skills",
        tree.repo / ".agents" / "skills",
    ]
    (tree.home / ".agents" / "skills").mkdir(parents=True)
    assert project_skill_dirs(tree.home, tree.home) == []


def test_collision_keeps_first_and_warns(tree) -> None:
    first = tree.write(tree.agent / "skills" / "x" / "SKILL.md", skill_md("x", "first"))
    second = tree.write(tree.cwd / ".pi" / "skills" / "x" / "SKILL.md", skill_md("x", "second"))
    skills, warnings = merge_skills(
        [load_skills_from(tree.agent / "skills", "user"), load_skills_from(tree.cwd / ".pi" / "skills", "project")]
    )
    assert [s.description for s in skills] == ["first"]
    assert warnings[0].path == second and str(first) in warnings[0].message


def test_prompt_listing_escapes_and_skips_hidden_skills(tree) -> None:
    tree.write(tree.agent / "skills" / "a" / "SKILL.md", skill_md("a", "Use for <xml> & co."))
    tree.write(tree.agent / "skills" / "b" / "SKILL.md", skill_md("b", "Manual.", extra="disable-model-invocation: true"))
    skills, _ = load_skills_from(tree.agent / "skills", "user")
    text = format_skills_for_prompt(skills)
    assert "<description>Use for &lt;xml&gt; &amp; co.</description>" in text
    assert f"<location>{tree.agent / 'skills' / 'a' / 'SKILL.md'}</location>" in text
    assert "<name>b</name>" not in text
    assert "read tool" in text
    assert format_skills_for_prompt([s for s in skills if s.name == "b"]) == ""


def test_expand_skill_command_matches_pi_format(tree) -> None:
    path = tree.write(tree.agent / "skills" / "pdf" / "SKILL.md", skill_md("pdf", "PDFs.", body="\nStep one.\n"))
    skills, _ = load_skills_from(tree.agent / "skills", "user")
    expected_block = (
        f'<skill name="pdf" location="{path}">\n'
        f"References are relative to {path.parent}.\n\n"
        "Step one.\n</skill>"
    )
    assert expand_skill_command("/skill:pdf", skills) == expected_block
    assert expand_skill_command("/skill:pdf extract report.pdf", skills) == expected_block + "\n\nextract report.pdf"
    assert expand_skill_command("/skill:nope x", skills) == "/skill:nope x"
    assert expand_skill_command("hello /skill:pdf", skills) == "hello /skill:pdf"
    # The file is read at expansion time: edits after start-up are picked up.
    path.write_text(skill_md("pdf", "PDFs.", body="Step two."))
    assert "Step two." in expand_skill_command("/skill:pdf", skills)
    path.unlink()
    with pytest.raises(SkillError, match="cannot load skill 'pdf'"):
        expand_skill_command("/skill:pdf", skills)
