"""Thinking levels a model supports, and clamping a wanted level to them."""

from __future__ import annotations

from .types import THINKING_LEVELS, Model


def available_thinking_levels(model: Model | None) -> list[str]:
    """The levels ``model`` offers, by Pi's rule: ``off`` only without reasoning; a level its
    ``thinkingLevelMap`` maps to null is left out; ``xhigh`` only where the model declares it
    (mapped in ``thinkingLevelMap``, or pi's ``compat.supportsXhigh``)."""
    if model is None or not model.reasoning:
        return ["off"]
    mapping = model.thinking_level_map or {}
    declared = "xhigh" in mapping or bool((model.compat or {}).get("supportsXhigh", False)) or "xhigh" in (
        getattr(model, "thinking_levels", None) or []
    )
    levels = [level for level in THINKING_LEVELS if not (level in mapping and mapping[level] is None)]
    if not declared and "xhigh" in levels:
        levels.remove("xhigh")
    return levels or ["off"]


def clamp_thinking(level: str, model: Model | None) -> str:
    """``level`` when ``model`` supports it; else, by Pi 1.6's rule, the nearest supported level above
    it, or failing that the nearest below (``max`` means the highest)."""
    levels = available_thinking_levels(model)
    if level in levels:
        return level
    if level not in THINKING_LEVELS:
        return levels[-1] if level == "max" else "off"
    wanted = THINKING_LEVELS.index(level)
    above = [lv for lv in levels if THINKING_LEVELS.index(lv) > wanted]
    if above:
        return above[0]
    below = [lv for lv in levels if THINKING_LEVELS.index(lv) < wanted]
    return below[-1] if below else levels[0]
