"""Tool and prompt changes are declared before every request of a run (Pi 1.6), from a running
record of what the transcript declared."""

from __future__ import annotations

from pi_runtime.agent.tool import FunctionTool, ToolParams, ToolResult
from pi_runtime.agent.transcript import Transcript
from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.ai.types import SystemMessage, UserMessage, parse_message
from pi_runtime.kernel.tool_declarations import DeclaredLoadout

from .conftest import record, types


async def _late(call_id, params, signal, on_update):
    return ToolResult.text("late")


LATE = FunctionTool("late", "Registered mid-run", ToolParams, _late)


def add_tool_after_first_call(session, *, steer: str | None = None):
    """What an extension's register_tool does, from the first tool_execution_end."""
    done = []

    async def listener(event):
        if event.type == "tool_execution_end" and not done:
            done.append(True)
            session.agent.state.tools = [*session.agent.state.tools, LATE]
            session.refresh_system_prompt()
            if steer is not None:
                await session.prompt(steer, streaming_behavior="steer")

    session.subscribe(listener)


async def test_a_tool_added_during_a_run_is_declared_before_the_next_request(make_session):
    session = make_session()
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("done"))
    add_tool_after_first_call(session)
    events = record(session)
    await session.prompt("go")
    await session.wait_for_idle()
    steps = types(events)
    second = steps.index("turn_start", steps.index("turn_end"))
    assert steps[second:second + 4] == ["turn_start", "message_start:system", "message_end:system",
                                        "message_start:assistant"]
    change = [m for m in session.messages if m.role == "system"][1]
    assert [t["name"] for t in change.tools_added] == ["late"] and change.tools_removed is None
    first, then = (request[0] for request in session.provider.requests)
    assert "late" not in [t.name for t in first.tools] and "late" in [t.name for t in then.tools]
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "toolResult", "system", "assistant"]


async def test_the_declaration_goes_before_a_steering_message_of_the_same_turn(make_session):
    session = make_session()
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_text("done"))
    add_tool_after_first_call(session, steer="and also this")
    await session.prompt("go")
    await session.wait_for_idle()
    roles = [m.role for m in session.messages]
    assert roles == ["system", "user", "assistant", "toolResult", "system", "user", "assistant"]
    assert session.messages[5].content[0].text == "and also this"


async def test_nothing_is_declared_when_nothing_changed(make_session):
    session = make_session()
    session.provider.push(scripted_tool_call("ls", {"path": "."}), scripted_tool_call("ls", {"path": "."}),
                          scripted_text("done"))
    await session.prompt("go")
    await session.wait_for_idle()
    assert [m.role for m in session.messages].count("system") == 1


def _system(added=(), removed=(), sections=None):
    return SystemMessage(tools_added=[{"name": n, "description": n} for n in added] or None,
                         tools_removed=[{"name": n} for n in removed] or None, sections=sections)


def test_the_record_reads_only_what_was_added_and_matches_a_full_replay():
    messages = [_system(["a", "b"], sections={"s": "one"}), UserMessage(content="hi")]
    declared = DeclaredLoadout()
    declared.read(messages)
    messages += [_system(removed=["a"], sections={"s": None, "t": "two"}), UserMessage(content="more")]
    declared.read(messages)
    fresh = DeclaredLoadout()
    fresh.read(messages)
    assert declared.tools == fresh.tools == {"b": {"name": "b", "description": "b"}}
    assert declared.sections == fresh.sections == {"t": "two"}
    tools = [{"name": "b", "description": "b"}, {"name": "c", "description": "c"}]
    change = declared.change(tools, {"t": "two"})
    assert change.tools_added == [{"name": "c", "description": "c"}]
    assert change.tools_removed is None and change.sections is None
    assert declared.change(tools[:1], {"t": "two"}) is None


def test_a_replaced_or_edited_transcript_is_read_again_from_the_start():
    declared = DeclaredLoadout()
    messages = [_system(["a"]), UserMessage(content="hi")]
    declared.read(messages)
    # Another list (a tree navigation, a compaction, another session): read from its start.
    other = [_system(["z"])]
    declared.read(other)
    assert set(declared.tools) == {"z"}
    # The same list edited in place: its last read message is not where it was.
    other[0] = _system(["y"])
    other.append(UserMessage(content="x"))
    declared.read(other)
    assert set(declared.tools) == {"y"}
    # Shrunk: read again as well.
    del other[1:]
    other[0] = _system(["w"])
    declared.read(other)
    assert set(declared.tools) == {"w"}


def test_reading_a_resumed_transcript_does_not_validate_its_stored_part():
    stored = [_system(["a"]).to_wire(), UserMessage(content="hi").to_wire()]
    transcript = Transcript(stored, lambda dicts: [parse_message(d) for d in dicts])
    declared = DeclaredLoadout()
    declared.read(transcript)
    transcript.append(_system(["b"]))
    declared.read(transcript)
    assert transcript.pending
    assert set(declared.tools) == {"a", "b"}
    transcript.objects()  # validated since: the stored part is read again, with the same result
    declared.read(transcript)
    assert set(declared.tools) == {"a", "b"}


def test_a_resumed_transcript_without_system_messages_declares_only_what_was_added():
    stored = [UserMessage(content="hi").to_wire(), UserMessage(content="again").to_wire()]
    transcript = Transcript(stored, lambda dicts: [parse_message(d) for d in dicts])
    transcript.append(_system(["a"]))
    declared = DeclaredLoadout()
    declared.read(transcript)
    assert set(declared.tools) == {"a"} and transcript.pending
    transcript.append(_system(["b"]))
    declared.read(transcript)  # only what was added since
    fresh = DeclaredLoadout()
    fresh.read(transcript.objects())
    assert declared.tools == fresh.tools and set(fresh.tools) == {"a", "b"}
