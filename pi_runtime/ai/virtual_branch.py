"""Which selection and router state a session branch records, by Pi 1.6's rules for virtual models.

Apart from ``virtual`` (re-exported there) because the kernel reads a branch at the start of every
run, virtual model or not: this needs no routing types, so a one-shot ``pi -p`` does not load them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .types import Model, is_virtual

VIRTUAL_MODEL_STATE_ENTRY = "pi.virtual-model-state"
"""``customType`` of the custom entry that stores router state on the session branch."""


def branch_selection(branch: list[Any], find: Callable[[str, str], Model | None]) -> tuple[str, str] | None:
    """``(provider, model id)`` a branch records as the selection, by Pi's rule.

    A virtual ``model_change`` holds until the next ``model_change`` (responses name the physical
    models it routed to) while that virtual model is registered; otherwise the latest physical
    response wins, as in sessions without virtual models. Failed routing attempts (assistant
    messages naming the virtual model) are stepped over. ``branch`` holds entry dicts or entries.
    """
    for index in range(len(branch) - 1, -1, -1):
        entry = _as_dict(branch[index])
        kind = entry.get("type")
        if kind == "model_change":
            return str(entry.get("provider", "")), str(entry.get("modelId", ""))
        message = entry.get("message") if kind == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant" and not is_virtual(message):
            response = str(message.get("provider", "")), str(message.get("model", ""))
            change = _last_model_change(branch, index)
            model = find(*change) if change is not None else None
            return change if change is not None and model is not None and is_virtual(model) else response
    return None


def _last_model_change(branch: list[Any], before: int) -> tuple[str, str] | None:
    for index in range(before - 1, -1, -1):
        entry = _as_dict(branch[index])
        if entry.get("type") == "model_change":
            return str(entry.get("provider", "")), str(entry.get("modelId", ""))
    return None


def router_state(branch: list[Any], provider: str, model_id: str) -> Any:
    """The router state a branch last stored for the virtual model ``provider/model_id`` (None if none)."""
    for index in range(len(branch) - 1, -1, -1):
        entry = _as_dict(branch[index])
        if entry.get("type") != "custom" or entry.get("customType") != VIRTUAL_MODEL_STATE_ENTRY:
            continue
        data = entry.get("data")
        if isinstance(data, dict) and data.get("provider") == provider and data.get("modelId") == model_id:
            return data.get("state")
    return None


def _as_dict(entry: Any) -> dict[str, Any]:
    if isinstance(entry, dict):
        return entry
    raw = getattr(entry, "raw", None)
    if isinstance(raw, dict):
        return raw
    to_wire = getattr(entry, "to_wire", None)
    return to_wire() if callable(to_wire) else {}
