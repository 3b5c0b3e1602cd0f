"""Running one assistant message's tool calls.

Per call: find the tool (unknown → error result), validate the arguments with its parameter
model, ask the ``before_tool_call`` hook (it may block with a reason), execute with the
run's abort signal and an update callback, then let ``after_tool_call`` adjust the result.
A failing tool becomes an ``isError`` result; nothing here raises into the loop.

Parallel (default): preflight in order, run the allowed calls concurrently, report each
``tool_execution_end`` as it finishes, then emit the toolResult messages in call order.
Sequential (any tool in the batch asks for it, the agent is configured so, or a gate checks
each call, see ``Agent.checks_each_call``): one by one, each call's ``before_tool_call``
right before it runs, so a check sees what the calls before it changed (a symlink an earlier
call made is resolved, not the path as it was when the batch arrived).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from .. import deep_json
from ..ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from ..records import record
from .events import (
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from .tool import AgentTool, ToolFailed, ToolResult

if TYPE_CHECKING:
    from .loop_host import LoopHost

TRUNCATED_ARGS_MESSAGE = (
    "The tool was not run: the response hit the output token limit, so its arguments may be "
    "truncated. Retry with a smaller change (for example, split a large write into parts)."
)


@record
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None
    terminate: bool = False


@record
class AfterToolCallResult:
    content: list[Any] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


@record
class ToolCallContext:
    """What the before/after hooks see."""

    tool_call: ToolCall
    args: Any
    assistant_message: AssistantMessage
    result: ToolResult | None = None
    is_error: bool = False


BeforeHook = Callable[[ToolCallContext], Awaitable[BeforeToolCallResult | None]]
"""Contract: may raise; an exception blocks the call (fail closed) with its message."""
AfterHook = Callable[[ToolCallContext], Awaitable[AfterToolCallResult | None]]
"""Contract: must not raise; an exception is ignored and the original result kept."""


@record
class _Outcome:
    call: ToolCall
    result: ToolResult
    is_error: bool
    duration_ms: float | None = None


def _error(text: str) -> ToolResult:
    return ToolResult(content=[TextContent(text=text)], details={})


def format_validation_error(tool: AgentTool, exc: ValueError, args: Any) -> str:
    """The text the model gets back for arguments its tool's parameter model refused.

    ``exc`` is a ``jsonmodel`` or pydantic ``ValidationError`` (an extension's own pydantic
    params); both list their problems through ``errors()``.
    """
    lines = [f'Validation failed for tool "{tool.name}":']
    errors = exc.errors() if callable(getattr(exc, "errors", None)) else [{"msg": str(exc)}]  # type: ignore[attr-defined]
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ())) or "root"
        lines.append(f"  - {where}: {_problem(err)}")
    lines.append("")
    lines.append("Received arguments:")
    lines.append(_shown_arguments(args))
    return "\n".join(lines)


_EXPECTED_JSON_TYPE = {
    "string_type": "string", "int_type": "integer", "int_parsing": "integer", "int_from_float": "integer",
    "float_type": "number", "float_parsing": "number", "bool_type": "boolean", "bool_parsing": "boolean",
    "list_type": "array", "dict_type": "object", "model_type": "object", "none_required": "null",
}
"""The JSON type a parameter model's type error asked for, to word it as Pi's schema check does."""


def _problem(err: Mapping[str, object]) -> str:
    """One refused argument in Pi's words ("missing", "expected string, got integer", "unknown
    field"): the model reads the same text from pi as from Pi. Other problems keep the model's text."""
    kind = err.get("type")
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        return "unknown field"
    expected = _EXPECTED_JSON_TYPE.get(str(kind))
    if expected is not None and "input" in err:
        return f"expected {expected}, got {_json_type(err['input'])}"
    return str(err.get("msg"))


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


MAX_SHOWN_ARGUMENTS = 20_000
"""Characters of refused arguments echoed back to the model (and so into the session file)."""


def _capped(text: str) -> str:
    if len(text) <= MAX_SHOWN_ARGUMENTS:
        return text
    return f"{text[:MAX_SHOWN_ARGUMENTS]}\n[... {len(text) - MAX_SHOWN_ARGUMENTS} more characters]"


def _shown_arguments(args: Any) -> str:
    # Indented as Pi does, except past a modest depth: indentation grows with the square of
    # the depth (3,000 levels became 18 MB of spaces in one tool result).
    compact = deep_json.dumps(args, ensure_ascii=False, default=str)
    if len(compact) > MAX_SHOWN_ARGUMENTS:
        return _capped(compact)
    if compact.count("[") + compact.count("{") > 200:
        return compact
    return deep_json.dumps(args, indent=2, ensure_ascii=False, default=str)


