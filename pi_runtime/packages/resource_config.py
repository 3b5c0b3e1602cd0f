"""What ``pi config`` lists and toggles: pi's built-in extensions, the configured packages'
extensions, skills, prompts and themes, and those pi finds in the agent folder or the project's
``.pi`` (``top_level``) (packages.md, "Enable and Disable Resources").

Two write scopes, as in Pi:

- ``global`` edits ``<agent dir>/settings.json``. The list shows what the personal settings load
  (the project is not read); a toggle turns a resource on or off.
- ``project`` edits ``.pi/settings.json`` (trusted projects only). The list shows what a session in
  this folder loads; a toggle cycles the project's override of the resource between inherit (no
  entry), unload and load, in the order that changes something first.

Each change is written as Pi writes it, so Pi and pi read the same files the same way:

- a built-in extension: ``+builtin:<name>`` or ``-builtin:<name>`` appended to the scope's
  ``extensions`` list, earlier entries for that name dropped;
- a package resource: ``+path`` or ``-path`` (relative to the package root) in the ``extensions``,
  ``skills``, ``prompts`` or ``themes`` list of the package's object entry. A project override of a
  personal package goes into a project entry ``{"source": ..., "autoload": false}``, a filter layered
  over the personal entry (``resolve.declared_packages``); it is dropped once it holds no filter.

Every other key of the file is kept; a file that cannot be parsed is reported and never rewritten.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from ..records import record
from ..settings import read_json_object
from .manifest import KINDS, Kind
from .resolve import declared_packages, filtered_resources, offered_by
from .settings_file import PackageSettingsError, edit_settings, settings_form, settings_path
from .sources import SourceError, parse_source
from .store import installed_path

WriteScope = Literal["global", "project"]
Override = Literal["inherit", "load", "unload"]

BUILTINS = ("codemode", "llama.cpp", "mcp", "tool-search")
"""The built-in extensions Pi lists under Built-in, loaded unless turned off."""

BUILTIN_PREFIX = "builtin:"
TOP_LEVEL = "top-level"
"""The identity of a resource found in a settings file's own folder (not a package's)."""


class ConfigError(Exception):
    """A settings file cannot be read or written; it was not changed."""


@record(frozen=True)
class ConfigItem:
    """One resource that can be toggled, as one scope sees it."""

    group: str
    """The heading it is listed under: ``<source> (user)``, ``<source> (project)`` or ``Built-in``."""
    personal: bool
    """Declared by the personal settings (a built-in counts as personal): in project scope it is
    inherited, and only there can a project-only resource be toggled."""
    kind: Kind
    name: str
    """What the list shows: the file name, a skill's folder, a built-in's name."""
    pattern: str
    """What a filter names: ``builtin:<name>``, or the path relative to the package root."""
    enabled: bool
    """Whether a session loads it, as this scope sees it."""
    inherited: bool
    """Whether the personal settings alone load it (what ``inherit`` means in project scope)."""
    state: Override = "inherit"
    """The project's override of it (project scope; always ``inherit`` in global scope)."""
    source: str = ""
    """The package's source as written in the settings that declare it (empty for a built-in)."""
    identity: str = ""
    """The package's identity (``sources.Source.identity``), which matches entries across files."""


class _Files:
    """The two settings files as ``resolve.declared_packages`` reads them."""

    def __init__(self, agent_dir: Path, cwd: Path) -> None:
        self._paths = {"global": settings_path("user", agent_dir, cwd), "project": settings_path("project", agent_dir, cwd)}

    def path(self, scope: Literal["global", "project"] = "global") -> Path:
        return self._paths[scope]


def _signed(entry: object) -> tuple[str, str]:
    """A filter entry split into its sign (``+``, ``-``, ``!`` or empty) and what it names."""
    text = entry.strip() if isinstance(entry, str) else ""
    return (text[0], text[1:]) if text[:1] in ("+", "-", "!") else ("", text)


def _override(entries: object, pattern: str, empty_unloads: bool) -> Override:
    """The project override a filter list says for ``pattern``: the last entry naming it decides."""
    if not isinstance(entries, list):
        return "inherit"
    if not entries and empty_unloads:
        return "unload"
    state: Override = "inherit"
    for entry in entries:
        sign, target = _signed(entry)
        if target == pattern and sign:
            state = "load" if sign == "+" else "unload"
    return state


def _with_filter(entries: object, pattern: str, sign: str | None) -> list[object]:
    """``entries`` without signed entries for ``pattern``, then ``<sign><pattern>`` (none for None)."""
    kept = [e for e in (entries if isinstance(entries, list) else []) if not (_signed(e)[0] and _signed(e)[1] == pattern)]
    return [*kept, f"{sign}{pattern}"] if sign else kept


