"""Thinking levels a model supports, and clamping a wanted level to them."""

from __future__ import annotations

from ..ai.types import THINKING_LEVELS, Model


def available_thinking_levels(model: Model | None) -> list[str]:
    """``off`` for models without reasoning; ``xhigh`` only where the model declares it."""
    if model is None or not model.reasoning:
        return ["off"]
    levels = list(THINKING_LEVELS)
    supports_xhigh = bool((model.compat or {}).get("supportsXhigh", False)) or "xhigh" in (
        getattr(model, "thinking_levels", None) or []
    )
    if not supports_xhigh:
        levels.remove("xhigh")
    return levels


def clamp_thinking(level: str, model: Model | None) -> str:
    """The highest level ``model`` supports that is not above ``level`` (``max`` means the highest)."""
    levels = available_thinking_levels(model)
    if level in levels:
        return level
    if level not in THINKING_LEVELS:
        return levels[-1] if level == "max" else "off"
    wanted = THINKING_LEVELS.index(level)
    candidates = [lv for lv in levels if THINKING_LEVELS.index(lv) <= wanted]
    return candidates[-1] if candidates else levels[0]
