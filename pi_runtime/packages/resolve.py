"""The resources a session takes from its configured packages.

Global ``packages`` first, then (only in a trusted project) the project's; a project entry replaces
a global entry for the same package. A git or PyPI package that is not installed yet is installed
now (unless offline); one that fails is reported and skipped, and tried again next start, as Pi
does. A PyPI package's install folder, and a git or local package's dependencies folder, is
appended to ``sys.path`` when it brings extensions, so their imports of the dependencies resolve
(after pi's own modules, never before: a dependency cannot replace one of them).
"""

from __future__ import annotations

import dataclasses
import sys
import weakref
from dataclasses import field
from pathlib import Path
from typing import Any

from ..records import record
from . import has_packages as has_packages
from .manifest import KINDS, Kind, Offered, apply_delta, apply_filter, distribution_roots, offered
from .settings_file import Declared, Scope, read_declared
from .sources import Source, SourceError, dependencies_dir, parse_source
from .store import InstallError, install, installed_path, offline


@record
class Resolved:
    """One configured package and what it offers after filters."""

    declared: Declared
    root: Path | None
    """Installed path (None when it could not be installed)."""
    resources: Offered = field(default_factory=Offered)


@record
class PackageResources:
    """Every configured package's resources, in load order."""

    packages: list[Resolved] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    import_roots: list[Path] = field(default_factory=list)
    """PyPI install folders whose extensions need them on ``sys.path``."""

    def paths(self, kind: Kind) -> list[Path]:
        """All resources of ``kind``, without duplicates."""
        out: list[Path] = []
        for package in self.packages:
            out.extend(p for p in package.resources.of(kind) if p not in out)
        return out


def _declared_in(settings: Any, scope: Scope, cwd: Path) -> tuple[list[Declared], list[str]]:
    file_scope = "global" if scope == "user" else "project"
    path = settings.path(file_scope) if hasattr(settings, "path") else None
    if path is not None:
        return read_declared(path, scope)
    entries = (settings.raw(file_scope) if hasattr(settings, "raw") else {}).get("packages") or []
    found, problems = [], []
    fake = cwd / "settings.json"  # in-memory settings: relative sources start from cwd
    for entry in entries:
        data = entry.model_dump(by_alias=True, exclude_none=True) if hasattr(entry, "model_dump") else entry
        raw = data if isinstance(data, str) else data.get("source", "")
        try:
            found.append(Declared(scope, data, parse_source(raw, cwd), fake))
        except SourceError as exc:
            problems.append(str(exc))
    return found, problems


def declared_packages(settings: Any, cwd: Path, project_trusted: bool) -> tuple[list[Declared], list[str]]:
    """Configured packages, a project entry replacing a global one for the same package.

    A project entry with ``"autoload": false`` replaces nothing: its filters become the personal
    entry's ``delta`` (what ``pi config`` writes for a project override); with no personal entry
    for its package it loads nothing.
    """
    chosen: dict[str, Declared] = {}
    problems: list[str] = []
    scopes: tuple[Scope, ...] = ("user", "project") if project_trusted else ("user",)
    for scope in scopes:
        found, issues = _declared_in(settings, scope, cwd)
        problems.extend(issues)
        for item in found:
            if item.autoload:
                chosen[item.source.identity] = item
                continue
            personal = chosen.get(item.source.identity)
            if personal is not None and personal.scope == "user":
                chosen[item.source.identity] = dataclasses.replace(personal, delta=item.filters)
    return list(chosen.values()), problems


def filtered_resources(item: Declared, offered: Offered, base: Path) -> Offered:
    """What of ``offered`` (everything the package at ``base`` declares) loads under ``item``'s
    filters and then its project delta: a delta's ``+path`` loads one path, ``-path`` and
    ``!pattern`` unload, a plain pattern loads what it matches; an empty delta changes nothing."""
    out = Offered(problems=list(offered.problems))
    filters = item.filters
    delta = item.delta or {}
    for kind in KINDS:
        every = offered.of(kind)
        kept = apply_filter(every, base, filters.get(kind))
        if delta.get(kind):
            kept = apply_delta(every, kept, base, delta[kind])
        out.of(kind).extend(kept)
    return out


def offered_by(source: Source, root: Path) -> tuple[Offered, Path | None]:
    """What the package installed at ``root`` offers (problems included), and the folder to put
    on ``sys.path`` for a PyPI distribution's extensions (None for other packages)."""
    if source.kind != "pypi":
        return offered(root), None
    roots, problem = distribution_roots(root, source.name)
    out = Offered()
    if problem:
        out.problems.append(problem)
    for package_root, declared in roots:
        out.add(offered(package_root, declared))
    return out, root


_resolved: weakref.WeakKeyDictionary[Any, tuple[tuple[str, bool], PackageResources]] = weakref.WeakKeyDictionary()
"""The last resolution per settings object: extension loading and the resource loader share it."""


def resolve_packages(settings: Any, cwd: str | Path, *, project_trusted: bool, install_missing: bool = True,
                     fresh: bool = False) -> PackageResources:
    """Install what is missing and list every configured package's resources (never raises).

    The result is kept per settings object, so the extensions and the skills and templates of one
    session come from one resolution; ``fresh`` resolves again (``/reload``).
    """
    key = (str(Path(cwd).resolve()), project_trusted)
    try:
        cached = None if fresh else _resolved.get(settings)
    except TypeError:  # settings that cannot be weakly referenced: no sharing
        cached = None
    if cached is not None and cached[0] == key:
        return cached[1]
    out = _resolve(settings, Path(cwd), project_trusted, install_missing)
    try:
        _resolved[settings] = (key, out)
    except TypeError:
        pass
    return out


def _resolve(settings: Any, folder: Path, project_trusted: bool, install_missing: bool) -> PackageResources:
    out = PackageResources()
    declared, problems = declared_packages(settings, folder, project_trusted)
    out.warnings.extend(problems)
    for item in declared:
        root = installed_path(item.source, item.install_root)
        if root is None or not root.exists():
            reason = None
            if item.source.kind == "local":
                reason = f"path does not exist: {root}"
            elif not install_missing or offline():
                reason = "not installed" + (" (offline)" if offline() else "")
            if reason is not None:
                out.warnings.append(f"package {item.raw}: {reason}")
                out.packages.append(Resolved(item, None))
                continue
            try:
                root = install(item.source, item.install_root)
            except InstallError as exc:
                out.warnings.append(f"package {item.raw}: {exc}; skipped (it is tried again next start)")
                out.packages.append(Resolved(item, None))
                continue
        every, import_root = offered_by(item.source, root)
        resources = filtered_resources(item, every, root if root.is_dir() else root.parent)
        out.warnings.extend(f"package {item.raw}: {p}" for p in resources.problems)
        if import_root is None and item.source.kind != "pypi":
            deps = dependencies_dir(item.source, item.install_root)
            import_root = deps if deps.is_dir() else None
        if import_root is not None and resources.extensions and import_root not in out.import_roots:
            out.import_roots.append(import_root)
        out.packages.append(Resolved(item, root, resources))
    for root in out.import_roots:
        if str(root) not in sys.path:
            sys.path.append(str(root))
    return out
