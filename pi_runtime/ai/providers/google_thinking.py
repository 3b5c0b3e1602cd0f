"""Gemini's ``thinkingConfig`` for a thinking level, by Pi 1.6's rules (Gemini API and Vertex AI alike).

Gemini 3 and later (and Gemma 4) take a named ``thinkingLevel``; Gemini 2.5 takes a token budget
(per family; ``-1``, the model's own choice, for other models). A model's ``thinkingLevelMap``
(catalogue or models.json) renames levels and, with ``null``, marks the ones it lacks: a level
it lacks is clamped to the nearest it has (upwards first), as Pi clamps. With thinking off a
reasoning model is told so explicitly: a zero budget, or the lowest level it has when it cannot
stop thinking.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..types import Model

LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
_GOOGLE_LEVELS = ("minimal", "low", "medium", "high")
_BUDGETS_25_PRO = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
_BUDGETS_25_FLASH = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}
_LEVEL_MODELS = re.compile(r"gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|gemma-?4")
_MISSING = object()


def level_map(model: Model) -> Mapping[str, Any]:
    """The model's ``thinkingLevelMap``, or an empty map."""
    levels = model.thinking_level_map
    return levels if isinstance(levels, dict) else {}


def supported_levels(model: Model) -> list[str]:
    """The levels a model offers: all but those mapped to null; xhigh and max only when mapped."""
    if not model.reasoning:
        return ["off"]
    mapping = level_map(model)
    out = []
    for level in LEVELS:
        mapped = mapping.get(level, _MISSING)
        if mapped is None or (level in ("xhigh", "max") and mapped is _MISSING):
            continue
        out.append(level)
    return out


def clamp_level(model: Model, level: str) -> str:
    """``level`` if offered, else the nearest offered one above it, else below it."""
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


def uses_thinking_level(model: Model) -> bool:
    """Whether the model takes a named ``thinkingLevel`` rather than a ``thinkingBudget``."""
    model_id = model.id.lower()
    return bool(_LEVEL_MODELS.search(model_id)) or model_id in ("gemini-flash-latest", "gemini-flash-lite-latest")


def _google_level(model: Model, level: str) -> str:
    mapped = level_map(model).get(level)
    resolved = mapped.lower() if isinstance(mapped, str) else level
    if resolved not in _GOOGLE_LEVELS:
        raise ValueError(f"Unsupported Google thinking level mapping for {model.provider}/{model.id}: "
                         f"{level} -> {mapped}")
    return resolved


def _budget(model: Model, level: str) -> int:
    if "2.5-pro" in model.id:
        return _BUDGETS_25_PRO[level]
    if "2.5-flash" in model.id:
        return _BUDGETS_25_FLASH[level]
    return -1


def disabled_config(model: Model) -> dict[str, Any]:
    """What tells a reasoning model not to think (or to think least, when it cannot stop)."""
    if not uses_thinking_level(model):
        return {"thinkingBudget": 0}
    fallback = clamp_level(model, "off")
    if fallback == "off":
        return {"thinkingBudget": 0}
    return {"thinkingLevel": _google_level(model, fallback).upper()}


def thinking_config(model: Model, level: str | None) -> dict[str, Any] | None:
    """The ``thinkingConfig`` for a thinking level (None or ``off``: thinking off).

    Args:
        model: The target model; nothing is sent for a model without reasoning.
        level: off, minimal, low, medium, high, xhigh, max, or None.

    Returns:
        The config dict, or None for a model that does not reason.

    Raises:
        ValueError: The model's ``thinkingLevelMap`` maps the level to something Google does not take.
    """
    if not model.reasoning:
        return None
    if level is None or level == "off":
        return disabled_config(model)
    clamped = clamp_level(model, level)
    if clamped == "off":
        return disabled_config(model)
    resolved = _google_level(model, clamped)
    if uses_thinking_level(model):
        return {"includeThoughts": True, "thinkingLevel": resolved.upper()}
    return {"includeThoughts": True, "thinkingBudget": _budget(model, resolved)}
