"""Completion sources: slash commands and ``@`` files (fuzzy, respecting .gitignore).

The file list comes from ``git ls-files`` when the folder is a git work tree (tracked and
untracked-but-not-ignored files), otherwise from a walk that applies ``.gitignore`` with
pathspec. It is built once in a worker thread and cached.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .completion_menu import Completion

MAX_FILES = 50_000
"""Stop indexing past this many files (huge trees)."""
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


def list_files(cwd: str) -> list[str]:
    """Relative paths of the files under ``cwd`` that are not ignored."""
    try:
        proc = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=cwd, capture_output=True, text=True, timeout=10,
        )
        if proc.returncode == 0:
            return sorted(set(proc.stdout.splitlines()))[:MAX_FILES]
    except (OSError, subprocess.SubprocessError):
        pass
    return _walk(cwd)


def _walk(cwd: str) -> list[str]:
    import pathspec

    root = Path(cwd)
    patterns: list[str] = []
    ignore = root / ".gitignore"
    if ignore.is_file():
        patterns = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
    spec = pathspec.PathSpec.from_lines("gitignore", patterns)
    from pi_runtime.frontend.app_support import WalkGuard

    out: list[str] = []
    guard = WalkGuard()  # a bind mount looping back, or an endless tree, cannot hang the menu
    guard.enter(cwd)
    for folder, dirs, files in os.walk(cwd):
        rel_dir = os.path.relpath(folder, cwd)
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not spec.match_file(os.path.join(rel_dir, d) + "/")
                   and guard.enter(os.path.join(folder, d))]
        for name in files:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if not spec.match_file(rel):
                out.append(rel)
                if len(out) >= MAX_FILES:
                    return sorted(out)
    return sorted(out)


def fuzzy_score(query: str, candidate: str) -> int | None:
    """Higher is better; None when ``query`` is not a subsequence of ``candidate``."""
    if not query:
        return 0
    q, c = query.lower(), candidate.lower()
    base = os.path.basename(c)
    if q in base:
        return 1000 - len(c) + (500 if base.startswith(q) else 0)
    if q in c:
        return 600 - len(c)
    pos = -1
    score = 0
    for ch in q:
        nxt = c.find(ch, pos + 1)
        if nxt < 0:
            return None
        score += 10 if nxt == pos + 1 else 0
        pos = nxt
    return score - len(c)


def file_completions(query: str, files: list[str], limit: int = 8) -> list[Completion]:
    scored = []
    for path in files:
        score = fuzzy_score(query, path)
        if score is not None:
            scored.append((score, path))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [Completion("@" + p, p) for _, p in scored[:limit]]


def slash_completions(query: str, commands: list[tuple[str, str]], limit: int = 8) -> list[Completion]:
    """``commands`` are (name without slash, description); prefix matches first, then fuzzy."""
    q = query.lower()
    prefix = [(n, d) for n, d in commands if n.lower().startswith(q)]
    rest = [(n, d) for n, d in commands if (n, d) not in prefix and fuzzy_score(q, n) is not None]
    return [Completion("/" + n, "/" + n, d) for n, d in (prefix + rest)[:limit]]
