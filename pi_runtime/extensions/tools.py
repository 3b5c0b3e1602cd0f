"""Tools registered by extensions, adapted to the agent's ``AgentTool`` interface.

``pi.register_tool(name=..., description=..., params=<pydantic model>, execute=...)``
builds an :class:`ExtensionTool`; an ``AgentTool`` instance can be registered as it is.
``execute(call_id, params, signal, on_update, ctx)`` may return a ``ToolResult``, a string,
or a dict ``{"content": str | [blocks], "details": ..., "isError": bool, "terminate": bool}``;
raising marks the call failed (the message goes to the model), as for built-in tools.

Abort wins: when the run is aborted, an ``execute`` that ignores its signal is cancelled and
the call ends as an error result at once.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult
from ..ai.types import ImageContent, TextContent
from .dispatch import EscapeAttempt, contained, describe_escape, positional_count
from .events import result_field
from .json_values import json_value

if TYPE_CHECKING:
    from ..ai.abort import AbortSignal
    from .registry import Extension


def to_tool_result(value: Any, tool_name: str) -> ToolResult:
    """Turn what an extension's ``execute`` returned into a ``ToolResult``.

    ``details`` are made JSON (``json_values.py``): they are stored in the session file.

    A dict with ``isError`` gives an error result with its content and details as they are (Pi).

    Raises:
        TypeError: The value has no usable shape.
    """
    if isinstance(value, ToolResult):
        value.details = json_value(value.details)
        return value
    if isinstance(value, str):
        return ToolResult.text(value)
    if isinstance(value, dict):
        content = content_blocks(result_field(value, "content", ""))
        result = ToolResult(content=content, details=json_value(result_field(value, "details")))
        result.terminate = bool(result_field(value, "terminate", False))
        result.is_error = bool(result_field(value, "is_error", False))
        structured = result_field(value, "structured_content")
        if structured is not None:
            result.structured_content = json_value(structured)
        return result
    raise TypeError(f"tool {tool_name} returned {type(value).__name__}; expected ToolResult, str or dict")


def content_blocks(content: Any) -> list[TextContent | ImageContent]:
    """Text or a list of blocks (objects or wire dicts) as content blocks.

    Raises:
        TypeError: ``content`` is neither text nor a list of blocks.
    """
    if content is None:
        return []
    if isinstance(content, str):
        return [TextContent(text=content)]
    if not isinstance(content, (list, tuple)):
        raise TypeError(f"content must be a string or a list of blocks, not {type(content).__name__}")
    blocks: list[TextContent | ImageContent] = []
    for block in content:
        if isinstance(block, (TextContent, ImageContent)):
            blocks.append(block)
        elif isinstance(block, dict) and block.get("type") == "image":
            blocks.append(ImageContent.model_validate(block))
        elif isinstance(block, dict):
            blocks.append(TextContent(text=str(block.get("text", ""))))
        else:
            blocks.append(TextContent(text=str(block)))
    return blocks


ABORT_GRACE = 1.0
"""Seconds a tool gets after an abort to finish on its own (with its own result) before it is cancelled."""


async def run_abortable(work: Any, signal: AbortSignal | None) -> Any:
    """Await ``work``; if ``signal`` fires and ``work`` is not done :data:`ABORT_GRACE` s later,
    cancel it and raise ``ToolError("Aborted")``."""
    if signal is None:
        return await work
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            await asyncio.wait({task}, timeout=ABORT_GRACE)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        waiter.cancel()
    if not task.done():
        task.cancel()
        raise ToolError("Aborted")
    return task.result()


class ExtensionTool(AgentTool):
    """An extension's tool definition behind the ``AgentTool`` interface."""

    def __init__(
        self,
        extension: Extension,
        *,
        name: str,
        description: str,
        params: type[Any] | None,
        execute: Callable[..., Any],
        label: str = "",
        prompt_snippet: str | None = None,
        prompt_guidelines: list[str] | None = None,
        execution_mode: str | None = None,
        default_active: bool = True,
        render: dict[str, Any] | None = None,
        render_call: Callable[..., Any] | None = None,
        render_result: Callable[..., Any] | None = None,
        render_shell: str | None = None,
        exposure: str = "direct",
        output_schema: dict[str, Any] | None = None,
    ) -> None:
        if not name or not isinstance(name, str):
            raise ValueError("register_tool: a tool needs a name")
        if not callable(execute):
            raise ValueError(f"register_tool({name!r}): execute must be callable")
        if execution_mode not in (None, "parallel", "sequential"):
            raise ValueError(f"register_tool({name!r}): execution_mode is 'parallel' or 'sequential'")
        if exposure not in ("direct", "deferred", "model-only", "hidden"):
            raise ValueError(f"register_tool({name!r}): exposure is 'direct', 'deferred', 'model-only' or 'hidden'")
        # The AgentTool interface declares these at class level; an instance sets its own.
        self.name = name  # type: ignore[misc]
        self.label = label or name  # type: ignore[misc]
        self.description = description or name  # type: ignore[misc]
        self.Params = params or ToolParams  # type: ignore[misc]
        self.execution_mode = execution_mode  # type: ignore[misc,assignment]
        self.extension = extension
        self.exposure = exposure
        self.output_schema = output_schema
        self.prompt_snippet = prompt_snippet
        """One line for the ``tools`` section of the system prompt; without it the tool is not listed there (Pi)."""
        self.prompt_guidelines = list(prompt_guidelines or [])
        """Rules added to the ``rules`` section while the tool is active."""
        self.default_active = default_active
        """False registers the tool inactive (``set_active_tools`` turns it on)."""
        self.render = dict(render or {})
        """Renderer hints for front ends (e.g. ``{"collapsed": True, "icon": "⚙"}``); opaque to the runtime."""
        self.render_call = render_call
        """``render_call(args, theme, context)`` -> a front end's widget/renderable for the call (the app's to call)."""
        self.render_result = render_result
        """``render_result(result, options, theme, context)`` -> a widget/renderable for the result."""
        self.render_shell = render_shell
        """``"self"`` when the renderers draw their own frame."""
        self._execute = execute
        self._wants_ctx = positional_count(execute) >= 5
        self.context_for: Callable[[str], Any] | None = None
        """Builds the tool ``ctx`` for a call id (set by the runner when the tool is registered)."""
        self.report_failure: Callable[[str, str], Awaitable[None]] | None = None
        """Sends ``extension_error`` for a result of the wrong shape (set when the tool is registered)."""

    def _updates(self, on_update: Callable[[ToolResult], None] | None) -> Callable[[Any], None] | None:
        """``on_update`` as the extension calls it: Pi's plain ``{"content": ..., "details": ...}``
        dicts, strings and ``ToolResult``s all become partial results."""
        if on_update is None:
            return None

        def update(partial: Any = None) -> None:
            if partial is None:
                partial = ToolResult()
            try:
                result = to_tool_result(partial, self.name)
            except TypeError as exc:
                report, problem = self.report_failure, f"on_update: {exc}"
                if report is not None:
                    from ..background import spawn

                    async def send() -> None:
                        await report(f"tool:{self.name}", problem)

                    spawn(send(), name="tool-update-report")
                return
            on_update(result)

        return update

    async def execute(self, call_id, params, signal, on_update) -> ToolResult:
        args: list[Any] = [call_id, params, signal, self._updates(on_update)]
        if self._wants_ctx:
            args.append(self.context_for(call_id) if self.context_for is not None else None)
        try:
            value = self._execute(*args)
        except (SystemExit, KeyboardInterrupt) as exc:
            raise ToolError(describe_escape(exc)) from exc
        if inspect.isawaitable(value):
            try:
                value = await run_abortable(contained(value), signal)
            except EscapeAttempt as exc:
                raise ToolError(str(exc)) from exc
        try:
            return to_tool_result(value, self.name)
        except TypeError as exc:
            # The model sees the failure as the tool's result; the author needs it too, and
            # only extension_error reaches the author (the model's reply may never mention it).
            if self.report_failure is not None:
                await self.report_failure(f"tool:{self.name}", f"TypeError: {exc}")
            raise ToolError(str(exc)) from exc
