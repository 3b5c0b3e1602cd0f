"""Compaction settings (Pi's ``compaction`` block of settings.json) with their defaults."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CompactionSettings:
    enabled: bool = True
    """Automatic compaction on; ``/compact`` works either way."""
    reserve_tokens: int = 16_384
    """Compaction starts when fewer free context tokens than this remain."""
    keep_recent_tokens: int = 20_000
    """Recent context kept verbatim (not summarised)."""


_KEYS = {"enabled": "enabled", "reserveTokens": "reserve_tokens", "reserve_tokens": "reserve_tokens",
         "keepRecentTokens": "keep_recent_tokens", "keep_recent_tokens": "keep_recent_tokens"}


def resolve_settings(settings: CompactionSettings | dict[str, Any] | Any | None) -> CompactionSettings:
    """Accept our dataclass, Pi's camelCase dict, or any object with the snake_case attributes.

    Args:
        settings: The settings in any of those shapes; None for the defaults.

    Returns:
        A ``CompactionSettings``; missing values take the defaults.
    """
    if settings is None:
        return CompactionSettings()
    if isinstance(settings, CompactionSettings):
        return settings
    values: dict[str, Any] = {}
    if isinstance(settings, dict):
        for key, value in settings.items():
            if key in _KEYS and value is not None:
                values[_KEYS[key]] = value
    else:
        for name in ("enabled", "reserve_tokens", "keep_recent_tokens"):
            value = getattr(settings, name, None)
            if value is not None:
                values[name] = value
    for name in ("reserve_tokens", "keep_recent_tokens"):
        if name in values and (not isinstance(values[name], int) or values[name] < 0):
            raise ValueError(f"compaction.{name} must be a non-negative integer, got {values[name]!r}")
    return CompactionSettings(**values)
