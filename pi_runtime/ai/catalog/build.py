"""Catalogue rows -> ``Model`` objects, without re-validating generated data.

The rows come from ``builtin.json`` (written by our generator from Pi's data) or from a live
catalogue Pi or ``pi update --models`` saved; both are Pi's model objects. A row from the
shipped file is trusted and built directly (``model_construct_wire``: ~4x cheaper than
validation, which matters when ``/model`` lists 1,700 models); a row from a live catalogue is
validated, and a row that does not validate is skipped rather than costing the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..types import CostTier, Model, ModelCost


def _cost(data: Any) -> ModelCost:
    if not isinstance(data, dict):
        return ModelCost()
    cost = ModelCost.model_construct_wire(data)
    if cost.tiers:
        cost.tiers = [CostTier.model_construct_wire(t) if isinstance(t, dict) else t for t in cost.tiers]
    return cost


def trusted_model(provider: str, row: dict[str, Any]) -> Model:
    """A ``Model`` from a row of the shipped catalogue (not validated)."""
    data = dict(row)
    data["provider"] = provider
    data["cost"] = _cost(data.get("cost"))
    data.pop("type", None)
    model: Model = Model.model_construct_wire(data)
    return model


def checked_models(provider: str, rows: Iterable[Any]) -> list[Model]:
    """``Model`` objects from a live catalogue's rows: each validated, bad ones skipped."""
    from ...jsonmodel import ValidationError

    out: list[Model] = []
    for row in rows:
        if not isinstance(row, dict) or row.get("type", "chat") != "chat":
            continue
        data = {k: v for k, v in row.items() if k != "type"}
        data["provider"] = provider
        try:
            out.append(Model.model_validate(data))
        except ValidationError:
            continue
    return out
