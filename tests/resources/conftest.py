"""A temporary directory tree shaped like a real install: agent dir, home, git repo, nested cwd."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Tree:
    root: Path
    agent: Path
    home: Path
    repo: Path
    cwd: Path

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    """``agent/`` (agent dir), ``home/``, ``work/repo`` (has .git) and cwd ``work/repo/pkg/app``."""
    root = tmp_path.resolve()
    agent = root / "agent"
    home = root / "home"
    repo = root / "work" / "repo"
    cwd = repo / "pkg" / "app"
    for folder in (agent, home, repo / ".git", cwd):
        folder.mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("HOME", str(home))
    return Tree(root=root, agent=agent, home=home, repo=repo, cwd=cwd)
