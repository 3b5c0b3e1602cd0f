"""The compaction settings in force for one model: the one shape compaction code reads.

``settings.json`` holds them in its ``compaction`` block (``Settings.compaction``);
:meth:`CompactionSettings.for_model` resolves that block for the model in use, applying Pi's
per-model ``modelOverrides`` (each token value falls back on its own to the ordinary setting).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records import record


@record(frozen=True)
class CompactionSettings:
    enabled: bool = True
    """Automatic compaction on; ``/compact`` works either way."""
    reserve_tokens: int = 16_384
    """Compaction starts when fewer free context tokens than this remain."""
    keep_recent_tokens: int = 20_000
    """Recent context kept verbatim (not summarised)."""

    def __post_init__(self) -> None:
        for name in ("reserve_tokens", "keep_recent_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"compaction.{name} must be a non-negative integer, got {value!r}")

    @classmethod
    def coerce(cls, value: Any) -> CompactionSettings:
        """``value`` as settings: these settings, Pi's plain object (``{"enabled": True,
        "reserveTokens": 16384, "keepRecentTokens": 20000}``, snake_case keys too), or None for
        the defaults. Missing keys take the defaults.

        Raises:
            ValueError: a token value that is not a non-negative integer.
        """
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            def pick(camel: str, snake: str, default: Any) -> Any:
                return value.get(camel, value.get(snake, default))

            base = cls()
            return cls(enabled=bool(pick("enabled", "enabled", base.enabled)),
                       reserve_tokens=pick("reserveTokens", "reserve_tokens", base.reserve_tokens),
                       keep_recent_tokens=pick("keepRecentTokens", "keep_recent_tokens", base.keep_recent_tokens))
        return cls(enabled=bool(getattr(value, "enabled", True)),
                   reserve_tokens=getattr(value, "reserve_tokens", cls().reserve_tokens),
                   keep_recent_tokens=getattr(value, "keep_recent_tokens", cls().keep_recent_tokens))

    @classmethod
    def for_model(cls, block: Any, model_ref: str | None) -> CompactionSettings:
        """Resolve the ``compaction`` settings block for ``provider/modelId``.

        Args:
            block: ``Settings.compaction`` (None for the defaults).
            model_ref: The exact ``provider/modelId`` of the model in use, or None.

        Returns:
            The effective settings (``enabled`` is global; token values may be overridden per model).
        """
        if block is None:
            return cls()
        reserve, keep = block.reserve_tokens, block.keep_recent_tokens
        override = (block.model_overrides or {}).get(model_ref) if model_ref else None
        if override is not None:
            reserve = reserve if override.reserve_tokens is None else override.reserve_tokens
            keep = keep if override.keep_recent_tokens is None else override.keep_recent_tokens
        return cls(enabled=block.enabled, reserve_tokens=int(reserve), keep_recent_tokens=int(keep))
