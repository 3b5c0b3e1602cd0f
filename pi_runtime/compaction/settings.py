"""The compaction settings in force for one model: the one shape compaction code reads.

``settings.json`` holds them in its ``compaction`` block (``Settings.compaction``);
:meth:`CompactionSettings.for_model` resolves that block for the model in use, applying Pi's
per-model ``modelOverrides`` (each token value falls back on its own to the ordinary setting).
"""

from __future__ import annotations

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