class ToolBatch:
    def __init__(self, agent: LoopHost, message: AssistantMessage, emit: Callable[[Any], Awaitable[None]]):
        self.agent = agent
        self.message = message
        self.emit = emit
        self.signal = agent.signal

    async def run(self, calls: list[ToolCall]) -> tuple[list[ToolResultMessage], bool]:
        """Returns the results in call order and whether every result asked to terminate."""
        tools = {t.name: t for t in self.agent.state.tools}
        gated = self.agent.checks_each_call
        sequential = self.agent.tool_execution == "sequential" or any(
            getattr(tools.get(c.name), "execution_mode", None) == "sequential" for c in calls
        ) or (len(calls) > 1 and gated is not None and gated())
        outcomes: dict[str, _Outcome] = {}
        if self.message.stop_reason == "length":
            for call in calls:
                await self._start(call)
                outcome = _Outcome(call, _error(TRUNCATED_ARGS_MESSAGE), True)
                await self._finish(outcome)
                await self._emit_result(outcome)
                outcomes[call.id] = outcome
        elif sequential:
            for call in calls:
                ready = await self._preflight(call, tools)
                outcome = ready if isinstance(ready, _Outcome) else await self._execute(call, *ready)
                outcomes[call.id] = outcome
                await self._finish(outcome)
                await self._emit_result(outcome)
        else:
            runnable: list[tuple[ToolCall, AgentTool, Any]] = []
            for call in calls:
                ready = await self._preflight(call, tools)
                if isinstance(ready, _Outcome):
                    outcomes[call.id] = ready
                    await self._finish(ready)
                else:
                    runnable.append((call, *ready))

            async def run_one(call: ToolCall, tool: AgentTool, params: Any) -> None:
                outcome = await self._execute(call, tool, params)
                outcomes[call.id] = outcome
                await self._finish(outcome)

            if runnable:
                await asyncio.gather(*(run_one(*r) for r in runnable))
            # Completion order decided the end events; the transcript keeps call order.
            for call in calls:
                await self._emit_result(outcomes[call.id])
        results = [outcomes[c.id].result_message for c in calls]  # type: ignore[attr-defined]
        all_terminate = bool(calls) and all(outcomes[c.id].result.terminate for c in calls)
        return results, all_terminate

    async def _start(self, call: ToolCall) -> None:
        self.agent.state.pending_tool_calls.add(call.id)
        await self.emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))

    async def _preflight(self, call: ToolCall, tools: dict[str, AgentTool]):
        await self._start(call)
        tool = tools.get(call.name)
        if tool is None:
            return _Outcome(call, _error(f"Tool {call.name} not found"), True)
        if call.arguments_error is not None:
            return _Outcome(call, _error(f'Invalid arguments for tool "{tool.name}": {_capped(call.arguments_error)}'), True)
        try:
            params = tool.Params.model_validate(call.arguments)
        except ValueError as exc:  # both ValidationErrors are ValueErrors
            return _Outcome(call, _error(format_validation_error(tool, exc, call.arguments)), True)
        except Exception as exc:  # noqa: BLE001 - an extension's validator raising TypeError & co. is the call's error
            text = f'Validation failed for tool "{tool.name}": {type(exc).__name__}: {exc}'
            return _Outcome(call, _error(text), True)
        hook = self.agent.before_tool_call
        if hook is not None:
            try:
                decision = await hook(ToolCallContext(call, params, self.message))
            except Exception as exc:  # noqa: BLE001 - fail closed
                return _Outcome(call, _error(f"Tool call blocked: {exc}"), True)
            if decision is not None and decision.block:
                result = _error(decision.reason or "Tool call was blocked")
                result.terminate = decision.terminate
                return _Outcome(call, result, True)
        return tool, params

    async def _execute(self, call: ToolCall, tool: AgentTool, params: Any) -> _Outcome:
        finished = False

        def on_update(partial: ToolResult) -> None:
            # Updates that arrive after the tool returned are dropped: the end event is final.
            if finished:
                return
            self.agent.emit_soon(ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial))

        started = time.monotonic()
        try:
            result = await tool.execute(call.id, params, self.signal, on_update)
            if not isinstance(result, ToolResult):
                raise TypeError(f"tool {tool.name} returned {type(result).__name__}, not ToolResult")
            is_error = result.is_error
        except asyncio.CancelledError:
            raise
        except ToolFailed as exc:  # a failed command: its whole result, as the tool made it
            result, is_error = exc.result, True
        except Exception as exc:  # noqa: BLE001 - a tool failure is a result, not a crash
            result = _error(str(exc) or type(exc).__name__)
            # A tool may attach details to its error (bash: the saved full output).
            details = getattr(exc, "details", None)
            if details is not None:
                result.details = details
            is_error = True
        finally:
            finished = True
        duration = (time.monotonic() - started) * 1000
        await self.agent.flush_events()
        hook = self.agent.after_tool_call
        if hook is not None:
            try:
                change = await hook(ToolCallContext(call, params, self.message, result, is_error))
            except Exception:  # noqa: BLE001 - contract: ignored
                change = None
            if change is not None:
                if change.content is not None:
                    result.content = change.content
                    result.structured_content = None  # made from the content replaced: it may no longer match
                if change.details is not None:
                    result.details = change.details
                if change.is_error is not None:
                    is_error = change.is_error
                if change.terminate is not None:
                    result.terminate = change.terminate
        return _Outcome(call, result, is_error, duration)

    async def _finish(self, outcome: _Outcome) -> None:
        self.agent.state.pending_tool_calls.discard(outcome.call.id)
        outcome.result_message = ToolResultMessage(  # type: ignore[attr-defined]
            tool_call_id=outcome.call.id,
            tool_name=outcome.call.name,
            content=outcome.result.content,
            details=outcome.result.details,
            is_error=outcome.is_error,
            duration_ms=None if outcome.duration_ms is None else round(outcome.duration_ms),
            nested_calls=outcome.result.nested_calls,
        )
        await self.emit(
            ToolExecutionEndEvent(
                outcome.call.id, outcome.call.name, outcome.result, outcome.is_error, outcome.duration_ms
            )
        )

    async def _emit_result(self, outcome: _Outcome) -> None:
        message = outcome.result_message  # type: ignore[attr-defined]
        await self.emit(MessageStartEvent(message))
        self.agent.state.messages.append(message)
        await self.emit(MessageEndEvent(message))
