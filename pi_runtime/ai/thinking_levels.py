"""Which thinking levels a model offers, and where a level it does not offer lands (Pi 1.6's rules).

A reasoning model offers ``minimal`` to ``high`` unless its ``thinkingLevelMap`` maps one to null,
and ``xhigh`` and ``max`` only where the map declares them; a model that does not reason offers
only ``off``. A level the model does not offer is clamped *upwards* first (``medium`` on a model
that only has ``low`` and ``high`` runs as ``high``), then downwards. The session (``/thinking``,
``--thinking``, a resumed branch) and every wire API use these same rules, so what the footer
shows is what the request says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .types import Model

LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
"""Every level Pi knows, weakest first."""

_UNDECLARED = object()


def level_map(model: Model) -> Mapping[str, Any]:
    """The model's ``thinkingLevelMap`` (level -> the provider's value, or None: not offered)."""
    mapping = getattr(model, "thinking_level_map", None)
    return mapping if isinstance(mapping, dict) else {}


def supported_levels(model: Model | None) -> list[str]:
    """The levels ``model`` offers, weakest first (``["off"]`` for a model that does not reason)."""
    if model is None or not model.reasoning:
        return ["off"]
    mapping = level_map(model)
    out = []
    for level in LEVELS:
        mapped = mapping.get(level, _UNDECLARED)
        if mapped is None or (level in ("xhigh", "max") and mapped is _UNDECLARED):
            continue
        out.append(level)
    return out


def clamp_level(model: Model | None, level: str) -> str:
    """``level`` when ``model`` offers it, else the nearest offered level above it, else below it."""
    available = supported_levels(model)
    if level in available:
        return level
    if level not in LEVELS:
        return available[0] if available else "off"
    index = LEVELS.index(level)
    for candidate in (*LEVELS[index + 1:], *reversed(LEVELS[:index])):
        if candidate in available:
            return candidate
    return available[0] if available else "off"


def request_level(model: Model, level: str | None) -> str | None:
    """The level a request carries for a wanted ``level``: clamped, and None when thinking is off."""
    if not level:
        return None
    clamped = clamp_level(model, level)
    return None if clamped == "off" else clamped


def mapped_value(model: Model, level: str) -> Any:
    """What the model's ``thinkingLevelMap`` says for ``level`` (the level itself when it says nothing)."""
    mapping = level_map(model)
    return mapping[level] if level in mapping and mapping[level] is not None else level


def available_thinking_levels(model: Model | None) -> list[str]:
    """The levels ``model`` offers (``supported_levels``; the session's and the pickers' name)."""
    return supported_levels(model)


def clamp_thinking(level: str, model: Model | None) -> str:
    """``level`` if ``model`` offers it, else the nearest offered level above it, else below it
    (``off`` without a model)."""
    return clamp_level(model, level) if model is not None else "off"
