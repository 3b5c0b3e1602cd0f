"""The agent loop against the scripted provider: event order, queues, aborts, tool failures."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from pi_runtime.agent.agent import Agent, AgentBusyError
from pi_runtime.agent.tool import FunctionTool, ToolParams, ToolResult
from pi_runtime.agent.tool_exec import TRUNCATED_ARGS_MESSAGE, BeforeToolCallResult
from pi_runtime.ai.providers.scripted import (
    ScriptedProvider,
    ScriptedResponse,
    ScriptedText,
    ScriptedToolCall,
    scripted_error,
    scripted_text,
    scripted_tool_call,
)
from pi_runtime.ai.types import TextContent
from pi_runtime.testing.waiting import eventually

_names = itertools.count()


def provider() -> ScriptedProvider:
    return ScriptedProvider(f"loop-test-{next(_names)}")


class TextParams(ToolParams):
    text: str


class SleepParams(ToolParams):
    seconds: float
    label: str = ""


def make_echo(log: list[str] | None = None) -> FunctionTool:
    async def echo(call_id, params, signal, on_update):
        if log is not None:
            log.append(params.text)
        return ToolResult.text(params.text.upper(), details={"len": len(params.text)})

    return FunctionTool("echo", "Echo text back in capitals", TextParams, echo)


def make_sleeper(log: list[str], sequential: bool = False) -> FunctionTool:
    async def sleeper(call_id, params, signal, on_update):
        log.append(f"start {params.label}")
        waiter = asyncio.ensure_future(signal.wait())
        done, _ = await asyncio.wait({waiter}, timeout=params.seconds)
        waiter.cancel()
        if signal.aborted:
            log.append(f"aborted {params.label}")
            raise RuntimeError("Tool aborted")
        log.append(f"end {params.label}")
        return ToolResult.text(f"slept {params.label}")

    return FunctionTool(
        "sleep", "Sleep", SleepParams, sleeper, execution_mode="sequential" if sequential else None
    )


def record(agent: Agent) -> list[str]:
    events: list[str] = []

    def listener(event):
        label = event.type
        message = getattr(event, "message", None)
        if event.type in ("message_start", "message_end") and message is not None:
            label += f":{message.role}"
        if event.type.startswith("tool_execution"):
            label += f":{event.tool_call_id}"
        events.append(label)

    agent.subscribe(listener)
    return events


def compress(events: list[str]) -> list[str]:
    """Collapse runs of message_update into one entry (their count depends on chunking)."""
    out: list[str] = []
    for e in events:
        if e == "message_update" and out and out[-1] == "message_update":
            continue
        out.append(e)
    return out


async def test_text_turn_event_order_matches_pi():
    p = provider().push(scripted_text("Hello there"))
    agent = Agent(p.model())
    events = record(agent)
    produced = await agent.prompt("hi")
    assert compress(events) == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_update",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert [m.role for m in produced] == ["user", "assistant"]
    assert agent.state.messages[-1].text() == "Hello there"
    assert agent.state.is_streaming is False


async def test_tool_turn_event_order_and_result_reaches_model():
    p = provider().push(scripted_tool_call("echo", {"text": "abc"}, id="c1"), scripted_text("ok"))
    agent = Agent(p.model(), tools=[make_echo()])
    events = record(agent)
    await agent.prompt("go")
    assert compress(events) == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_update",
        "message_end:assistant",
        "tool_execution_start:c1",
        "tool_execution_end:c1",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_update",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    second_request = p.requests[1][0]
    result = second_request.messages[-1]
    assert result.role == "toolResult" and result.tool_call_id == "c1"
    assert result.content[0].text == "ABC" and result.is_error is False
    assert second_request.tools[0].name == "echo"
    assert second_request.tools[0].parameters["required"] == ["text"]


async def test_parallel_tools_run_concurrently_results_in_call_order():
    log: list[str] = []
    p = provider().push(
        ScriptedResponse([
            ScriptedToolCall("sleep", {"seconds": 0.2, "label": "slow"}, id="a"),
            ScriptedToolCall("sleep", {"seconds": 0.01, "label": "fast"}, id="b"),
        ]),
        scripted_text("done"),
    )
    agent = Agent(p.model(), tools=[make_sleeper(log)])
    events = record(agent)
    await agent.prompt("go")
    # Both started before either finished, the fast one ended first...
    assert log[:2] == ["start slow", "start fast"]
    assert log[2:] == ["end fast", "end slow"]
    tool_events = [e for e in events if e.startswith("tool_execution") or e.endswith("toolResult")]
    assert tool_events == [
        "tool_execution_start:a",
        "tool_execution_start:b",
        "tool_execution_end:b",
        "tool_execution_end:a",
        "message_start:toolResult",
        "message_end:toolResult",
        "message_start:toolResult",
        "message_end:toolResult",
    ]
    # ...but the transcript keeps the assistant's call order.
    results = [m for m in agent.state.messages if m.role == "toolResult"]
    assert [r.tool_call_id for r in results] == ["a", "b"]


async def test_sequential_tool_forces_one_at_a_time():
    log: list[str] = []
    p = provider().push(
        ScriptedResponse([
            ScriptedToolCall("sleep", {"seconds": 0.05, "label": "one"}, id="a"),
            ScriptedToolCall("sleep", {"seconds": 0.01, "label": "two"}, id="b"),
        ]),
        scripted_text("done"),
    )
    agent = Agent(p.model(), tools=[make_sleeper(log, sequential=True)])
    events = record(agent)
    await agent.prompt("go")
    assert log == ["start one", "end one", "start two", "end two"]
    tool_events = [e for e in events if e.startswith("tool_execution") or e.endswith("toolResult")]
    assert tool_events == [
        "tool_execution_start:a",
        "tool_execution_end:a",
        "message_start:toolResult",
        "message_end:toolResult",
        "tool_execution_start:b",
        "tool_execution_end:b",
        "message_start:toolResult",
        "message_end:toolResult",
    ]


async def test_steering_is_delivered_after_tool_calls_before_next_model_call():
    log: list[str] = []
    p = provider().push(
        scripted_tool_call("sleep", {"seconds": 0.1, "label": "t"}),
        scripted_text("adjusted"),
    )
    agent = Agent(p.model(), tools=[make_sleeper(log)])
    events = record(agent)

    async def steer_during_tool():
        while "start t" not in log:
            await asyncio.sleep(0.005)
        agent.steer("change of plan")

    await asyncio.gather(agent.prompt("go"), steer_during_tool())
    # The tool was not interrupted; the steer went in right after its result.
    assert log == ["start t", "end t"]
    roles = [m.role for m in agent.state.messages]
    assert roles == ["user", "assistant", "toolResult", "user", "assistant"]
    assert agent.state.messages[3].content == [TextContent(text="change of plan")]
    second_request = p.requests[1][0].messages
    assert second_request[-1].role == "user" and second_request[-1].content == [TextContent(text="change of plan")]
    # Delivered inside the second turn, after its turn_start.
    idx = events.index("turn_end")
    assert events[idx + 1 : idx + 4] == ["turn_start", "message_start:user", "message_end:user"]


async def test_follow_up_waits_until_the_agent_would_stop():
    p = provider().push(
        scripted_tool_call("echo", {"text": "x"}),
        scripted_text("first answer"),
        scripted_text("second answer"),
    )
    agent = Agent(p.model(), tools=[make_echo()])
    agent.follow_up("and then this")
    await agent.prompt("start")
    roles = [m.role for m in agent.state.messages]
    # The follow-up was not taken after the tool turn, only once the agent had answered.
    assert roles == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]
    assert agent.state.messages[4].content == [TextContent(text="and then this")]
    assert len(p.requests) == 3


async def test_queue_modes_one_at_a_time_and_all():
    p = provider().push(scripted_text("a"), scripted_text("b"), scripted_text("c"))
    agent = Agent(p.model())
    agent.follow_up("f1")
    agent.follow_up("f2")
    await agent.prompt("start")
    assert [m.content[0].text for m in agent.state.messages if m.role == "user"] == ["start", "f1", "f2"]
    assert len(p.requests) == 3

    p2 = provider().push(scripted_text("a"), scripted_text("b"))
    agent2 = Agent(p2.model(), follow_up_mode="all")
    agent2.follow_up("f1")
    agent2.follow_up("f2")
    await agent2.prompt("start")
    assert len(p2.requests) == 2
    assert [m.content[0].text for m in p2.requests[1][0].messages if m.role == "user"] == ["start", "f1", "f2"]


async def test_abort_during_streaming_keeps_partial_and_stops():
    p = provider().push(ScriptedResponse([ScriptedText("x" * 400)], chunk_size=4, delay=0.01))
    agent = Agent(p.model(), tools=[make_echo()])
    events = record(agent)

    async def abort_soon():
        streamed = lambda: agent.state.streaming_message is not None and agent.state.streaming_message.text()
        assert await eventually(streamed)  # part of the answer is in
        agent.abort()

    await asyncio.gather(agent.prompt("go"), abort_soon())
    last = agent.state.messages[-1]
    assert last.role == "assistant" and last.stop_reason == "aborted"
    assert 0 < len(last.text()) < 400
    assert events[-2:] == ["turn_end", "agent_end"]
    assert len(p.requests) == 1


async def test_abort_during_tool_kills_the_tool_and_ends_the_run():
    log: list[str] = []
    p = provider().push(scripted_tool_call("sleep", {"seconds": 5, "label": "long"}), scripted_text("never"))
    agent = Agent(p.model(), tools=[make_sleeper(log)])

    async def abort_when_running():
        while "start long" not in log:
            await asyncio.sleep(0.005)
        agent.abort()

    await asyncio.wait_for(asyncio.gather(agent.prompt("go"), abort_when_running()), 2)
    assert log == ["start long", "aborted long"]
    result, closing = agent.state.messages[-2:]
    assert result.role == "toolResult" and result.is_error
    # As in Pi, the run ends with an empty aborted assistant message that made no request.
    assert closing.role == "assistant" and closing.stop_reason == "aborted" and closing.content == []
    assert closing.error_message == "This operation was aborted"
    assert len(p.requests) == 1  # no further model call after the abort


async def test_error_response_stops_without_running_tools():
    calls: list[str] = []
    p = provider().push(
        ScriptedResponse([ScriptedToolCall("echo", {"text": "x"})], error="500 upstream exploded")
    )
    agent = Agent(p.model(), tools=[make_echo(calls)])
    events = record(agent)
    await agent.prompt("go")
    assert calls == []
    assert agent.state.messages[-1].stop_reason == "error"
    assert agent.state.error_message == "500 upstream exploded"
    assert not any(e.startswith("tool_execution") for e in events)


async def test_unknown_tool_and_invalid_arguments_become_error_results():
    p = provider().push(
        ScriptedResponse([
            ScriptedToolCall("nope", {}, id="u"),
            ScriptedToolCall("echo", {"txt": 1}, id="v"),
        ]),
        scripted_text("sorry"),
    )
    agent = Agent(p.model(), tools=[make_echo()])
    await agent.prompt("go")
    results = {m.tool_call_id: m for m in agent.state.messages if m.role == "toolResult"}
    assert results["u"].is_error and results["u"].content[0].text == "Tool nope not found"
    text = results["v"].content[0].text
    assert results["v"].is_error
    assert 'Validation failed for tool "echo"' in text
    assert "text: missing" in text and '"txt": 1' in text
    assert "txt:" not in text  # an argument beyond the declared ones is not a problem (Pi lets it pass)
    assert agent.state.messages[-1].text() == "sorry"


async def test_arguments_are_refused_in_pis_words_and_extra_ones_pass():
    p = provider().push(
        ScriptedResponse([ScriptedToolCall("echo", {"text": 5}, id="t"),
                          ScriptedToolCall("echo", {"text": "hi", "encoding": "utf-8"}, id="e")]),
        scripted_text("done"),
    )
    agent = Agent(p.model(), tools=[make_echo()])
    await agent.prompt("go")
    results = {m.tool_call_id: m for m in agent.state.messages if m.role == "toolResult"}
    assert results["t"].is_error and "  - text: expected string, got integer\n" in results["t"].content[0].text
    assert not results["e"].is_error and results["e"].content[0].text == "HI"


async def test_tool_exception_is_an_error_result_not_a_crash():
    async def broken(call_id, params, signal, on_update):
        raise FileNotFoundError("no such file: x.txt")

    p = provider().push(scripted_tool_call("broken", {"text": "a"}), scripted_text("ok"))
    agent = Agent(p.model(), tools=[FunctionTool("broken", "Breaks", TextParams, broken)])
    await agent.prompt("go")
    result = agent.state.messages[2]
    assert result.is_error and result.content[0].text == "no such file: x.txt"


async def test_output_limit_tool_calls_are_not_run():
    calls: list[str] = []
    p = provider().push(
        ScriptedResponse([ScriptedToolCall("echo", {"text": "partial"})], stop_reason="length"),
        scripted_text("retrying smaller"),
    )
    agent = Agent(p.model(), tools=[make_echo(calls)])
    await agent.prompt("go")
    assert calls == []
    result = agent.state.messages[2]
    assert result.role == "toolResult" and result.is_error
    assert result.content[0].text == TRUNCATED_ARGS_MESSAGE
    assert agent.state.messages[-1].text() == "retrying smaller"


async def test_blocked_tool_call_and_failing_hook_fail_closed():
    calls: list[str] = []
    p = provider().push(
        ScriptedResponse([
            ScriptedToolCall("echo", {"text": "rm -rf /"}, id="a"),
            ScriptedToolCall("echo", {"text": "boom"}, id="b"),
            ScriptedToolCall("echo", {"text": "fine"}, id="c"),
        ]),
        scripted_text("ok"),
    )

    async def gate(ctx):
        if ctx.args.text == "boom":
            raise RuntimeError("gate crashed")
        if ctx.args.text.startswith("rm"):
            return BeforeToolCallResult(block=True, reason="Blocked: destructive command")
        return None

    agent = Agent(p.model(), tools=[make_echo(calls)], before_tool_call=gate)
    await agent.prompt("go")
    results = {m.tool_call_id: m for m in agent.state.messages if m.role == "toolResult"}
    assert results["a"].is_error and results["a"].content[0].text == "Blocked: destructive command"
    assert results["b"].is_error and "gate crashed" in results["b"].content[0].text
    assert not results["c"].is_error
    assert calls == ["fine"]


async def test_tool_updates_are_emitted_and_late_updates_dropped():
    holder: dict = {}

    async def chatty(call_id, params, signal, on_update):
        on_update(ToolResult.text("step 1"))
        on_update(ToolResult.text("step 2"))
        holder["cb"] = on_update
        return ToolResult.text("final")

    p = provider().push(scripted_tool_call("chatty", {"text": "x"}), scripted_text("ok"))
    agent = Agent(p.model(), tools=[FunctionTool("chatty", "Talks", TextParams, chatty)])
    updates: list[str] = []
    order: list[str] = []

    def listener(event):
        order.append(event.type)
        if event.type == "tool_execution_update":
            updates.append(event.partial_result.content[0].text)

    agent.subscribe(listener)
    await agent.prompt("go")
    holder["cb"](ToolResult.text("too late"))
    await asyncio.sleep(0.01)
    assert updates == ["step 1", "step 2"]
    assert order.index("tool_execution_update") < order.index("tool_execution_end")


async def test_prompt_while_streaming_is_refused_and_continue_retries():
    p = provider().push(ScriptedResponse([ScriptedText("slow")], delay=0.05), scripted_error("503 overloaded"), scripted_text("recovered"))
    agent = Agent(p.model())
    task = asyncio.ensure_future(agent.prompt("one"))
    assert await eventually(lambda: agent.is_streaming)
    with pytest.raises(AgentBusyError):
        await agent.prompt("two")
    await task
    await agent.prompt("three")
    assert agent.state.messages[-1].stop_reason == "error"
    # Drop the failed attempt and continue: the same user message is sent again.
    agent.state.messages.pop()
    await agent.continue_()
    assert agent.state.messages[-1].text() == "recovered"
    assert [m.content[0].text for m in p.requests[2][0].messages if m.role == "user"] == ["one", "three"]


async def test_convert_to_llm_turns_coding_roles_into_user_text():
    from pi_runtime.ai.types import BashExecutionMessage, CompactionSummaryMessage

    p = provider().push(scripted_text("ok"))
    agent = Agent(
        p.model(),
        messages=[
            CompactionSummaryMessage(summary="Earlier we fixed X.", tokens_before=1000),
            BashExecutionMessage(command="ls", output="a.txt\n", exit_code=0),
            BashExecutionMessage(command="secret", output="hidden", exit_code=0, exclude_from_context=True),
        ],
    )
    await agent.prompt("next")
    sent = p.requests[0][0].messages
    assert [m.role for m in sent] == ["user", "user", "user"]
    assert "<summary>\nEarlier we fixed X.\n</summary>" in sent[0].content[0].text
    assert sent[1].content[0].text == "Ran `ls`\n```\na.txt\n```"
    assert sent[2].content == [TextContent(text="next")]
