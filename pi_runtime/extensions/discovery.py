"""Finding extensions: which modules a run would load, in load order, as plain pairs.

The sources and their order are described in ``loader.py``, which turns what is found here into
records and imports the modules. Kept apart so that a run with no extension anywhere (most runs)
learns it without importing the loader: its record classes alone cost ~4 M instructions of every
``pi -p`` start-up (callgrind).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, Protocol

BUILTIN_PREFIX = "builtin:"
BUNDLED = {
    "permission-gate": "pi_runtime.extensions.bundled.permission_gate",
    "git-checkpoint": "pi_runtime.extensions.bundled.git_checkpoint",
    "plan-mode": "pi_runtime.extensions.bundled.plan_mode",
    "subagent": "pi_runtime.extensions.bundled.subagent",
    "mcp": "pi_runtime.mcp.extension",
    "codemode": "pi_runtime.codemode.extension",
    "tool-search": "pi_runtime.codemode.tool_search",
    "llama.cpp": "pi_runtime.llama.extension",
}
"""Bundled extension name -> module."""


def _entries(folder: Path) -> list[Path]:
    """Extension candidates directly inside ``folder``: ``*.py`` files and package folders."""
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return []
    found = []
    for child in children:
        if child.name.startswith((".", "_")):
            continue
        if (child.is_file() and child.suffix == ".py") or (child.is_dir() and (child / "__init__.py").is_file()):
            found.append(child)
    return found


def extensions_in(folder: Path) -> list[Path]:
    """The extensions pi finds in ``folder`` (``*.py`` files and package folders, not hidden ones)."""
    return _entries(folder)


def _found(base: Path, settings: SettingsFiles | None, scope: Literal["global", "project"]) -> list[Path]:
    """The extensions in ``base``'s ``extensions/`` folder that the settings file of ``scope`` does
    not turn off (``!pattern``, ``-path``; ``+path`` back on), as in Pi 1.6."""
    found = _entries(base / "extensions")
    if not found or settings is None:
        return found
    from ..resources.overrides import enabled, override_entries

    entries = override_entries(settings, "extensions", scope)
    return [child for child in found if enabled(child, entries, base)]


class SettingsFiles(Protocol):
    """What discovery reads of the settings (``SettingsManager`` has it): each file's keys and path."""

    def raw(self, scope: Literal["global", "project"] = "global") -> Mapping[str, object]: ...

    def path(self, scope: Literal["global", "project"] = "global") -> Path | None: ...


def _settings_entries(settings: SettingsFiles | None, project_trusted: bool) -> list[tuple[str, Path]]:
    """``extensions`` entries from each settings file, with the folder relative paths start from."""
    out: list[tuple[str, Path]] = []
    if settings is None:
        return out
    scopes: list[Literal["global", "project"]] = ["global", "project"] if project_trusted else ["global"]
    for scope in scopes:
        value = settings.raw(scope).get("extensions")
        file = settings.path(scope)
        base = file.parent if file is not None else Path.cwd()
        for entry in value if isinstance(value, list) else []:
            if isinstance(entry, str) and entry.strip() and entry.strip()[0] not in "!-":
                out.append((entry.strip().lstrip("+"), base))
    return out


def find_extensions(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    *,
    settings: SettingsFiles | None = None,
    project_trusted: bool = True,
    paths: Iterable[str] = (),
    no_extensions: bool = False,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """List the extensions to load, in load order.

    Args:
        cwd: Working directory (its ``.pi/extensions`` is read when trusted).
        agent_dir: Agent dir (its ``extensions/`` is read).
        settings: A ``SettingsManager`` whose ``extensions`` lists are read.
        project_trusted: Whether project-local extensions and settings may load.
        paths: Explicit paths or ``builtin:`` names (``-e``), loaded even with ``no_extensions``.
        no_extensions: Skip discovery and settings (``-ne``).

    Returns:
        ``(path, scope)`` of each source (a path is absolute, or ``builtin:<name>``; the scope is
        ``global``, ``project``, ``settings``, ``cli`` or ``builtin``), and ``(path, error)`` for
        each entry that does not exist.
    """
    sources: list[tuple[str, str]] = []
    failures: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str, scope: str) -> None:
        if path not in seen:
            seen.add(path)
            sources.append((path, scope))

    def add_path(raw: str, base: Path, scope: str) -> None:
        if raw.startswith(BUILTIN_PREFIX):
            name = raw[len(BUILTIN_PREFIX):]
            if name in BUNDLED:
                add(raw, "builtin")
            else:
                failures.append((raw, f"Unknown built-in extension '{name}'. Known: {', '.join(BUNDLED)}"))
            return
        path = Path(raw).expanduser()
        path = (path if path.is_absolute() else base / path).resolve()
        if path.is_file() or (path / "__init__.py").is_file():
            add(str(path), scope)
        elif path.is_dir():
            for child in _entries(path):
                add(str(child.resolve()), scope)
        else:
            failures.append((str(path), "Extension not found"))

    if not no_extensions:
        for child in _found(Path(agent_dir), settings, "global"):
            add(str(child.resolve()), "global")
        if project_trusted:
            for child in _found(Path(cwd) / ".pi", settings, "project"):
                add(str(child.resolve()), "project")
        for raw, base in _settings_entries(settings, project_trusted):
            add_path(raw, base, "settings")
    for raw in paths:
        add_path(str(raw), Path(cwd), "cli")
    return sources, failures
