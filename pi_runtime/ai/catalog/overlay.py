"""How a provider's live catalogue (models-store.json) changes the shipped one, as Pi applies it.

Three kinds of source, as in Pi's model runtime:
- ``pi.dev`` (every provider but two): pi.dev's catalogue for the provider, kept only when it
  is newer than the shipped data (``lastModified`` > the data's ``generatedAt``); its models
  replace shipped ones with the same id and add the others.
- ``personalized`` (OpenRouter): the shipped models plus pi.dev's, narrowed to what the
  user's key may use with the key's limits and prices; a saved non-empty list replaces the
  shipped one.
- ``gateway`` (Radius): the gateway's catalogue for the account replaces the shipped baseline
  (an organisation may have disabled models).
"""

from __future__ import annotations

from typing import Any, Literal

from ..types import Model
from .build import checked_models

SourceKind = Literal["pi.dev", "personalized", "gateway"]

_KINDS: dict[str, SourceKind] = {"openrouter": "personalized", "radius": "gateway"}


def source_kind(provider: str) -> SourceKind:
    """Where ``provider``'s live catalogue comes from."""
    return _KINDS.get(provider, "pi.dev")


def is_newer(last_modified: Any, generated_at_ms: int | None) -> bool:
    """Whether a pi.dev catalogue stamped ``last_modified`` is newer than the shipped data."""
    if generated_at_ms is None:
        return True
    return isinstance(last_modified, int | float) and last_modified > generated_at_ms


def overlay(provider: str, shipped: list[Model], entry: dict[str, Any] | None,
            generated_at_ms: int | None) -> list[Model]:
    """``provider``'s chat models once its saved live catalogue ``entry`` is applied.

    Args:
        provider: The provider id.
        shipped: Its models from the shipped catalogue, in order.
        entry: Its models-store.json entry (None: nothing saved).
        generated_at_ms: When the shipped data was generated.
    """
    if entry is None:
        return shipped
    rows = [row for row in entry.get("models") or () if isinstance(row, dict)
            and row.get("provider", provider) == provider]
    kind = source_kind(provider)
    if kind == "gateway":
        return checked_models(provider, rows)
    if kind == "personalized":
        return checked_models(provider, rows) if rows else shipped
    if not is_newer(entry.get("lastModified"), generated_at_ms):
        return shipped
    merged = {model.id: model for model in shipped}
    for model in checked_models(provider, rows):
        merged[model.id] = model
    return list(merged.values())
