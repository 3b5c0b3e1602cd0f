"""Context files: agent dir first, then root down to cwd, one file per folder."""

from __future__ import annotations

from pi_runtime.resources.context_files import load_context_files


def _ours(files, tree):
    # The walk goes to the filesystem root; only look at files inside the test tree.
    return [f for f in files if tree.root in f.path.parents]


def test_outermost_first_with_agent_dir_at_the_front(tree) -> None:
    tree.write(tree.agent / "AGENTS.md", "global rules")
    tree.write(tree.root / "work" / "CLAUDE.md", "work rules")
    tree.write(tree.repo / "AGENTS.md", "repo rules")
    tree.write(tree.cwd / "AGENTS.md", "app rules")
    files, warnings = load_context_files(tree.cwd, tree.agent)
    ours = _ours(files, tree)
    assert [f.content for f in ours] == ["global rules", "work rules", "repo rules", "app rules"]
    assert ours[0] == files[0]
    assert ours[-1].path == tree.cwd / "AGENTS.md"
    assert warnings == []


def test_first_candidate_wins_per_folder_and_override_is_local(tree) -> None:
    tree.write(tree.repo / "AGENTS.override.md", "override")
    tree.write(tree.repo / "AGENTS.md", "shadowed")
    tree.write(tree.repo / "CLAUDE.md", "shadowed too")
    tree.write(tree.cwd / "CLAUDE.md", "claude in app")
    tree.write(tree.agent / "AGENTS.md", "global")
    files, _ = load_context_files(tree.cwd, tree.agent)
    assert [f.content for f in _ours(files, tree)] == ["global", "override", "claude in app"]


def test_agent_dir_can_be_skipped_and_empty_files_are_ignored(tree) -> None:
    tree.write(tree.agent / "AGENTS.md", "global")
    tree.write(tree.cwd / "AGENTS.md", "  \n")
    files, _ = load_context_files(tree.cwd, None)
    assert _ours(files, tree) == []


def test_same_file_reached_twice_loads_once(tree) -> None:
    tree.write(tree.repo / "AGENTS.md", "repo")
    (tree.cwd / "AGENTS.md").symlink_to(tree.repo / "AGENTS.md")
    files, _ = load_context_files(tree.cwd, tree.agent)
    assert [f.content for f in _ours(files, tree)] == ["repo"]


def test_unreadable_file_is_a_warning(tree) -> None:
    tree.write(tree.cwd / "AGENTS.md", "ok")
    (tree.repo / "AGENTS.md").write_bytes(b"\xff\xfe bad utf8 \xff")
    files, warnings = load_context_files(tree.cwd, tree.agent)
    assert [f.content for f in _ours(files, tree)] == ["ok"]
    assert len(warnings) == 1 and warnings[0].path == tree.repo / "AGENTS.md"


def test_only_folders_holding_a_candidate_are_listed(tree, monkeypatch) -> None:
    import os

    tree.write(tree.repo / "AGENTS.md", "repo rules")
    listed: list[str] = []
    real_listdir = os.listdir

    def listdir(path):  # every folder from / down is searched: /tmp or a full home must not be read
        listed.append(os.fspath(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    files, _ = load_context_files(tree.cwd, None)
    assert [f.content for f in _ours(files, tree)] == ["repo rules"]
    inside = [p for p in listed if p.startswith(os.fspath(tree.root.resolve()))]
    assert inside == [os.fspath(tree.repo.resolve())]
    assert not any(p in ("/", "/tmp") for p in listed)
