"""Thinking levels a model supports, and clamping a wanted level to them (Pi 1.6's rules, shared with
the wire APIs in ``ai/thinking_levels.py``)."""

from __future__ import annotations

from ..ai.thinking_levels import clamp_level, supported_levels
from ..ai.types import Model


def available_thinking_levels(model: Model | None) -> list[str]:
    """The levels ``model`` offers: ``off`` only without reasoning; a level its ``thinkingLevelMap``
    maps to null is left out; ``xhigh`` and ``max`` only where the map declares them."""
    return supported_levels(model)


def clamp_thinking(level: str, model: Model | None) -> str:
    """``level`` if ``model`` offers it, else the nearest offered level above it, else below it
    (``off`` without a model)."""
    return clamp_level(model, level) if model is not None else "off"
