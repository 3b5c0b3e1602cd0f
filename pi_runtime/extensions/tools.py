"""Tools registered by extensions, adapted to the agent's ``AgentTool`` interface.

``pi.register_tool(name=..., description=..., params=<pydantic model>, execute=...)``
builds an :class:`ExtensionTool`; an ``AgentTool`` instance can be registered as it is.
``execute(call_id, params, signal, on_update, ctx)`` may return a ``ToolResult``, a string,
or a dict ``{"content": str | [blocks], "details": ..., "isError": bool, "terminate": bool}``;
raising marks the call failed (the message goes to the model), as for built-in tools.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult
from ..ai.types import ImageContent, TextContent
from .events import result_field

if TYPE_CHECKING:
    from .runner import Extension


def to_tool_result(value: Any, tool_name: str) -> ToolResult:
    """Turn what an extension's ``execute`` returned into a ``ToolResult``.

    Raises:
        ToolError: The value says ``isError`` (its details are kept on the exception).
        TypeError: The value has no usable shape.
    """
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult.text(value)
    if isinstance(value, dict):
        content = content_blocks(result_field(value, "content", ""))
        result = ToolResult(content=content, details=result_field(value, "details"))
        result.terminate = bool(result_field(value, "terminate", False))
        if result_field(value, "is_error", False):
            error = ToolError("".join(getattr(b, "text", "") for b in content) or "Tool failed")
            error.details = result.details  # type: ignore[attr-defined]
            raise error
        return result
    raise TypeError(f"tool {tool_name} returned {type(value).__name__}; expected ToolResult, str or dict")


def content_blocks(content: Any) -> list[TextContent | ImageContent]:
    """Text or a list of blocks (objects or wire dicts) as content blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextContent(text=content)]
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


class ExtensionTool(AgentTool):
    """An extension's tool definition behind the ``AgentTool`` interface."""

    def __init__(
        self,
        extension: Extension,
        *,
        name: str,
        description: str,
        params: type[BaseModel] | None,
        execute: Callable[..., Any],
        label: str = "",
        prompt_snippet: str | None = None,
        prompt_guidelines: list[str] | None = None,
        execution_mode: str | None = None,
        default_active: bool = True,
        render: dict[str, Any] | None = None,
    ) -> None:
        if not name or not isinstance(name, str):
            raise ValueError("register_tool: a tool needs a name")
        if not callable(execute):
            raise ValueError(f"register_tool({name!r}): execute must be callable")
        self.name = name  # type: ignore[misc]
        self.label = label or name  # type: ignore[misc]
        self.description = description or name  # type: ignore[misc]
        self.Params = params or ToolParams  # type: ignore[misc]
        self.execution_mode = execution_mode  # type: ignore[misc,assignment]
        self.extension = extension
        self.prompt_snippet = prompt_snippet
        """One line for the ``tools`` section of the system prompt (the description's first line otherwise)."""
        self.prompt_guidelines = list(prompt_guidelines or [])
        """Rules added to the ``rules`` section while the tool is active."""
        self.default_active = default_active
        """False registers the tool inactive (``set_active_tools`` turns it on)."""
        self.render = dict(render or {})
        """Renderer hints for front ends (e.g. ``{"collapsed": True, "icon": "⚙"}``); opaque to the runtime."""
        self._execute = execute
        self._wants_ctx = _positional_count(execute) >= 5

    async def execute(self, call_id, params, signal, on_update) -> ToolResult:  # type: ignore[override]
        args: list[Any] = [call_id, params, signal, on_update]
        if self._wants_ctx:
            args.append(self.extension.runner.context(self.extension))
        value = self._execute(*args)
        if inspect.isawaitable(value):
            value = await value
        return to_tool_result(value, self.name)


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 5
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 5
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
