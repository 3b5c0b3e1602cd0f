"""The queue as an editable list: ids, edit, remove, move, re-kind, and the race with delivery.

The agent is held inside a tool call that waits on an event the test sets, so messages stay
queued exactly as long as the test needs; what the model then received shows the queue's order.
"""

from __future__ import annotations

import asyncio

import pytest

from pi_runtime.agent.tool import AgentTool, ToolResult
from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.ai.types import CustomMessage, ImageContent, TextContent
from pi_runtime.frontend import QueuedMessage, QueueEditError
from pi_runtime.testing.waiting import eventually

from .conftest import record

PNG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")


class HoldTool(AgentTool):
    """Runs until the test releases it."""

    name = "hold"
    description = "Wait."

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def execute(self, call_id, params, signal, on_update):
        self.started.set()
        await self.release.wait()
        return ToolResult(content=[TextContent(text="held")])


class HoldAgainTool(HoldTool):
    name = "hold_again"


async def held_session(make_session, *answers, tools=()):
    hold = HoldTool()
    session = make_session(custom_tools=[hold, *tools])
    session.provider.push(scripted_tool_call("hold", {}), *answers)
    run = asyncio.ensure_future(session.prompt("start"))
    await hold.started.wait()
    return session, hold, run


def user_texts(context) -> list[str]:
    out = []
    for m in context.messages:
        if m.role == "user":
            out.append(m.content if isinstance(m.content, str) else "".join(getattr(b, "text", "") for b in m.content))
    return out


def shape(queue: list[QueuedMessage]) -> list[tuple[str, str, str]]:
    return [(q.id, q.kind, q.text) for q in queue]


async def test_queued_messages_are_listed_edited_removed_moved_and_delivered_in_that_order(make_session):
    session, hold, run = await held_session(
        make_session, scripted_text("after steers"), scripted_text("f1"), scripted_text("f2"), scripted_text("f3"))
    session.set_steering_mode("all")
    events = record(session)
    await session.steer("steer A")
    await session.steer("steer B", [PNG])
    await session.follow_up("follow C")
    await session.follow_up("follow D")
    queue = session.queued_messages()
    a, b, c, d = (q.id for q in queue)
    assert len({a, b, c, d}) == 4
    assert shape(queue) == [(a, "steer", "steer A"), (b, "steer", "steer B"), (c, "follow_up", "follow C"),
                            (d, "follow_up", "follow D")]
    assert [q.images for q in queue] == [0, 1, 0, 0]

    edited = session.edit_queued(b, "steer B, edited")
    assert shape(edited)[1] == (b, "steer", "steer B, edited") and edited[1].images == 1  # the image stays
    assert shape(session.remove_queued(a)) == [(b, "steer", "steer B, edited"), (c, "follow_up", "follow C"),
                                              (d, "follow_up", "follow D")]
    # A follow-up becomes a steer (placed first), a steer becomes the last follow-up.
    session.move_queued(d, 0, "steer")
    moved = session.move_queued(b, -1, "follow_up")
    assert shape(moved) == [(d, "steer", "follow D"), (c, "follow_up", "follow C"), (b, "follow_up", "steer B, edited")]
    # Reorder within a kind.
    assert [q.id for q in session.move_queued(b, 0)] == [d, b, c]
    assert session.get_state()["pendingMessageCount"] == 3

    # Each change was announced with Pi's texts and the ids beside them.
    def last_update():
        return [e for e in events if e.type == "queue_update"][-1]

    assert await eventually(lambda: [q.id for q in last_update().items] == [d, b, c])
    assert last_update().to_wire() == {"type": "queue_update", "steering": ["follow D"],
                                       "followUp": ["steer B, edited", "follow C"]}

    hold.release.set()
    await run
    requests = [ctx for ctx, _ in session.provider.requests]
    assert user_texts(requests[1]) == ["start", "follow D"]
    assert user_texts(requests[2])[-1] == "steer B, edited"
    assert user_texts(requests[3])[-1] == "follow C"
    sent_b = [m for m in requests[2].messages if m.role == "user"][-1]
    assert [type(block) for block in sent_b.content] == [TextContent, ImageContent]
    assert session.queued_messages() == [] and session.get_state()["pendingMessageCount"] == 0
    assert "steer A" not in str([user_texts(r) for r in requests])


async def test_an_edit_of_a_message_the_agent_already_took_says_so_and_changes_nothing_else(make_session):
    again = HoldAgainTool()
    session, hold, run = await held_session(make_session, scripted_tool_call("hold_again", {}), scripted_text("ok"),
                                            scripted_text("ok 2"), tools=[again])
    await session.steer("first")
    await session.follow_up("second")
    first, second = (q.id for q in session.queued_messages())
    hold.release.set()
    # The front end listed the queue; the agent takes "first" before the edit arrives.
    await again.started.wait()
    with pytest.raises(QueueEditError) as gone:
        session.edit_queued(first, "too late")
    assert gone.value.fate == "sent" and "already sent" in str(gone.value)
    with pytest.raises(QueueEditError, match="already sent"):
        session.move_queued(first, 0, "follow_up")
    assert shape(session.queued_messages()) == [(second, "follow_up", "second")]
    again.release.set()
    await run
    texts = user_texts(session.provider.requests[-1][0])
    assert texts == ["start", "first", "second"]


async def test_removed_cleared_and_unknown_ids_are_refused_clearly(make_session):
    session, hold, run = await held_session(make_session, scripted_text("done"))
    await session.follow_up("one")
    await session.follow_up("two")
    one, two = (q.id for q in session.queued_messages())
    session.remove_queued(one)
    with pytest.raises(QueueEditError) as removed:
        session.edit_queued(one, "x")
    assert removed.value.fate == "removed"
    assert session.clear_queue() == ([], ["two"])
    with pytest.raises(QueueEditError, match="removed from the queue"):
        session.remove_queued(two)
    with pytest.raises(QueueEditError, match="q999 is not a queued message"):
        session.edit_queued("q999", "x")
    hold.release.set()
    await run
    assert user_texts(session.provider.requests[-1][0]) == ["start"]


async def test_extension_messages_in_the_agent_queue_are_not_listed_or_counted(make_session):
    session, hold, run = await held_session(make_session, scripted_text("done"))
    session.agent.follow_up(CustomMessage(custom_type="note", content="from an extension"))
    await session.follow_up("mine")
    assert [q.text for q in session.queued_messages()] == ["mine"]
    assert session.get_state()["pendingMessageCount"] == 1
    assert session.follow_up_texts == ["mine"]
    hold.release.set()
    await run
