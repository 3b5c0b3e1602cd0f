"""Loading, merging and saving ``settings.json`` (global and per project).

Global settings live in ``<agent dir>/settings.json``; project settings in ``<cwd>/.pi/settings.json``
and are read only when the project is trusted. The project file wins, and nested objects
(``compaction``, ``retry``, ...) are merged key by key. A bad value never stops pi: it is reported as
a :class:`SettingsWarning` naming the file and the key, and only that key falls back to its
default. A file that is not valid JSON is reported and treated as empty — and is never overwritten,
so the user's text is not lost; when it becomes invalid after it was read, a reload keeps what
was read before (as Pi does). A path that is a FIFO, a device or a huge file is refused unread
(``config_files``).

Changes made through :class:`SettingsManager` setters are written back atomically (temp file +
rename) into the file on disk as it is now, so keys pi does not know survive.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Literal

from pi_runtime.config_files import DroppedValue
from pi_runtime.config_files import atomic_write_json as atomic_write_json
from pi_runtime.config_files import read_json_object as read_json_object
from pi_runtime.config_files import read_json_object_to_rewrite as read_json_object_to_rewrite
from pi_runtime.paths import PROJECT_DIR_NAME
from pi_runtime.paths import agent_dir as default_agent_dir
from pi_runtime.settings_model import GLOBAL_ONLY_KEYS, Settings
from pi_runtime.settings_validation import SettingsWarning, apply_legacy, clean_settings, deep_merge

from .jsonmodel import ValidationError, to_camel

Scope = Literal["global", "project"]
SETTINGS_FILE = "settings.json"


class SettingsError(Exception):
    """A setter was given a bad key or value, or the file could not be written."""


def _key_path(key: str) -> tuple[str, ...]:
    """``"compaction.reserve_tokens"`` -> ``("compaction", "reserveTokens")``."""
    parts = tuple(to_camel(p) if "_" in p else p for p in key.split("."))
    if not key or any(not p for p in parts):
        raise SettingsError(f"invalid settings key {key!r}")
    return parts


def _set_path(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    if value is None:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = copy.deepcopy(value)


class SettingsManager:
    """Global + project settings for one working directory, merged, with write-back.

    Build one with :meth:`create` (files on disk) or :meth:`in_memory` (tests and SDK hosts).
    Read ``manager.settings`` for the merged, validated :class:`Settings`.
    """

    def __init__(
        self,
        *,
        global_path: Path | None,
        project_path: Path | None,
        project_trusted: bool = True,
        initial: dict[str, Any] | None = None,
    ) -> None:
        self._paths: dict[Scope, Path | None] = {"global": global_path, "project": project_path}
        self._project_trusted = project_trusted
        self._raw: dict[Scope, dict[str, Any]] = {"global": dict(initial or {}), "project": {}}
        self._warnings: dict[Scope, list[SettingsWarning]] = {"global": [], "project": []}
        self._loaded: set[Scope] = set()
        """Scopes read successfully at least once (a later invalid file keeps them)."""
        # (Both set by _rebuild, below or through reload: a default Settings made here first was thrown away.)
        self._settings: Settings
        self._global_settings: Settings
        if global_path is not None or project_path is not None:
            self.reload()
        else:
            self._raw["global"], self._warnings["global"] = clean_settings(self._raw["global"], "<memory>")
            self._rebuild()

    @classmethod
    def create(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        agent_dir: str | os.PathLike[str] | None = None,
        *,
        project_trusted: bool = True,
    ) -> SettingsManager:
        """Settings backed by ``<agent dir>/settings.json`` and ``<cwd>/.pi/settings.json``.

        Args:
            cwd: Project directory; the process cwd when omitted.
            agent_dir: Agent dir; ``pi_runtime.paths.agent_dir()`` when omitted.
            project_trusted: Whether the project file may be read (see ``resources.trust``).

        Returns:
            A loaded manager; problems are in :attr:`warnings`.
        """
        base = Path(agent_dir) if agent_dir is not None else default_agent_dir()
        project = Path(cwd if cwd is not None else os.getcwd()) / PROJECT_DIR_NAME / SETTINGS_FILE
        return cls(global_path=base / SETTINGS_FILE, project_path=project, project_trusted=project_trusted)

    @classmethod
    def in_memory(cls, settings: dict[str, Any] | None = None, **overrides: Any) -> SettingsManager:
        """Settings that never touch the disk.

        Args:
            settings: A settings dict in file form (camelCase keys).
            **overrides: More settings by Python or file name, e.g. ``default_model="x"`` or
                ``compaction={"enabled": False}``; they win over ``settings``.

        Returns:
            A manager whose setters change memory only.

        Raises:
            SettingsError: An override has an invalid value.
        """
        data = dict(settings or {})
        if overrides:
            try:
                parsed = Settings.model_validate(overrides)
            except ValidationError as exc:
                raise SettingsError(f"invalid settings override: {exc}") from exc
            data = deep_merge(data, parsed.model_dump(by_alias=True, exclude_unset=True))
        return cls(global_path=None, project_path=None, initial=data)

    # ----------------------------------------------------------------- reading

    @property
    def settings(self) -> Settings:
        """The merged settings (project over global when trusted)."""
        return self._settings

    @property
    def global_settings(self) -> Settings:
        """The agent-dir settings alone (e.g. ``default_project_trust`` before trust is known)."""
        return self._global_settings

    @property
    def warnings(self) -> list[SettingsWarning]:
        """Problems found in the files at the last (re)load, global first."""
        return [*self._warnings["global"], *self._warnings["project"]]

    @property
    def project_trusted(self) -> bool:
        """Whether project settings are part of :attr:`settings`."""
        return self._project_trusted

    def path(self, scope: Scope = "global") -> Path | None:
        """The file behind ``scope`` (None in memory)."""
        return self._paths[scope]

    def raw(self, scope: Scope = "global") -> dict[str, Any]:
        """A copy of the valid keys of one scope's file, in file form."""
        return copy.deepcopy(self._raw[scope])

    def get(self, key: str) -> Any:
        """A merged value by dotted key (``"retry.maxRetries"``), defaults included.

        Raises:
            SettingsError: No such setting and no such unknown key.
        """
        node: Any = self._settings.model_dump(by_alias=True)
        for part in _key_path(key):
            if not isinstance(node, dict) or part not in node:
                raise SettingsError(f"unknown setting {key!r}")
            node = node[part]
        return node

    def project_session_dir(self) -> str | None:
        """``sessionDir`` from the project file, when the project is trusted.

        Pi reads it before trust is decided; pi does not read an untrusted project's files at
        all: a stranger's clone must neither choose where the user's conversations are written
        nor stop pi with what its file holds.
        """
        path = self._paths["project"]
        if path is None or not self._project_trusted:
            return None
        data, _ = read_json_object(path)
        value = (data or {}).get("sessionDir")
        return value if isinstance(value, str) and value.strip() else None

    def resource_paths(self, kind: Literal["skills", "prompts", "extensions", "themes"]) -> list[Path]:
        """Resource paths listed in both files, resolved (global from the agent dir, project from .pi).

        Entries starting with ``!`` or ``-`` (exclusions) are skipped; a leading ``+`` is dropped.
        """
        found: list[Path] = []
        scopes: list[Scope] = ["global", "project"] if self._project_trusted else ["global"]
        for scope in scopes:
            file = self._paths[scope]
            base = file.parent if file is not None else Path.cwd()
            value = self._raw[scope].get(kind)
            if isinstance(value, dict):  # legacy {"customDirectories": [...]} form of skills
                value = value.get("customDirectories")
            for entry in value or []:
                if not isinstance(entry, str) or not entry.strip() or entry[0] in "!-":
                    continue
                candidate = Path(entry.lstrip("+").strip()).expanduser()
                found.append(candidate if candidate.is_absolute() else base / candidate)
        return found

    # ----------------------------------------------------------------- loading

    def reload(self) -> None:
        """Re-read both files (project only when trusted)."""
        self._read("global")
        self._read("project")
        self._rebuild()

    def _read(self, scope: Scope) -> None:
        path = self._paths[scope]
        self._warnings[scope] = []
        if path is None or (scope == "project" and not self._project_trusted):
            if path is not None:
                self._raw[scope] = {}
                self._loaded.discard(scope)
            return
        dropped: list[DroppedValue] = []
        data, problem = read_json_object(path, dropped)
        if data is None:
            if scope in self._loaded:
                # As Pi: a file that became invalid keeps what was read from it before.
                self._warnings[scope].append(
                    SettingsWarning(str(path), None, f"{problem}; keeping the settings read before")
                )
                return
            self._warnings[scope].append(
                SettingsWarning(str(path), None, f"{problem}; using defaults for this file")
            )
            data = {}
        else:
            self._loaded.add(scope)
        cleaned, warnings = clean_settings(data, str(path))
        warnings[:0] = [SettingsWarning(str(path), None, str(value)) for value in dropped]
        if scope == "project":
            for key in sorted(GLOBAL_ONLY_KEYS & cleaned.keys()):
                del cleaned[key]
                warnings.append(
                    SettingsWarning(str(path), key, "only read from the agent-directory settings; ignored")
                )
        self._raw[scope] = cleaned
        self._warnings[scope].extend(warnings)

    def set_project_trusted(self, trusted: bool) -> None:
        """Include or exclude the project file once the trust decision is known (the global file,
        which trust does not concern, is not read again)."""
        self._project_trusted = trusted
        self._read("project")
        self._rebuild()

    def _rebuild(self) -> None:
        global_data = apply_legacy(self._raw["global"])
        merged = self._raw["global"]
        if self._project_trusted:
            merged = deep_merge(merged, self._raw["project"])
        self._global_settings = Settings.model_validate(global_data)
        # Each scope is valid on its own; cleaning the merge too means no combination of
        # files can make pi fail to start.
        combined, problems = clean_settings(apply_legacy(merged), "merged settings")
        self._warnings["project"].extend(problems)
        self._settings = Settings.model_validate(combined)

    # ----------------------------------------------------------------- writing

    def set(self, key: str, value: Any, *, scope: Scope = "global") -> None:
        """Change one setting and save it.

        Args:
            key: Dotted key, camelCase or snake_case (``"compaction.enabled"``).
            value: New value; None removes the key (back to the default).
            scope: ``"global"`` (agent dir) or ``"project"`` (``.pi/settings.json``).

        Raises:
            SettingsError: Invalid key/value (nothing changes), or the file could not be
                written (the change stays in memory for this run).
        """
        path = _key_path(key)
        if scope == "project" and path[0] in GLOBAL_ONLY_KEYS:
            raise SettingsError(f"{path[0]} can only be set in the agent-directory settings")
        candidate = copy.deepcopy(self._raw[scope])
        _set_path(candidate, path, value)
        cleaned, problems = clean_settings(candidate, "<new value>")
        if problems:
            raise SettingsError(f"invalid value for {'.'.join(path)}: {problems[0].message}")
        self._raw[scope] = cleaned
        self._rebuild()
        self._save(scope, path, value)

    def unset(self, key: str, *, scope: Scope = "global") -> None:
        """Remove a key so its default applies again (see :meth:`set`)."""
        self.set(key, None, scope=scope)

    def _save(self, scope: Scope, path: tuple[str, ...], value: Any) -> None:
        file = self._paths[scope]
        if file is None:
            return
        on_disk, problem = read_json_object_to_rewrite(file)
        if on_disk is None:
            raise SettingsError(
                f"not saved: {file} is unreadable ({problem}); fix or remove it, the change "
                "applies to this run only"
            )
        _set_path(on_disk, path, value)
        try:
            atomic_write_json(file, on_disk)
        except OSError as exc:
            raise SettingsError(f"not saved: cannot write {file} ({exc})") from exc

    # Convenience setters the UI and RPC use.

    def set_default_model(self, provider: str, model_id: str) -> None:
        """Remember the model chosen in the app as the start-up model."""
        self.set("defaultProvider", provider)
        self.set("defaultModel", model_id)

    def set_default_thinking_level(self, level: str) -> None:
        """Remember the thinking level chosen in the app."""
        self.set("defaultThinkingLevel", level)

    def set_steering_mode(self, mode: str) -> None:
        """``"all"`` or ``"one-at-a-time"``."""
        self.set("steeringMode", mode)

    def set_follow_up_mode(self, mode: str) -> None:
        """``"all"`` or ``"one-at-a-time"``."""
        self.set("followUpMode", mode)

    def set_theme(self, name: str) -> None:
        """Theme name."""
        self.set("theme", name)
