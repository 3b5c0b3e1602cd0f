"""Where a row goes and which row is selected, worked out on the kernel's list alone.

The pane shows one list in delivery order (steering first, then follow-ups), so moving a row
past the last steer makes it the first follow-up and back: the move is one kernel call,
``move_queued(id, index, kind)``, with the index counted among the messages of that kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pi_runtime.frontend import QueuedMessage

Kind = Literal["steer", "follow_up"]
"""A queued message's kind, as ``QueuedMessage.kind`` and ``move_queued`` spell it."""


def surviving_selection(old: Sequence[QueuedMessage], new: Sequence[QueuedMessage], selected: str | None) -> str | None:
    """The id to select in ``new`` when ``selected`` was selected in ``old``.

    The same message while it is still queued (wherever it moved); once it is gone (delivered,
    deleted), the nearest row after it that is still queued, else the nearest before it.
    """
    if not new:
        return None
    ids = {item.id for item in new}
    if selected in ids:
        return selected
    old_ids = [item.id for item in old]
    if selected not in old_ids:
        return new[0].id
    at = old_ids.index(selected)
    for candidate in old_ids[at + 1:] + old_ids[:at][::-1]:
        if candidate in ids:
            return candidate
    return new[0].id


def step_target(items: Sequence[QueuedMessage], message_id: str, step: int) -> tuple[int, Kind] | None:
    """``(index, kind)`` for ``move_queued`` that moves ``message_id`` one row up (-1) or down (+1).

    None when it is already first or last.
    """
    ids = [item.id for item in items]
    at = ids.index(message_id)
    to = at + step
    if not 0 <= to < len(items):
        return None
    neighbour = items[to]
    moving = items[at]
    if neighbour.kind == moving.kind:
        same = [item.id for item in items if item.kind == moving.kind]
        return same.index(neighbour.id), moving.kind
    # Crossing the line between the steers and the follow-ups: it changes kind and stays next to it.
    return (-1 if step < 0 else 0), neighbour.kind


def toggled_kind_target(item: QueuedMessage) -> tuple[int, Kind]:
    """``(index, kind)`` that turns a steer into a follow-up and back without it jumping far.

    A steer becomes the first follow-up and a follow-up the last steer: both land on the line
    between the two kinds, the nearest place that keeps the list in delivery order.
    """
    return (0, "follow_up") if item.kind == "steer" else (-1, "steer")
