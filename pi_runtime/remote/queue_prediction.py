"""The queue a served session will have after an edit, predicted from the viewer's copy.

``SessionPort``'s queue edits answer at once with the queue after them; a remote session sends
the edit and answers with this prediction (the kernel's rules: steering first, then follow-ups;
an index counts the messages of the target kind, negative from the end). The server's next
``queue_update`` replaces it, so a refused or raced edit corrects itself.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agent.agent import QueueKind
    from ..kernel.message_queue import QueuedMessage


def require(queue: list[QueuedMessage], message_id: str) -> None:
    """Raises ``QueueEditError`` (``unknown``) when ``message_id`` is not in the viewer's queue."""
    from ..kernel.message_queue import QueueEditError

    if all(item.id != message_id for item in queue):
        raise QueueEditError(message_id, "unknown")


def edited(queue: list[QueuedMessage], message_id: str, text: str) -> list[QueuedMessage]:
    return [dataclasses.replace(item, text=text) if item.id == message_id else item for item in queue]


def removed(queue: list[QueuedMessage], message_id: str) -> list[QueuedMessage]:
    return [item for item in queue if item.id != message_id]


def moved(queue: list[QueuedMessage], message_id: str, index: int, kind: QueueKind | None) -> list[QueuedMessage]:
    moving = next(item for item in queue if item.id == message_id)
    target = kind or moving.kind
    others = [item for item in queue if item.kind == target and item.id != message_id]
    position = max(0, min(len(others) + index + 1 if index < 0 else index, len(others)))
    others.insert(position, dataclasses.replace(moving, kind=target))
    rest = [item for item in queue if item.kind != target and item.id != message_id]
    return others + rest if target == "steer" else rest + others
