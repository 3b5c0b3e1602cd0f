"""Validation of settings data: drop bad keys with a warning, merge scopes, read legacy keys.

Pure functions over the JSON dicts read from ``settings.json``; ``pi_runtime.settings`` does
the file handling. Kept apart so the manager stays small.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pi_runtime.settings_model import Settings

from .jsonmodel import ValidationError
from .records import record

_MAX_CLEAN_PASSES = 64


@record(frozen=True, slots=True)
class SettingsWarning:
    """A problem found in a settings file. pi keeps running with the default for ``key``."""

    path: str
    """The file (or ``<memory>``) the problem is in."""
    key: str | None
    """Dotted camelCase key (``compaction.reserveTokens``), or None for the whole file."""
    message: str
    """What is wrong and what pi does about it."""

    def __str__(self) -> str:
        where = f"{self.path}: {self.key}" if self.key else self.path
        return f"{where}: {self.message}"


def _deepest_key(data: dict[str, Any], loc: tuple[Any, ...]) -> tuple[str, ...]:
    """The longest prefix of an error location that names keys present in ``data``."""
    path: list[str] = []
    node: Any = data
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            path.append(part)
            node = node[part]
        else:
            break
    return tuple(path)


def _delete(data: dict[str, Any], path: tuple[str, ...]) -> None:
    node = data
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


def clean_settings(raw: dict[str, Any], source: str) -> tuple[dict[str, Any], list[SettingsWarning]]:
    """Drop the invalid keys of a settings dict, one warning per dropped key.

    Args:
        raw: Parsed settings file (not modified).
        source: File name used in the warnings.

    Returns:
        A copy holding only valid values (unknown keys kept) and the warnings.
    """
    data = copy.deepcopy(raw)
    warnings: list[SettingsWarning] = []
    for _ in range(_MAX_CLEAN_PASSES):
        try:
            Settings.model_validate(data)
            return data, warnings
        except ValidationError as exc:
            problems: dict[tuple[str, ...], list[str]] = {}
            values: dict[tuple[str, ...], Any] = {}
            for error in exc.errors():
                path = _deepest_key(data, tuple(error["loc"]))
                if not path:
                    continue
                problems.setdefault(path, [])
                msg = error["msg"][:1].lower() + error["msg"][1:]
                if msg not in problems[path]:
                    problems[path].append(msg)
                values.setdefault(path, error.get("input"))
            if not problems:
                break
            for path, msgs in problems.items():
                node: Any = data
                for part in path:
                    node = node[part]
                _delete(data, path)
                shown = json.dumps(node, ensure_ascii=False, default=str)
                if len(shown) > 60:
                    shown = shown[:57] + "..."
                warnings.append(
                    SettingsWarning(
                        source,
                        ".".join(path),
                        f"invalid value {shown} ({' or '.join(msgs)}); using the default",
                    )
                )
    # Unreachable in practice; never let a pathological file take pi down.
    warnings.append(SettingsWarning(source, None, "could not be validated; using defaults"))
    return {}, warnings


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Merge ``override`` into a copy of ``base``; nested objects merge, everything else replaces."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def apply_legacy(data: dict[str, Any]) -> dict[str, Any]:
    """Read Pi's renamed keys when their new names are absent (the file itself is not changed)."""
    out = copy.deepcopy(data)
    if "steeringMode" not in out and "queueMode" in out:
        out["steeringMode"] = out["queueMode"]
    if "transport" not in out and out.get("websockets") is True:
        out["transport"] = "websocket"
    retry = out.get("retry")
    if isinstance(retry, dict) and "maxDelayMs" in retry:
        provider = retry.setdefault("provider", {})
        if isinstance(provider, dict):
            provider.setdefault("maxRetryDelayMs", retry["maxDelayMs"])
    return out
