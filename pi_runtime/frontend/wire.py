"""Session events to JSON and back, for a front end in another process (``pi serve``'s viewers).

``event_to_wire`` is an event's Pi shape (``to_wire()``) plus pi's additions that Pi's shape leaves
out (the queue's ids, how a model was chosen): a Pi client reads the same keys it always did and
ignores the others. ``EventDecoder`` turns those records back into the typed events of
:mod:`pi_runtime.frontend.events`. ``message_update`` carries only its delta, so the decoder keeps
the live copy of the message being streamed (``StreamReplay``) and every update points at it, as
the kernel's updates point at the kernel's live message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from .events import MessageEndEvent, MessageStartEvent, MessageUpdateEvent, SessionEvent

if TYPE_CHECKING:
    from ..ai.stream_replay import StreamReplay
    from ..ai.types import AssistantMessage

EVENT_CLASSES: dict[str, type[Any]] = {cls.type: cls for cls in get_args(SessionEvent)}
"""Every event class of the union by its wire ``type``."""


def event_to_wire(event: Any) -> dict[str, Any]:
    """The event's JSON shape: Pi's, plus pi's additions (see the module docstring)."""
    wire = event.to_wire()
    extras = getattr(event, "wire_extras", None)
    if extras is not None:
        wire.update(extras())
    return wire


class EventDecoder:
    """Typed events from one session's wire records, in order.

    Args:
        streaming: The message being streamed when decoding starts mid-stream (a snapshot's), or None.
        tool_json: The argument text of its open tool calls (a snapshot's), by block index.
    """

    def __init__(self, streaming: AssistantMessage | None = None, tool_json: dict[int, str] | None = None) -> None:
        self._replay: StreamReplay | None = None
        if streaming is not None:
            self.resume(streaming, tool_json)

    @property
    def streaming(self) -> AssistantMessage | None:
        """The live copy of the message being streamed (None between messages)."""
        return self._replay.message if self._replay is not None else None

    def open_tool_json(self) -> dict[int, str]:
        """The argument text of the streaming message's open tool calls (for a snapshot)."""
        return self._replay.open_tool_json() if self._replay is not None else {}

    def resume(self, message: AssistantMessage, tool_json: dict[int, str] | None = None) -> None:
        """Go on from a message streamed so far (a snapshot's), whose next updates are still to come."""
        from ..ai.stream_replay import StreamReplay

        self._replay = StreamReplay(message, tool_json)

    def decode(self, data: dict[str, Any]) -> SessionEvent:
        """The typed event for one wire record.

        Raises:
            ValueError: An unknown ``type``, a field of the wrong shape, or an update with no
                message being streamed.
        """
        kind = data.get("type")
        if kind == "message_update":
            if self._replay is None:
                raise ValueError("message_update while no message is being streamed")
            typed = self._replay.apply(data["assistantMessageEvent"], data.get("usage"))
            return MessageUpdateEvent(self._replay.message, typed)
        cls = EVENT_CLASSES.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise ValueError(f"Unknown event type: {kind!r}")
        try:
            event = cls.from_wire(data)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"Malformed {kind} event: {type(exc).__name__}: {exc}") from exc
        if isinstance(event, MessageStartEvent) and getattr(event.message, "role", None) == "assistant":
            self.resume(event.message)
        elif isinstance(event, MessageEndEvent) and getattr(event.message, "role", None) == "assistant":
            self._replay = None
        return event