def next_state(state: Override, inherited: bool) -> Override:
    """The project override after ``state``: first the one that changes what loads, then the other, then back."""
    if state == "inherit":
        return "unload" if inherited else "load"
    if state == "unload":
        return "load" if inherited else "inherit"
    return "inherit" if inherited else "unload"


def _display_name(kind: Kind, path: Path) -> str:
    """As Pi shows it: an extension outside an ``extensions`` folder with its folder's name."""
    if kind == "extensions" and path.parent.name != "extensions":
        return f"{path.parent.name}/{path.name}"
    return path.name


class ResourceConfig:
    """The toggles of one folder: lists them per scope and writes each change.

    Args:
        agent_dir: The agent dir (personal settings and installed packages).
        cwd: The project folder (``.pi/settings.json``).
        project_available: Whether the project is trusted, so its settings may be read and written.
        home: The home folder (``~/.agents/skills``); the user's when None.
    """

    def __init__(self, agent_dir: Path, cwd: str | os.PathLike[str], *, project_available: bool,
                 home: Path | None = None) -> None:
        self.agent_dir = Path(agent_dir)
        self.cwd = Path(cwd)
        self.home = home if home is not None else Path.home()
        """Where ``~/.agents/skills`` is looked for."""
        self.project_available = project_available
        self.warnings: list[str] = []
        """What the last :meth:`items` could not read (a settings file, a package not installed)."""

    def settings_file(self, scope: WriteScope) -> Path:
        """The file ``scope`` writes."""
        return settings_path("user" if scope == "global" else "project", self.agent_dir, self.cwd)

    def _raw(self, scope: WriteScope) -> dict[str, Any]:
        data, problem = read_json_object(self.settings_file(scope))
        if data is None:
            self.warnings.append(f"{self.settings_file(scope)}: {problem}")
            return {}
        return data

    def items(self, scope: WriteScope) -> list[ConfigItem]:
        """Everything ``scope`` lists, read from the files as they are now: packages' resources
        (personal packages first, then the project's, in settings order), then the built-ins."""
        self.warnings = []
        project = scope == "project" and self.project_available
        personal = self._package_items(False)
        out: list[ConfigItem] = []
        if project:
            project_raw = self._raw("project")
            inherited = {(i.identity, i.kind, i.pattern): i.enabled for i in personal}
            for item in self._package_items(True):
                entry = self._project_entry(project_raw, item.identity)
                state: Override = "inherit"
                if isinstance(entry, dict):
                    state = _override(entry.get(item.kind), item.pattern, entry.get("autoload") is not False)
                was = inherited.get((item.identity, item.kind, item.pattern), True)
                out.append(ConfigItem(item.group, item.personal, item.kind, item.name, item.pattern, item.enabled,
                                      was, state, item.source, item.identity))
        else:
            out = personal
        out += self._top_level_items(project)
        global_extensions = self._raw("global").get("extensions")
        project_extensions = self._raw("project").get("extensions") if project else None
        for name in BUILTINS:
            pattern = BUILTIN_PREFIX + name
            on = _override(global_extensions, pattern, False) != "unload"
            state = _override(project_extensions, pattern, False)
            enabled = on if state == "inherit" else state == "load"
            out.append(ConfigItem("Built-in", True, "extensions", name, pattern, enabled, on, state))
        return out

    def _package_items(self, project_trusted: bool) -> list[ConfigItem]:
        declared, problems = declared_packages(_Files(self.agent_dir, self.cwd), self.cwd, project_trusted)
        self.warnings.extend(problems)
        out: list[ConfigItem] = []
        for item in declared:
            root = installed_path(item.source, item.install_root)
            if root is None or not root.exists():
                self.warnings.append(f"package {item.raw}: not installed")
                continue
            every, _ = offered_by(item.source, root)
            base = root if root.is_dir() else root.parent
            loaded = filtered_resources(item, every, base)
            group = f"{item.raw} ({item.scope})"
            for kind in KINDS:
                for path in sorted(every.of(kind), key=lambda p: _display_name(kind, p)):
                    pattern = path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path)
                    if kind == "skills" and (path / "SKILL.md").is_file():
                        pattern += "/SKILL.md"  # the file Pi lists and names in filters
                    enabled = path in loaded.of(kind)
                    out.append(ConfigItem(group, item.scope == "user", kind, _display_name(kind, path), pattern,
                                          enabled, enabled, "inherit", item.raw, item.source.identity))
        return out

    def _top_level_items(self, project: bool) -> list[ConfigItem]:
        """The resources pi finds by itself in the folder of the scope's settings file (``top_level``):
        the agent folder's in personal scope, the project's ``.pi`` in project scope."""
        from .top_level import found_in, group_label, loaded

        scope: WriteScope = "project" if project else "global"
        base = self.settings_file(scope).parent
        raw = self._raw(scope)
        # Personal scope also lists ~/.agents/skills, named from ~/.agents in the same list (Pi's).
        folders = [(base, False)] if project else [(base, False), (self.home / ".agents", True)]
        out = []
        for folder, skills_only in folders:
            for kind, path, shown in found_in(folder, skills_only=skills_only):
                on = loaded(path, raw.get(kind), folder)
                pattern = path.relative_to(folder).as_posix()
                out.append(ConfigItem(group_label(folder, not project), not project, kind, shown, pattern, on, on,
                                      "inherit", identity=TOP_LEVEL))
        return out

    def _project_entry(self, raw: dict[str, Any], identity: str) -> object:
        """The project's ``packages`` entry for the package ``identity`` (None without one)."""
        path = self.settings_file("project")
        for entry in raw.get("packages") or []:
            source = entry if isinstance(entry, str) else entry.get("source") if isinstance(entry, dict) else None
            try:
                if isinstance(source, str) and parse_source(source, path.parent).identity == identity:
                    return entry
            except SourceError:
                continue
        return None

    def toggle(self, item: ConfigItem, scope: WriteScope) -> bool:
        """Write the change a toggle of ``item`` makes in ``scope``; False when ``scope`` cannot
        change it (a project's resource seen from global scope, or project scope unavailable).

        Raises:
            ConfigError: The settings file cannot be read or written; it was not changed.
        """
        if scope == "project" and not self.project_available:
            return False
        if item.identity == TOP_LEVEL:  # a toggle in the list of the file that finds it, each way
            try:
                edit_settings(self.settings_file(scope), lambda data: self._set_list(data, item.kind, item.pattern,
                                                                                     "-" if item.enabled else "+"))
            except PackageSettingsError as exc:
                raise ConfigError(str(exc)) from exc
            return True
        if scope == "global" and not item.personal:
            return False
        sign: str | None
        if scope == "global":
            sign = "-" if item.enabled else "+"
        else:
            new = next_state(item.state, item.inherited)
            sign = {"inherit": None, "load": "+", "unload": "-"}[new]
        path = self.settings_file(scope)
        try:
            if item.identity == "":
                edit_settings(path, lambda data: self._set_builtin(data, item.pattern, sign))
            else:
                edit_settings(path, lambda data: self._set_package(data, item, sign, scope))
        except PackageSettingsError as exc:
            raise ConfigError(str(exc)) from exc
        return True

    @staticmethod
    def _set_builtin(data: dict[str, Any], pattern: str, sign: str | None) -> bool:
        return ResourceConfig._set_list(data, "extensions", pattern, sign)

    @staticmethod
    def _set_list(data: dict[str, Any], kind: Kind, pattern: str, sign: str | None) -> bool:
        current = data.get(kind)
        if current is not None and not isinstance(current, list):
            raise PackageSettingsError(f"{kind} must be a list; not changed")
        data[kind] = _with_filter(current, pattern, sign)
        return True

    def _set_package(self, data: dict[str, Any], item: ConfigItem, sign: str | None, scope: WriteScope) -> bool:
        path = self.settings_file(scope)
        packages = data.get("packages")
        if packages is not None and not isinstance(packages, list):
            raise PackageSettingsError(f"{path}: packages must be a list; not changed")
        packages = list(packages or [])
        index = next((i for i, e in enumerate(packages) if self._identity(e, path) == item.identity), None)
        if index is None:
            if scope == "global" or sign is None:
                return False
            source = parse_source(item.source, self.settings_file("global").parent)
            packages.append({"source": settings_form(source, path), "autoload": False})
            index = len(packages) - 1
        entry = packages[index]
        entry = dict(entry) if isinstance(entry, dict) else {"source": entry}
        filters = _with_filter(entry.get(item.kind), item.pattern, sign)
        if filters:
            entry[item.kind] = filters
        else:
            entry.pop(item.kind, None)
        if not any(kind in entry for kind in KINDS):
            if entry.get("autoload") is False:
                del packages[index]  # a project override with nothing left to say
                data["packages"] = packages
                return True
            if set(entry) == {"source"}:
                entry = entry["source"]
        packages[index] = entry
        data["packages"] = packages
        return True

    @staticmethod
    def _identity(entry: object, path: Path) -> str | None:
        source = entry if isinstance(entry, str) else entry.get("source") if isinstance(entry, dict) else None
        try:
            return parse_source(source, path.parent).identity if isinstance(source, str) else None
        except SourceError:
            return None

