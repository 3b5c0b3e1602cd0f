"""Every session event survives the trip to JSON and back (what ``pi serve``'s viewers rely on).

The events come from a real session on the scripted provider (thinking, text, a tool call that
streams output, a steer) and, for the events such a run does not make, from hand-built samples; a
class of the union with no sample fails the test, so a new event cannot skip its ``from_wire``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any, get_args

import pytest

from pi_runtime.agent.events import ToolExecutionEndEvent, ToolExecutionUpdateEvent
from pi_runtime.agent.tool import ToolResult
from pi_runtime.ai.providers.scripted import (
    ScriptedProvider,
    ScriptedResponse,
    ScriptedText,
    ScriptedThinking,
    ScriptedToolCall,
    scripted_text,
)
from pi_runtime.ai.types import TextContent
from pi_runtime.frontend import create_agent_session
from pi_runtime.frontend.events import (
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashExecutionUpdateEvent,
    BudgetExceededEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    EntryAppendedEvent,
    ExtensionErrorEvent,
    MessageUpdateEvent,
    ModelChangedEvent,
    QueueUpdateEvent,
    SessionChangedEvent,
    SessionEvent,
    SessionInfoChangedEvent,
    ThinkingLevelChangedEvent,
)
from pi_runtime.frontend.wire import EventDecoder, event_to_wire
from pi_runtime.kernel.message_queue import QueuedMessage
from pi_runtime.session import SessionManager
from pi_runtime.session.entries import parse_entry


def _through_json(event: Any) -> dict[str, Any]:
    return json.loads(json.dumps(event_to_wire(event)))


async def _run_session_events(tmp_path) -> list[tuple[Any, Any]]:
    """(event as delivered, its decoded copy made at that moment) for every event of a real run."""
    provider = ScriptedProvider("wire-trip")
    provider.push(
        ScriptedResponse([ScriptedThinking("Let me look."), ScriptedText("Running it. "),
                          ScriptedToolCall("bash", {"command": "printf 'one\\ntwo\\n'"}, id="call_a")]),
        scripted_text("It printed one and two."),
        scripted_text("Steered."),
    )
    session = create_agent_session(cwd=str(tmp_path), agent_dir=str(tmp_path / "agent"), model=provider.model(),
                                   session_manager=SessionManager.in_memory(str(tmp_path)), no_extensions=True)
    decoder = EventDecoder()
    pairs: list[tuple[Any, Any]] = []

    async def listener(event: Any) -> None:
        if event.type == "tool_execution_start" and not any(e.type == "queue_update" for e, _ in pairs):
            await session.steer("and then stop")
        # Compared now: the live message keeps growing after this event.
        pairs.append((copy.deepcopy(event), copy.deepcopy(decoder.decode(_through_json(event)))))

    session.subscribe(listener)
    await session.prompt("Show me")
    await session.dispose()
    return pairs


def _samples() -> list[Any]:
    from pi_runtime.ai.types import Model

    model = Model(id="m-1", name="Model one", api="openai-completions", provider="loop", reasoning=True)
    entry = parse_entry({"type": "custom", "id": "e1", "parentId": None, "timestamp": "2026-01-01T00:00:00.000Z",
                         "customType": "note", "data": {"x": 1}})
    return [
        QueueUpdateEvent(["s"], ["f"], [QueuedMessage("q1", "steer", "s"), QueuedMessage("q2", "follow_up", "f", 1)]),
        CompactionStartEvent("threshold"),
        CompactionEndEvent("manual", {"summary": "S", "firstKeptEntryId": "e1", "tokensBefore": 10}, False, True),
        CompactionEndEvent("overflow", None, False, False, "too small"),
        AutoRetryStartEvent(1, 3, 2000, "529 overloaded"),
        AutoRetryEndEvent(False, 3, "still overloaded"),
        EntryAppendedEvent(entry),
        SessionInfoChangedEvent("My session"),
        SessionInfoChangedEvent(None),
        ThinkingLevelChangedEvent("high"),
        ModelChangedEvent(model, "cycle"),
        BashExecutionUpdateEvent("total 48\n", "req-1"),
        SessionChangedEvent("fork", "/tmp/x.jsonl"),
        ExtensionErrorEvent("/ext/a.py", "tool_call", "boom"),
        BudgetExceededEvent("turns", "Stopped after 3 turns"),
        ToolExecutionUpdateEvent("c1", "bash", {"command": "ls"},
                                 ToolResult([TextContent(text="partial")], {"truncated": False})),
    ]


@pytest.mark.asyncio
async def test_every_event_class_round_trips(tmp_path):
    pairs = await _run_session_events(tmp_path)
    decoder = EventDecoder()
    pairs += [(event, decoder.decode(_through_json(event))) for event in _samples()]
    for original, decoded in pairs:
        assert type(decoded) is type(original)
        if isinstance(original, ToolExecutionEndEvent) and original.duration_ms is not None:
            original = dataclasses.replace(original, duration_ms=round(original.duration_ms, 3))  # the wire's precision
        assert decoded == original, original.type
        assert event_to_wire(decoded) == event_to_wire(original)
    covered = {type(original) for original, _ in pairs}
    assert set(get_args(SessionEvent)) - covered == set()
    updates = [d for _, d in pairs if isinstance(d, MessageUpdateEvent)]
    kinds = {u.assistant_message_event.type for u in updates}
    assert {"thinking_delta", "text_delta", "toolcall_delta", "toolcall_end"} <= kinds


def test_an_update_streams_into_the_message_its_start_gave():
    decoder = EventDecoder()
    start = decoder.decode({"type": "message_start", "message": {"role": "assistant", "content": [],
                                                                 "stopReason": "pending"}})
    first = decoder.decode({"type": "message_update", "usage": {"input": 3, "output": 1, "totalTokens": 4},
                            "assistantMessageEvent": {"type": "text_start", "contentIndex": 0}})
    decoder.decode({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                                                        "delta": "Hel"}})
    last = decoder.decode({"type": "message_update", "assistantMessageEvent": {"type": "text_delta",
                                                                               "contentIndex": 0, "delta": "lo"}})
    assert first.message is last.message is start.message  # type: ignore[union-attr]
    assert start.message.text() == "Hello" and start.message.usage.total_tokens == 4  # type: ignore[union-attr]


def test_bad_records_are_value_errors():
    decoder = EventDecoder()
    with pytest.raises(ValueError, match="no message is being streamed"):
        decoder.decode({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "x"}})
    with pytest.raises(ValueError, match="Unknown event type"):
        decoder.decode({"type": "no_such_event"})
    with pytest.raises(ValueError, match="Malformed auto_retry_start"):
        decoder.decode({"type": "auto_retry_start"})
