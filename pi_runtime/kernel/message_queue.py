"""``MessageQueue``: the user's queued steering and follow-up messages as an editable list.

The agent's two queues stay the truth: the loop takes from them, and nothing here runs between
its steps. This part gives each message the user queued a stable id (``q1``, ``q2``, …) so a
front end can list, edit, delete, reorder and re-kind them while the agent runs. Every operation
is synchronous on the event loop, so it either sees a message still queued and changes that very
message, or sees it gone and says so: a message the loop took between a front end's listing and
its edit is reported as already sent, never confused with another one.

Extension messages queued through the agent (custom messages) are not listed, counted or
edited here: Pi's queue, its ``queue_update`` and its ``pendingMessageCount`` hold only what the
user queued.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import count
from typing import Any, Literal

from ..agent.agent import Agent, QueueKind
from ..ai.types import ImageContent, TextContent, UserMessage
from ..records import record

Fate = Literal["sent", "removed", "unknown"]

_REMEMBERED_FATES = 1024
"""How many ids that left the queue are remembered (so an edit of one says why it failed)."""


@record(frozen=True, slots=True)
class QueuedMessage:
    """One message waiting in the queue, as a front end shows it."""

    id: str
    """Stable while the message is queued (edits, moves and kind changes keep it)."""
    kind: QueueKind
    """``steer`` (delivered after the current tool calls) or ``follow_up`` (when the agent would stop)."""
    text: str
    images: int = 0
    """How many images go with the text (editing the text keeps them)."""

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "kind": "followUp" if self.kind == "follow_up" else "steer",
                "text": self.text, "images": self.images}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> QueuedMessage:
        """A queued message from its wire shape (``get_queue``, pi's queue commands)."""
        return cls(str(data["id"]), "follow_up" if data.get("kind") == "followUp" else "steer",
                   str(data.get("text", "")), int(data.get("images") or 0))


class QueueEditError(LookupError):
    """A queue operation named a message that is not queued (any more).

    Attributes:
        message_id: The id the caller gave.
        fate: ``sent`` (the agent took it), ``removed`` (deleted or cleared) or ``unknown``.
    """

    def __init__(self, message_id: str, fate: Fate) -> None:
        self.message_id = message_id
        self.fate: Fate = fate
        reason = {"sent": "was already sent", "removed": "was removed from the queue",
                  "unknown": "is not a queued message"}[fate]
        super().__init__(f"Queued message {message_id} {reason}")


def _images(message: Any) -> list[ImageContent]:
    content = getattr(message, "content", "")
    return [] if isinstance(content, str) else [b for b in content if isinstance(b, ImageContent)]


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


def _user_message(text: str, images: list[ImageContent]) -> UserMessage:
    return UserMessage(content=[TextContent(text=text), *images])  # blocks, as Pi stores every user message


class MessageQueue:
    """Ids and typed operations over one agent's steering and follow-up queues.

    Args:
        agent: Owns the two queues; its loop takes messages from them.
    """

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._ids = (f"q{n}" for n in count(1))
        self._queued: dict[str, Any] = {}
        """id → the message object the agent holds (matched by identity)."""
        self._fates: OrderedDict[str, Fate] = OrderedDict()

    # ------------------------------------------------------------------ adding and leaving

    def add(self, message: UserMessage, kind: QueueKind) -> str:
        """Queue ``message`` as ``kind``; returns its id."""
        message_id = next(self._ids)
        self._queued[message_id] = message
        if kind == "steer":
            self._agent.steer(message)
        else:
            self._agent.follow_up(message)
        return message_id

    def mark_sent(self, messages: list[Any]) -> None:
        """The loop took ``messages`` (called synchronously as it takes them)."""
        taken = {id(m) for m in messages}
        for message_id, message in list(self._queued.items()):
            if id(message) in taken:
                self._forget(message_id, "sent")

    def clear(self) -> list[QueuedMessage]:
        """Drop every queued message (the user's and extensions'); returns the user's, in order."""
        items = self.items()
        self._agent.clear_all_queues()
        for item in items:
            self._forget(item.id, "removed")
        return items

    def _forget(self, message_id: str, fate: Fate) -> None:
        self._queued.pop(message_id, None)
        self._fates[message_id] = fate
        while len(self._fates) > _REMEMBERED_FATES:
            self._fates.popitem(last=False)

    # ------------------------------------------------------------------ reading

    def items(self) -> list[QueuedMessage]:
        """The user's queued messages: steering first, then follow-ups, each in delivery order."""
        by_identity = {id(m): message_id for message_id, m in self._queued.items()}
        out: list[QueuedMessage] = []
        seen: set[str] = set()
        queues: tuple[tuple[QueueKind, list[Any]], ...] = (
            ("steer", self._agent.steering_queue), ("follow_up", self._agent.follow_up_queue))
        for kind, queue in queues:
            for message in queue:
                message_id = by_identity.get(id(message))
                if message_id is None or self._queued[message_id] is not message:
                    continue  # an extension's message: not the user's to edit
                seen.add(message_id)
                out.append(QueuedMessage(message_id, kind, _text(message), len(_images(message))))
        for message_id in [i for i in self._queued if i not in seen]:
            # Left the agent's queues another way (a session switch cleared them).
            self._forget(message_id, "removed")
        return out

    def texts(self, kind: QueueKind) -> list[str]:
        return [item.text for item in self.items() if item.kind == kind]

    # ------------------------------------------------------------------ editing

    def _message(self, message_id: str) -> Any:
        message = self._queued.get(message_id)
        if message is None or not self._still_queued(message):
            if message is not None:
                self._forget(message_id, "removed")
            raise QueueEditError(message_id, self._fates.get(message_id, "unknown"))
        return message

    def _still_queued(self, message: Any) -> bool:
        return any(m is message for m in (*self._agent.steering_queue, *self._agent.follow_up_queue))

    def edit(self, message_id: str, text: str) -> list[QueuedMessage]:
        """Replace the text of a queued message (its images, kind, place and id stay).

        Raises:
            QueueEditError: The message is not queued any more (sent, removed) or never was.
        """
        old = self._message(message_id)
        new = _user_message(text, _images(old))
        self._agent.replace_queued(old, new)
        self._queued[message_id] = new
        return self.items()

    def remove(self, message_id: str) -> list[QueuedMessage]:
        """Delete a queued message.

        Raises:
            QueueEditError: The message is not queued any more or never was.
        """
        self._agent.remove_queued(self._message(message_id))
        self._forget(message_id, "removed")
        return self.items()

    def move(self, message_id: str, index: int, kind: QueueKind | None = None) -> list[QueuedMessage]:
        """Move a queued message to position ``index`` among the ``kind`` messages (its own kind when None).

        ``index`` counts the user's messages of that kind after the move (0 first; past the end or
        negative from the end: -1 is last). Changing ``kind`` turns a steer into a follow-up
        or back.

        Raises:
            QueueEditError: The message is not queued any more or never was.
        """
        message = self._message(message_id)
        current = next(item for item in self.items() if item.id == message_id)
        target: QueueKind = kind or current.kind
        others = [item.id for item in self.items() if item.kind == target and item.id != message_id]
        position = len(others) + index + 1 if index < 0 else index
        position = max(0, min(position, len(others)))
        before = self._queued[others[position]] if position < len(others) else None
        self._agent.place_queued(message, target, before)
        return self.items()
