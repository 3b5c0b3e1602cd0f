"""``StreamShadow``: how much of the answer being streamed a served session's subscribers have had.

A viewer that attaches mid-answer, or a front end that subscribes after the session was built,
must draw the answer so far and then grow it with the deltas that follow, without a piece twice
or a piece missing. The viewer's copy cannot say where "so far" ends: it applies a record as it
arrives, while its events reach subscribers later, from a queue. So the shadow listens first, in
delivery order, and counts per content block what was delivered; a new subscriber is given a
``message_start`` and one delta per block up to exactly there, then the queue's own events.
"""

from __future__ import annotations

from typing import Any

from ..ai.events import (
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ..frontend.events import (
    AgentSettledEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    SessionChangedEvent,
    SessionEvent,
)


class StreamShadow:
    """Listens to a session's delivered events (it must be the first subscriber)."""

    def __init__(self, streaming: Any = None) -> None:
        """``streaming``: the answer in the attach snapshot, as far as it got (None: nothing streams)."""
        self._message: Any = None
        self._delivered: dict[int, int] = {}
        """Content index → characters of that text or thinking block delivered."""
        self._tools: set[int] = set()
        """Content indices of the tool calls delivered."""
        if streaming is not None:
            self.restart(streaming)

    def restart(self, streaming: Any) -> None:
        """The snapshot's partial answer is delivered as it stands (attach, or a resync)."""
        self._message = streaming
        self._delivered, self._tools = {}, set()
        if streaming is None:
            return
        for index, block in enumerate(streaming.content):
            kind = getattr(block, "type", "")
            if kind == "text":
                self._delivered[index] = len(block.text)
            elif kind == "thinking":
                self._delivered[index] = len(block.thinking)
            elif kind == "toolCall":
                self._tools.add(index)

    def __call__(self, event: SessionEvent) -> None:
        match event:
            case MessageStartEvent(message=message) if getattr(message, "role", None) == "assistant":
                self._message, self._delivered, self._tools = message, {}, set()
            case MessageUpdateEvent(message=message, assistant_message_event=sub):
                self._message = message
                if isinstance(sub, (TextDeltaEvent, ThinkingDeltaEvent)):
                    self._delivered[sub.content_index] = self._delivered.get(sub.content_index, 0) + len(sub.delta)
                elif isinstance(sub, (TextStartEvent, ThinkingStartEvent)):
                    self._delivered.setdefault(sub.content_index, 0)
                elif isinstance(sub, (TextEndEvent, ThinkingEndEvent)):
                    self._delivered[sub.content_index] = len(sub.content)
                elif isinstance(sub, (ToolCallStartEvent, ToolCallDeltaEvent, ToolCallEndEvent)):
                    self._tools.add(sub.content_index)
            case MessageEndEvent() | AgentSettledEvent() | SessionChangedEvent():
                self._message, self._delivered, self._tools = None, {}, set()
            case _:
                pass

    def catch_up(self) -> list[SessionEvent]:
        """The events that bring a new subscriber to where the others are: the answer so far."""
        message = self._message
        if message is None:
            return []
        events: list[SessionEvent] = [MessageStartEvent(message)]
        for index, block in enumerate(message.content):
            kind = getattr(block, "type", "")
            if index in self._tools and kind == "toolCall":
                events.append(MessageUpdateEvent(message, ToolCallStartEvent(index, message)))
            elif index in self._delivered and kind in ("text", "thinking"):
                text = (block.text if kind == "text" else block.thinking)[:self._delivered[index]]
                delta_type = TextDeltaEvent if kind == "text" else ThinkingDeltaEvent
                events.append(MessageUpdateEvent(message, delta_type(index, text, message)))
        return events
