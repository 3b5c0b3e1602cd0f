"""Thinking levels a model supports (the rule lives in ``pi_runtime.ai.thinking_levels``, where
routing a virtual model clamps with it too)."""

from __future__ import annotations

from ..ai.thinking_levels import available_thinking_levels, clamp_thinking

__all__ = ["available_thinking_levels", "clamp_thinking"]
