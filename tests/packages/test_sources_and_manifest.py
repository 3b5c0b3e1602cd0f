"""Package sources and manifests (pi_runtime.packages): parsing, identity, resources, filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_runtime.packages.manifest import apply_filter, offered
from pi_runtime.packages.sources import SourceError, install_dir, parse_source


@pytest.mark.parametrize(("raw", "url", "ref", "folder"), [
    ("git:github.com/me/tools", "https://github.com/me/tools", None, "git/github.com/me/tools"),
    ("git:github.com/me/tools@v1", "https://github.com/me/tools", "v1", "git/github.com/me/tools"),
    ("https://github.com/me/tools.git@abc", "https://github.com/me/tools.git", "abc", "git/github.com/me/tools"),
    ("ssh://git@example.com/me/tools", "ssh://git@example.com/me/tools", None, "git/example.com/me/tools"),
    ("git@github.com:me/tools@main", "git@github.com:me/tools", "main", "git/github.com/me/tools"),
    ("git:file:///srv/repos/tools@v2", "file:///srv/repos/tools", "v2", "git/file/srv/repos/tools"),
])
def test_git_sources(raw, url, ref, folder, tmp_path):
    source = parse_source(raw, tmp_path)
    assert (source.kind, source.url, source.ref, source.identity) == ("git", url, ref, url)
    assert install_dir(source, tmp_path) == tmp_path / folder
    assert source.pinned is (ref is not None)


def test_pypi_and_local_sources(tmp_path):
    loose = parse_source("pypi:Pi_Tools>=1", tmp_path)
    pinned = parse_source("pypi:pi-tools==1.2.0", tmp_path)
    assert loose.identity == pinned.identity == "pypi:pi-tools"
    assert (loose.pinned, pinned.pinned) == (False, True)
    assert install_dir(pinned, tmp_path) == tmp_path / "pypi" / "pi-tools"
    local = parse_source("../pkg", tmp_path / "a")
    assert local.kind == "local" and local.identity == str((tmp_path / "pkg").resolve())
    assert parse_source(f"file://{tmp_path}/pkg", tmp_path).identity == local.identity
    with pytest.raises(SourceError):
        parse_source("git:github.com/../etc", tmp_path)
    with pytest.raises(SourceError):
        parse_source("pypi:", tmp_path)


def make(root: Path, files: list[str]) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ndescription: x\n---\nx\n" if name.endswith(".md") else "")
    return root


def test_conventional_folders_without_a_manifest(tmp_path):
    root = make(tmp_path / "pkg", ["extensions/a.py", "extensions/_private.py", "extensions/pkg/__init__.py",
                                   "extensions/notes.txt", "skills/one/SKILL.md", "skills/group/two/SKILL.md",
                                   "prompts/p.md", "themes/t.json", "themes/readme.md"])
    found = offered(root)
    assert [p.name for p in found.extensions] == ["a.py", "pkg"]
    assert sorted(p.name for p in found.skills) == ["one", "two"]
    assert [p.name for p in found.prompts] == ["p.md"]
    assert [p.name for p in found.themes] == ["t.json"]


def test_a_manifest_replaces_the_conventional_folders_and_filters_narrow(tmp_path):
    root = make(tmp_path / "pkg", ["src/ext.py", "prompts/ignored.md", "res/prompts/a.md", "res/prompts/b.md"])
    (root / "pyproject.toml").write_text('[tool.pi]\nextensions = ["src/ext.py"]\nprompts = ["res/prompts/*.md", "!res/prompts/b.md"]\n'
                                         'skills = ["missing"]\n')
    found = offered(root)
    assert found.extensions == [root / "src" / "ext.py"]
    assert found.prompts == [root / "res" / "prompts" / "a.md"]
    assert found.skills == [] and "skills path does not exist" in found.problems[0]
    both = [root / "res" / "prompts" / "a.md", root / "res" / "prompts" / "b.md"]
    assert apply_filter(both, root, None) == both
    assert apply_filter(both, root, []) == []
    assert apply_filter(both, root, ["!res/prompts/a.md"]) == both[1:]
    assert apply_filter(both, root, ["res/prompts/a.md"]) == both[:1]
    assert apply_filter(both, root, ["res/prompts/a.md", "+res/prompts/b.md"]) == both
    assert apply_filter(both, root, ["-res/prompts/a.md"]) == both[1:]


def test_a_broken_manifest_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.pi\n")
    assert "pyproject.toml" in offered(tmp_path).problems[0]


def manifest(root: Path, text: str) -> Path:
    (root / "pyproject.toml").write_text("[tool.pi]\n" + text)
    return root


def test_manifest_paths_that_leave_the_package_are_refused_and_the_rest_loads(tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("def extension(pi): pass\n")
    root = manifest(make(tmp_path / "pkg", ["ext.py"]), f'extensions = ["ext.py", "../outside.py", "{outside}"]\n')
    found = offered(root)
    assert found.extensions == [root / "ext.py"]
    assert found.problems == [
        "tool.pi.extensions: ../outside.py: outside the package (paths are relative to its root, without ..); refused",
        f"tool.pi.extensions: {outside}: outside the package (paths are relative to its root, without ..); refused",
    ]


def test_links_that_leave_the_package_are_refused_in_declared_and_conventional_folders(tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "skill").mkdir(parents=True)
    (outside / "skill" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    (outside / "secret.py").write_text("def extension(pi): pass\n")
    root = make(tmp_path / "pkg", ["extensions/ok.py", "skills/mine/SKILL.md"])
    (root / "extensions" / "link.py").symlink_to(outside / "secret.py")
    (root / "skills" / "theirs").symlink_to(outside / "skill")
    (root / "inside.py").symlink_to(root / "extensions" / "ok.py")  # a link that stays inside is fine
    found = offered(root)
    assert found.extensions == [root / "extensions" / "ok.py"]
    assert found.skills == [root / "skills" / "mine"]
    assert found.problems == [
        f"extensions: extensions/link.py leads outside the package (to {outside / 'secret.py'}); refused",
        f"skills: skills/theirs leads outside the package (to {outside / 'skill'}); refused",
    ]
    manifest(root, 'extensions = ["inside.py", "extensions/link.py"]\n')
    again = offered(root)
    assert again.extensions == [root / "inside.py"]
    assert again.problems == [f"extensions: extensions/link.py leads outside the package (to {outside / 'secret.py'}); "
                              "refused"]


def test_an_entry_of_5000_characters_is_reported_and_skipped(tmp_path):
    long = "a" * 5000 + ".py"
    root = manifest(make(tmp_path / "pkg", ["ext.py"]), f'extensions = ["ext.py", "{long}"]\nskills = ["{long}"]\n')
    found = offered(root)
    assert found.extensions == [root / "ext.py"]
    assert found.problems == [
        f"tool.pi.extensions: {'a' * 40}… (5,003 characters): File name too long; skipped",
        f"tool.pi.skills: {'a' * 40}… (5,003 characters): File name too long; skipped",
    ]


def test_wrong_typed_manifest_fields_are_shown_not_ignored(tmp_path):
    root = manifest(make(tmp_path / "pkg", ["ext.py", "extensions/conventional.py", "prompts/p.md"]),
                    'extensions = "ext.py"\nprompts = ["prompts/p.md", 3, true]\nextension = ["typo.py"]\n')
    found = offered(root)
    file = root / "pyproject.toml"
    # The wrong field loads nothing (the conventional folder does not stand in for it).
    assert found.extensions == [] and found.prompts == [root / "prompts" / "p.md"]
    assert found.problems == [
        f"{file}: tool.pi.extensions must be a list of paths, not a string; nothing of it loads",
        f"{file}: tool.pi.prompts: 2 entries are not a path (a boolean, an integer); skipped",
        f"{file}: tool.pi: unknown key extension (known: extensions, skills, prompts, themes); ignored",
    ]
    (root / "pyproject.toml").write_text('tool = 3\n')
    assert offered(root).problems == [f"{file}: [tool] must be a table"]
    (root / "pyproject.toml").write_text("[tool]\npi = 3\n")
    assert offered(root).problems == [f"{file}: [tool.pi] must be a table, not an integer"]


def test_a_hostile_pyproject_is_one_problem(tmp_path):
    root = make(tmp_path / "pkg", ["extensions/ext.py"])
    for text in ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "x = " + "9" * 5000 + "\n"):
        (root / "pyproject.toml").write_text(text)
        found = offered(root)
        assert len(found.problems) == 1 and len(found.problems[0]) < 300


def test_a_settings_filter_of_the_wrong_type_is_reported(tmp_path):
    import json

    from pi_runtime.packages.settings_file import read_declared

    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"packages": [{"source": "./pkg", "extensions": "ext.py", "skills": ["ok"]}]}))
    found, problems = read_declared(settings, "user")
    assert len(found) == 1 and found[0].filters == {"skills": ["ok"]}
    assert problems == [f"{settings}: packages entry ./pkg: extensions must be a list of patterns; it does not filter"]
