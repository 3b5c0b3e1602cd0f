"""The override entries of the settings' resource lists, applied to what pi finds by itself.

``extensions``, ``skills``, ``prompts`` and ``themes`` in settings.json list paths to load, and may
also hold overrides (settings.md, "Resources"): ``!pattern`` turns off what the glob matches,
``+path`` turns one exact path back on, ``-path`` turns one off (last, over ``+``). As in Pi 1.6,
they apply to the resources found in the agent folder (``extensions/``, ``skills/``,
``prompts/``, ``themes/``), in ``~/.agents/skills``, in the project's ``.pi`` folder and its
``.agents/skills`` folders: the personal file's entries to the personal resources, the project's to
the project's. Paths are relative to the folder the resources' file is in (the agent folder,
``.pi``, the ``.agents`` folder), absolute, or for a skill also its folder. A glob's ``*`` stays
within a path segment and ``**`` crosses them; it may match the name alone.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, Literal

Kind = Literal["extensions", "skills", "prompts", "themes"]


def override_entries(settings: Any, kind: Kind, scope: Literal["global", "project"]) -> list[str]:
    """The ``!``/``+``/``-`` entries of one settings file's list for ``kind`` (empty without any)."""
    raw = getattr(settings, "raw", None)
    if raw is None:
        return []
    value = raw(scope).get(kind)
    if isinstance(value, dict):  # the legacy {"customDirectories": [...]} form of skills has none
        return []
    return [e.strip() for e in value or () if isinstance(e, str) and e.strip()[:1] in ("!", "+", "-")]


def enabled(path: Path, entries: list[str], base: Path) -> bool:
    """Whether the resource at ``path`` loads under ``entries`` (see the module docstring)."""
    if not entries:
        return True
    names = _names(path, base)
    on = not any(_glob(entry[1:]).match(name) for entry in entries if entry.startswith("!") for name in names.globbed)
    if any(_exact(entry[1:]) in names.exact for entry in entries if entry.startswith("+")):
        on = True
    if any(_exact(entry[1:]) in names.exact for entry in entries if entry.startswith("-")):
        on = False
    return on


class _Names:
    def __init__(self, globbed: list[str], exact: set[str]) -> None:
        self.globbed = globbed
        """What a glob is tried against: the path from ``base``, its name, the whole path."""
        self.exact = exact
        """What an exact ``+``/``-`` entry may say: the path from ``base`` or the whole path."""


def _names(path: Path, base: Path) -> _Names:
    paths = [path]
    if path.name == "SKILL.md":
        paths.append(path.parent)  # a skill is named by its folder too
    globbed: list[str] = []
    exact: set[str] = set()
    for each in paths:
        whole = each.as_posix()
        relative = PurePosixPath(os.path.relpath(each, base)).as_posix()
        globbed += [relative, each.name, whole]
        exact |= {relative, whole}
    return _Names(globbed, exact)


def _exact(entry: str) -> str:
    entry = entry.strip()
    entry = entry[2:] if entry.startswith(("./", ".\\")) else entry
    return PurePosixPath(os.path.normpath(os.path.expanduser(entry))).as_posix()


@lru_cache(maxsize=64)
def _glob(pattern: str) -> re.Pattern[str]:
    from ..tools.walk import glob_regex  # find's and grep's globs: only when an entry is a glob

    return glob_regex(PurePosixPath(os.path.normpath(pattern.strip())).as_posix())


def theme_filter(settings: Any, agent_dir: Path, cwd: Path) -> Any:
    """Whether a theme file the app found loads: one in the agent folder's ``themes/`` or the
    project's ``.pi/themes/`` under the ``themes`` overrides of that folder's settings file; any
    other (a package's, ``--theme``) always."""
    project = cwd / ".pi"
    scopes: list[tuple[Path, list[str]]] = [(agent_dir, override_entries(settings, "themes", "global"))]
    if getattr(settings, "project_trusted", False):
        scopes.append((project, override_entries(settings, "themes", "project")))

    def keep(path: Path) -> bool:
        for base, entries in scopes:
            if path.parent == base / "themes":
                return enabled(path, entries, base)
        return True

    return keep
