"""``NestedCalls``: a tool running other tools (``ctx.execute_tool``), as Pi's nested calls.

A nested call goes through argument validation and the ``tool_call`` / ``tool_result``
handlers like a call the model made, and extensions see ``tool_execution_start`` /
``_update`` / ``_end`` for it with ``parent_tool_call_id`` set and a ``toolCallId`` of
``<parent id>/<n>``. It never raises for a tool's failure: unknown tools, invalid arguments,
blocked calls and exceptions come back as results with ``is_error`` True. Its result reaches
only the calling tool; nothing is added to the transcript.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..agent.tool import ToolFailed
from ..background import spawn
from ..records import record
from .events import ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent

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
        try:
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
        await self._dispatcher.emit("tool_execution_end", ToolExecutionEndEvent(
            tool_call_id=call_id, tool_name=name, result=result, is_error=result.is_error, duration_ms=duration,
            parent_tool_call_id=self._parents.get(call_id)))
        return result


def _text(text: str) -> list[Any]:
    from ..ai.types import TextContent

    return [TextContent(text=text)]

