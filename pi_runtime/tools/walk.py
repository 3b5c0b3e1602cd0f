"""Walk a directory tree the way ripgrep does, for when ripgrep is not installed.

Hidden files are included, ``.git`` is skipped, and ``.gitignore``/``.ignore`` files are
honoured hierarchically (a nested file applies to its own folder; later rules and
negations win). Ignore files above the search root count up to the enclosing git
repository's root. Also home of the glob matcher shared by find and grep: a pattern without
``/`` matches a file name at any depth; with ``/`` it matches the path relative to the
search root (``**`` spans folders, a leading ``./`` is ignored).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

IGNORE_FILES = (".gitignore", ".ignore")

_Spec = tuple[str, "pathspec.GitIgnoreSpec"]


def load_specs(directory: str) -> list[_Spec]:
    specs: list[_Spec] = []
    for name in IGNORE_FILES:
        file = os.path.join(directory, name)
        try:
            with open(file, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue
        if lines:
            import pathspec  # only without ripgrep, and only where an ignore file exists (~6 ms)

            specs.append((directory, pathspec.GitIgnoreSpec.from_lines(lines)))
    return specs


def ancestor_specs(root: str) -> list[_Spec]:
    chain: list[str] = []
    current = os.path.dirname(root)
    probe = root
    git_root = None
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            git_root = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if git_root is None or git_root == root:
        return []
    while True:
        chain.append(current)
        if current == git_root:
            break
        current = os.path.dirname(current)
    specs: list[_Spec] = []
    for directory in reversed(chain):
        specs.extend(load_specs(directory))
    return specs


def is_ignored(specs: list[_Spec], abs_path: str, is_dir: bool) -> bool:
    """Apply the ignore rules in order; the last rule that matches decides.

    Args:
        specs: ``(base_dir, spec)`` pairs, outermost first.
        abs_path: The entry's absolute path.
        is_dir: Whether it is a folder (folder-only rules end in ``/``).

    Returns:
        True when the entry is ignored.
    """
    ignored = False
    for base, spec in specs:
        rel = os.path.relpath(abs_path, base).replace(os.sep, "/")
        if rel.startswith(".."):
            continue
        result = spec.check_file(rel + "/" if is_dir else rel)
        if result.include is not None:
            ignored = bool(result.include)
    return ignored


def iter_tree(root: str, respect_ignore: bool = True) -> Iterator[tuple[str, bool]]:
    """Yield ``(relative_path, is_dir)`` for everything under ``root`` that is not ignored.

    Args:
        root: Absolute folder to walk.
        respect_ignore: Honour ``.gitignore``/``.ignore`` files.

    Yields:
        Paths relative to ``root`` with ``/`` separators, folders before their contents.
    """
    from ..walk_guard import WalkGuard

    base_specs = ancestor_specs(root) if respect_ignore else []
    stack: list[tuple[str, list[_Spec]]] = [(root, base_specs)]
    # Links to folders are not followed; a bind mount can still loop back, and a tree can be
    # endless (a FUSE file system): each folder is entered once, and a million at most.
    guard = WalkGuard(limit=1_000_000)
    while stack:
        directory, inherited = stack.pop()
        if not guard.enter(directory):
            continue
        specs = inherited + (load_specs(directory) if respect_ignore else [])
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[str] = []
        for entry in entries:
            if entry.name == ".git":
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if specs and is_ignored(specs, entry.path, is_dir):
                continue
            rel = os.path.relpath(entry.path, root).replace(os.sep, "/")
            yield rel, is_dir
            if is_dir and not entry.is_symlink():
                subdirs.append(entry.path)
        for sub in reversed(subdirs):
            stack.append((sub, specs))


# --------------------------------------------------------------------------- globs


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    depth = 0
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                i += 2
                if i < n and glob[i] == "/":
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 2 if glob.startswith(("[!", "[^"), i) else i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=64)
def compile_glob(pattern: str) -> tuple[re.Pattern[str], bool]:
    """Compile a find/grep glob.

    Args:
        pattern: The glob as the model wrote it.

    Returns:
        ``(regex, match_full_path)``; when ``match_full_path`` is False, match file names.
    """
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    full = "/" in pattern.rstrip("/")
    pattern = pattern.rstrip("/") or "*"
    if pattern.startswith("/"):
        pattern = pattern[1:]
    return re.compile(_translate(pattern) + r"\Z", re.DOTALL), full


def glob_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` as a regex over a whole ``/``-separated path: ``*`` and ``?`` stay within a
    segment, ``**`` crosses them, ``[…]`` and ``{a,b}`` as in find and grep."""
    return re.compile(_translate(pattern) + r"\Z", re.DOTALL)


def glob_matches(pattern: str, rel_path: str) -> bool:
    """Whether ``rel_path`` (relative to the search root) matches ``pattern``."""
    regex, full = compile_glob(pattern)
    target = rel_path if full else rel_path.rsplit("/", 1)[-1]
    return regex.match(target) is not None
