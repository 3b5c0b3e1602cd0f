"""``Transcript``: the agent's messages, whose stored part stays as wire dicts until needed.

Resuming a long session used to validate every stored message into typed objects before
the first request (0.1 s for 20,000 messages), although a ``pi -p`` run only sends them. A
Transcript holds the messages read from the session file as their wire dicts, plus the
messages added since as objects. Whatever reads it as a sequence of messages (iteration,
indexing into the stored part, slicing, removal) gets objects: the stored part is then
validated once, in one batch, and the Transcript behaves as the list it replaces. The paths
a run takes every time avoid that: the request is built from the dicts (``agent/convert.py``,
``ai/transform.py`` and the providers that accept wire messages), ``reversed()`` and
negative indexes reach the new messages first, ``len`` and ``has_role`` read the dicts, and
``wire_view`` gives dicts to the context estimate.

A front end shows a window of a long history (the last screenful of 20,000 messages): with
``materialize_one``, an index or a short slice into the stored part validates only the
messages it reaches, and the objects made so are the ones a later full validation keeps.

The stored dicts are the session file's own and are never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableSequence
from itertools import repeat
from typing import Any, overload

Materialize = Callable[..., list[Any]]
"""Validates the stored dicts into message objects (in order, one per dict). With
``materialize_one`` it is called as ``materialize(stored, known)``: ``known`` maps indexes to the
objects already made one by one, which the returned list must hold at those indexes."""
MaterializeOne = Callable[[int], Any]
"""Validates the stored message at one index."""
WINDOW_LIMIT = 1_000
"""Longest slice of the stored part validated message by message (past it, all at once)."""


class Transcript(MutableSequence[Any]):
    """A message list whose stored part is validated on first use (see the module docstring).

    Args:
        stored: The messages read from the session file, as wire dicts, oldest first.
        materialize: Validates ``stored`` (called at most once).
    """

    __slots__ = ("_items", "_known", "_materialize", "_one", "_roles", "_stored", "_tail")

    def __init__(self, stored: list[dict[str, Any]], materialize: Materialize,
                 materialize_one: MaterializeOne | None = None) -> None:
        """
        Args:
            stored: The messages read from the session file, as wire dicts, oldest first.
            materialize: Validates ``stored`` (called at most once).
            materialize_one: Validates one stored message (a window's reads); None: any read
                of the stored part validates all of it.
        """
        self._stored = stored
        self._materialize: Materialize | None = materialize
        self._one = materialize_one
        self._known: dict[int, Any] = {}
        """Stored messages validated one by one, by index (while pending)."""
        self._tail: list[Any] = []
        self._items: list[Any] | None = None
        self._roles: frozenset[object] | None = None

    # ------------------------------------------------------------------ the lazy part

    @property
    def pending(self) -> bool:
        """Whether the stored part is still wire dicts."""
        return self._items is None

    def stored_dicts(self) -> list[dict[str, Any]]:
        """The stored part as wire dicts (empty once validated: use the objects then)."""
        return self._stored if self._items is None else []

    def stored_roles(self) -> frozenset[object]:
        """The roles among the stored dicts, read in one pass the first time: what a run asks of
        them before each request (is there a system message, is any role one a provider does not
        take) is then answered without stepping through 20,000 messages each time."""
        if self._roles is None:
            try:
                # (``map`` over ``dict.get``: a third cheaper than a comprehension on 20,000 dicts.)
                self._roles = frozenset(map(dict.get, self._stored, repeat("role")))
            except TypeError:  # a damaged message's role that is a list: one no provider takes
                self._roles = frozenset(r if isinstance(r, str) else None for r in (m.get("role") for m in self._stored))
        return self._roles

    def added(self) -> list[Any]:
        """The messages added after loading while the stored part is pending (else empty)."""
        return self._tail if self._items is None else []

    def objects(self) -> list[Any]:
        """Every message as an object (validates the stored part the first time)."""
        if self._items is None:
            assert self._materialize is not None
            stored = self._materialize(self._stored, self._known) if self._one else self._materialize(self._stored)
            self._items = [*stored, *self._tail]
            # What validating needed (the file's context, the windowed objects) is not needed again.
            self._tail, self._known, self._materialize, self._one = [], {}, None, None
        return self._items

    def _stored_one(self, position: int) -> Any:
        """The stored message at ``position`` as an object, validated alone (see ``materialize_one``)."""
        known = self._known.get(position)
        if known is None:
            assert self._one is not None
            known = self._known[position] = self._one(position)
        return known

    def wire_view(self) -> list[dict[str, Any]]:
        """Every message as a wire dict, without validating the stored part."""
        if self._items is None:
            return [*self._stored, *(m.to_wire() for m in self._tail)]
        return [m if isinstance(m, dict) else m.to_wire() for m in self._items]

    # ------------------------------------------------------------------ the sequence

    def __len__(self) -> int:
        if self._items is None:
            return len(self._stored) + len(self._tail)
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if self._items is None and isinstance(index, int):
            stored = len(self._stored)
            position = index + len(self) if index < 0 else index
            if stored <= position < stored + len(self._tail):
                return self._tail[position - stored]
            if self._one is not None and 0 <= position < stored:
                return self._stored_one(position)
        elif self._items is None and self._one is not None and isinstance(index, slice):
            window = range(*index.indices(len(self)))
            if len(window) <= WINDOW_LIMIT:
                return [self[i] for i in window]
        return self.objects()[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        self.objects()[index] = value

    def __delitem__(self, index: int | slice) -> None:
        del self.objects()[index]

    def insert(self, index: int, value: Any) -> None:
        self.objects().insert(index, value)

    def append(self, value: Any) -> None:
        (self._tail if self._items is None else self._items).append(value)

    def extend(self, values: Iterable[Any]) -> None:
        (self._tail if self._items is None else self._items).extend(values)

    def copy(self) -> list[Any]:
        """A plain list of the messages (as ``list.copy``)."""
        return list(self.objects())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.objects())

    def __reversed__(self) -> Iterator[Any]:
        if self._items is not None:
            yield from reversed(self._items)
            return
        tail = list(self._tail)
        yield from reversed(tail)
        # Past the added messages: the stored ones, as objects.
        items = self.objects()
        yield from reversed(items[: len(items) - len(tail)])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, Transcript)):
            return self.objects() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like list

    def __repr__(self) -> str:
        state = f"{len(self._stored)} stored pending" if self._items is None else "validated"
        return f"<Transcript {len(self)} messages, {state}>"


def has_role(messages: Iterable[Any], role: str) -> bool:
    """Whether any message has ``role``, reading a pending Transcript's dicts as they are."""
    if isinstance(messages, Transcript) and messages.pending:
        return role in messages.stored_roles() or any(getattr(m, "role", None) == role for m in messages.added())
    return any(getattr(m, "role", None) == role for m in messages)


def message_at(messages: Any, index: int) -> Any:
    """``messages[index]`` (0 ≤ index < len), as a pending Transcript holds it: a stored message
    as its wire dict, without validating the stored part."""
    if isinstance(messages, Transcript) and messages.pending:
        stored = messages.stored_dicts()
        return stored[index] if index < len(stored) else messages.added()[index - len(stored)]
    return messages[index]


def messages_from(messages: Any, start: int) -> list[Any]:
    """``messages[start:]``, as a pending Transcript holds them: stored messages as wire dicts,
    without validating the stored part."""
    if isinstance(messages, Transcript) and messages.pending:
        stored = messages.stored_dicts()
        return [*stored[start:], *messages.added()[max(0, start - len(stored)):]]
    return list(messages[start:])
