"""The ``packages`` lists of ``settings.json`` (global) and ``.pi/settings.json`` (project).

An entry is a source string, or an object ``{"source": ..., "extensions": [...], ...}`` that narrows
what loads (packages.md, "Select package resources"). A local source is written relative to the
folder of the settings file that holds it, as Pi does, and resolved from there when read. Edits
change only the ``packages`` key; a file that is not valid JSON is reported and left alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ..paths import PROJECT_DIR_NAME
from ..records import record
from ..settings import SETTINGS_FILE, atomic_write_json, read_json_object, read_json_object_to_rewrite
from .sources import Source, SourceError, parse_source

Scope = Literal["user", "project"]


class PackageSettingsError(Exception):
    """A settings file cannot be read or written; it was not changed."""


@record(frozen=True)
class Declared:
    """One ``packages`` entry of one settings file."""

    scope: Scope
    entry: str | dict[str, Any]
    """As written."""
    source: Source
    """Parsed (a local path resolved from the settings file's folder)."""
    settings_path: Path
    delta: dict[str, list[str]] | None = None
    """A project entry with ``"autoload": false`` for this personal package: its filters, by
    kind, layered over this entry's (packages.md, "Understand scope and identity")."""

    @property
    def autoload(self) -> bool:
        """False for an object entry saying ``"autoload": false`` (a filtering delta, not a package)."""
        return not (isinstance(self.entry, dict) and self.entry.get("autoload") is False)

    @property
    def raw(self) -> str:
        """The source text."""
        return self.entry if isinstance(self.entry, str) else str(self.entry.get("source", ""))

    @property
    def filters(self) -> dict[str, list[str]]:
        """The resource filters of an object entry, by kind (absent kinds are not filtered)."""
        if not isinstance(self.entry, dict):
            return {}
        return {k: v for k, v in self.entry.items() if k in ("extensions", "skills", "prompts", "themes")
                and isinstance(v, list)}

    @property
    def install_root(self) -> Path:
        """Where its git or PyPI copy lives: the agent dir, or the project's ``.pi``."""
        return self.settings_path.parent


def settings_path(scope: Scope, agent_dir: Path, cwd: str | os.PathLike[str]) -> Path:
    """The settings file of ``scope``."""
    return agent_dir / SETTINGS_FILE if scope == "user" else Path(cwd) / PROJECT_DIR_NAME / SETTINGS_FILE


def read_declared(path: Path, scope: Scope) -> tuple[list[Declared], list[str]]:
    """The ``packages`` of one settings file, and problems (unreadable file, bad entries)."""
    data, problem = read_json_object(path)
    if data is None:
        return [], [f"{path}: {problem}"]
    value = data.get("packages")
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], [f"{path}: packages must be a list"]
    found: list[Declared] = []
    problems: list[str] = []
    for entry in value:
        raw = entry if isinstance(entry, str) else entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(raw, str) or not raw.strip():
            problems.append(f"{path}: a packages entry needs a source")
            continue
        try:
            found.append(Declared(scope, entry, parse_source(raw, path.parent), path))
        except SourceError as exc:
            problems.append(f"{path}: {exc}")
            continue
        if isinstance(entry, dict):
            # A filter of the wrong type narrows nothing: said, not silently dropped.
            for kind in ("extensions", "skills", "prompts", "themes"):
                value = entry.get(kind)
                if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                    problems.append(f"{path}: packages entry {raw}: {kind} must be a list of patterns; "
                                    "it does not filter")
    return found, problems


def settings_form(source: Source, path: Path) -> str:
    """How ``source`` is written into the settings file at ``path`` (local: relative to its folder)."""
    if source.kind != "local" or source.path is None:
        return source.raw.strip()
    return os.path.relpath(source.path, path.parent) or "."


def edit_settings(path: Path, change: Callable[[dict[str, Any]], bool]) -> bool:
    """Apply ``change`` to the settings file at ``path`` and write it back, every other key kept.

    ``change`` edits the parsed object in place and says whether it changed anything (nothing is
    written otherwise). A file that is not a JSON object, or holds a value pi cannot keep, is
    reported and left as it is.

    Raises:
        PackageSettingsError: The file cannot be read, parsed or written; it was not changed.
    """
    data, problem = read_json_object_to_rewrite(path)
    if data is None:
        raise PackageSettingsError(f"{path}: {problem}; not changed")
    if not change(data):
        return False
    try:
        atomic_write_json(path, data)
    except OSError as exc:
        raise PackageSettingsError(f"cannot write {path}: {exc}") from exc
    return True


def _write(path: Path, change: Any) -> bool:
    data, problem = read_json_object_to_rewrite(path)
    if data is None:
        raise PackageSettingsError(f"{path}: {problem}; not changed")
    packages = data.get("packages")
    if packages is not None and not isinstance(packages, list):
        raise PackageSettingsError(f"{path}: packages must be a list; not changed")
    new = change(list(packages or []))
    if new is None:
        return False
    data["packages"] = new
    try:
        atomic_write_json(path, data)
    except OSError as exc:
        raise PackageSettingsError(f"cannot write {path}: {exc}") from exc
    return True


def _identity(entry: Any, path: Path) -> str | None:
    raw = entry if isinstance(entry, str) else entry.get("source") if isinstance(entry, dict) else None
    try:
        return parse_source(raw, path.parent).identity if isinstance(raw, str) else None
    except SourceError:
        return None


def add_declared(path: Path, source: Source) -> None:
    """Record ``source`` in ``path``; an entry for the same package is replaced in place."""
    form = settings_form(source, path)

    def change(packages: list[Any]) -> list[Any]:
        for i, entry in enumerate(packages):
            if _identity(entry, path) == source.identity:
                packages[i] = {**entry, "source": form} if isinstance(entry, dict) else form
                return packages
        return [*packages, form]

    _write(path, change)


def remove_declared(path: Path, source: Source) -> bool:
    """Drop every entry for the package ``source`` names; False when there was none."""

    def change(packages: list[Any]) -> list[Any] | None:
        kept = [e for e in packages if _identity(e, path) != source.identity]
        return kept if len(kept) != len(packages) else None

    return _write(path, change)
