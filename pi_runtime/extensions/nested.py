"""``NestedCalls``: a tool running other tools (``ctx.execute_tool``), as Pi's nested calls.

A nested call goes through argument validation and the ``tool_call`` / ``tool_result``
handlers like a call the model made, and extensions see ``tool_execution_start`` /
``_update`` / ``_end`` for it with ``parent_tool_call_id`` set and a ``toolCallId`` of
``<parent id>/<n>``. It never raises for a tool's failure: unknown tools, invalid arguments,
blocked calls and exceptions come back as results with ``is_error`` True. Its result reaches
only the calling tool; nothing is added to the transcript.

As in Pi 1.6, its start and end are session events too (``--mode json``, RPC, viewers), with
``parentToolCallId``; and the calling tool's result message keeps a bounded record of its calls
(``nestedCalls``: name, arguments, status, duration, error, never results), which
:meth:`NestedCalls.take_record` hands over when that tool finishes.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..agent.tool import ToolFailed
from ..background import spawn
from ..records import record
from .events import ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent

MAX_RECORDED_CALLS = 256
"""Calls a ``nestedCalls`` record keeps at most (Pi's bound)."""
MAX_CALL_ARGUMENT_BYTES = 8 * 1024
"""Arguments larger than this (as JSON) are left out of a call's record, their size kept."""
MAX_RECORD_ARGUMENT_BYTES = 32 * 1024
"""Arguments kept in one record at most; later calls' are left out."""

if TYPE_CHECKING:
    from .agent_hooks import AgentHooks
    from .dispatch import Dispatcher
    from .registry import ExtensionRegistry
    from .toolset import ToolSet


@record
class NestedToolResult:
    """What a nested call returned."""

    content: list[Any] = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    structured_content: Any = None
    """The tool's result for programmatic callers (tools with an ``output_schema``), if it gave one."""
    tool_call_id: str = ""
    """The nested call's id (``<parent id>/<n>``)."""

    @property
    def text(self) -> str:
        """The text blocks joined."""
        return "".join(getattr(b, "text", "") for b in self.content)


class NestedCalls:
    """Runs ``ctx.execute_tool`` calls for one runner.

    Args:
        hooks: The ``tool_call`` / ``tool_result`` dispatch shared with the model's calls.
        tools: Where tools are found (the active ones).
        dispatcher: Delivers the nested ``tool_execution_*`` events to extensions.
        registry: Who handles which event.
    """

    def __init__(self, hooks: AgentHooks, tools: ToolSet, dispatcher: Dispatcher, registry: ExtensionRegistry) -> None:
        self._hooks = hooks
        self._registry = registry
        self._tools = tools
        self._dispatcher = dispatcher
        self._counts: dict[str, int] = {}
        self._parents: dict[str, str] = {}
        self._records: dict[str, _Record] = {}
        self.deliver: Callable[[object], Awaitable[None]] | None = None
        """Puts an agent event in the session's stream (``SessionActions.emit_agent_event``) once the
        runner is bound; extensions then see the nested start and end from there. Unbound, they are
        dispatched to extensions directly."""

    def take_record(self, parent_id: str) -> dict[str, Any] | None:
        """The ``nestedCalls`` record of the calls ``parent_id`` made (None when it made none); forgotten after."""
        record = self._records.pop(parent_id, None)
        return record.to_wire() if record is not None else None

    def parent_of(self, call_id: str) -> str | None:
        """The calling tool's id for a nested call id (None for the model's own calls)."""
        return self._parents.get(call_id)

    def available(self) -> list[str]:
        """Names a tool can call: the active ``direct`` tools and every ``deferred`` one (Pi's callable tools)."""
        return [t.name for t in self._tools_by_name()]

    async def execute(self, parent_id: str, name: str, args: dict[str, Any] | None = None, *, signal: Any = None,
                      on_update: Callable[[Any], None] | None = None) -> NestedToolResult:
        """Run tool ``name`` with ``args`` on behalf of the call ``parent_id``."""
        from ..agent.tool_exec import BeforeToolCallResult, format_validation_error

        self._counts[parent_id] = self._counts.get(parent_id, 0) + 1
        call_id = f"{parent_id}/{self._counts[parent_id]}"
        self._parents[call_id] = parent_id
        args = dict(args or {})
        self._records.setdefault(parent_id, _Record()).start(call_id, name, args)
        try:
            if self.deliver is not None:
                from ..agent.events import ToolExecutionStartEvent as SessionToolStart

                await self.deliver(SessionToolStart(call_id, name, args, parent_tool_call_id=parent_id))
            else:
                await self._dispatcher.emit("tool_execution_start", ToolExecutionStartEvent(
                    tool_call_id=call_id, tool_name=name, args=args, parent_tool_call_id=parent_id))
            tool = next((t for t in self._tools_by_name() if t.name == name), None)
            if tool is None:
                return await self._end(call_id, name, NestedToolResult(_text(f"Tool {name} not found"), None, True))
            try:
                params = tool.Params.model_validate(args)
            except ValueError as exc:  # a jsonmodel or pydantic ValidationError
                return await self._end(call_id, name, NestedToolResult(_text(format_validation_error(tool, exc, args)),
                                                                       None, True))
            decision = await self._hooks.check_call(name, call_id, args, params, BeforeToolCallResult)
            if decision is not None and decision.block:
                return await self._end(call_id, name, NestedToolResult(_text(decision.reason or "Tool call was blocked"),
                                                                       None, True))

            def updated(partial: Any) -> None:
                if on_update is not None:
                    on_update(partial)
                if self._registry.has_handlers("tool_execution_update"):
                    spawn(self._dispatcher.emit("tool_execution_update", ToolExecutionUpdateEvent(
                        tool_call_id=call_id, tool_name=name, args=args, partial_result=partial,
                        parent_tool_call_id=parent_id)), name="nested-tool-update")

            started = time.monotonic()
            try:
                result = await tool.execute(call_id, params, signal, updated)
                outcome = NestedToolResult(list(result.content), result.details, result.is_error,
                                           result.structured_content)
            except ToolFailed as exc:  # a failed command: its whole result
                outcome = NestedToolResult(list(exc.result.content), exc.result.details, True,
                                           exc.result.structured_content)
            except Exception as exc:  # noqa: BLE001 - a failing nested tool is a result for its caller
                outcome = NestedToolResult(_text(str(exc) or type(exc).__name__), getattr(exc, "details", None), True)
            duration = (time.monotonic() - started) * 1000
            patched = await self._hooks.patch_result(name, call_id, args, outcome.content, outcome.details,
                                                     outcome.is_error)
            if patched is not None:
                # A handler that replaced the content replaced what the structured result said too.
                kept = outcome.structured_content if list(patched[0]) == list(outcome.content) else None
                outcome = NestedToolResult(*patched, structured_content=kept)
            return await self._end(call_id, name, outcome, duration)
        finally:
            self._parents.pop(call_id, None)
            self._records.pop(call_id, None)  # what a nested call's own calls left: no message keeps it

    def _tools_by_name(self) -> list[Any]:
        from .toolset import exposure_of

        active = set(self._tools.active_names())
        out = []
        for name, tool in self._tools.all.items():
            exposure = exposure_of(tool)
            if exposure == "deferred" or (exposure == "direct" and name in active):
                out.append(tool)
        return out

    async def _end(self, call_id: str, name: str, result: NestedToolResult, duration: float | None = None) -> NestedToolResult:
        result.tool_call_id = call_id
        parent_id = self._parents.get(call_id)
        record = self._records.get(parent_id or "")
        if record is not None:
            record.end(call_id, result, duration)
        if self.deliver is not None:
            from ..agent.events import ToolExecutionEndEvent as SessionToolEnd
            from ..agent.tool import ToolResult

            wire_result = ToolResult(content=list(result.content), details=result.details, is_error=result.is_error,
                                     structured_content=result.structured_content)
            await self.deliver(SessionToolEnd(call_id, name, wire_result, result.is_error, duration,
                                              parent_tool_call_id=parent_id))
        else:
            await self._dispatcher.emit("tool_execution_end", ToolExecutionEndEvent(
                tool_call_id=call_id, tool_name=name, result=result, is_error=result.is_error, duration_ms=duration,
                parent_tool_call_id=parent_id))
        return result


class _Record:
    """The bounded ``nestedCalls`` record of one calling tool (Pi's ``NestedToolCalls``)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.complete = True
        self._argument_bytes = 0

    def start(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        import json

        if len(self.calls) >= MAX_RECORDED_CALLS:
            self.complete = False
            return
        call: dict[str, Any] = {"id": call_id, "name": name, "status": "unfinished"}
        size = len(json.dumps(args, ensure_ascii=False, separators=(",", ":"), default=str).encode())
        if size > MAX_CALL_ARGUMENT_BYTES or self._argument_bytes + size > MAX_RECORD_ARGUMENT_BYTES:
            call["argumentsBytes"] = size
            self.complete = False
        else:
            call["arguments"] = args
            self._argument_bytes += size
        self.calls.append(call)

    def end(self, call_id: str, result: NestedToolResult, duration: float | None) -> None:
        call = next((c for c in self.calls if c["id"] == call_id), None)
        if call is None:
            return  # past the bound: not recorded
        call["status"] = "error" if result.is_error else "ok"
        if duration is not None:
            call["durationMs"] = round(duration)
        if result.is_error:
            call["error"] = result.text

    def to_wire(self) -> dict[str, Any]:
        return {"calls": self.calls, "complete": self.complete}


def _text(text: str) -> list[Any]:
    from ..ai.types import TextContent

    return [TextContent(text=text)]

