"""The shapes of what extensions hand to ``pi.register_*``: typed, so an author's type checker
catches a wrong ``execute`` return, a handler with the wrong arguments or ``deliver_as="follow_up"``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from ..agent.tool import ToolResult

ToolReturn: TypeAlias = "ToolResult | str | Mapping[str, Any]"
"""What a tool's ``execute`` gives back: a ``ToolResult``, text, or Pi's ``{"content", "details", "isError"}``."""
ToolExecute: TypeAlias = (
    "Callable[[str, Any, Any, Any, Any], Awaitable[ToolReturn] | ToolReturn]"
    " | Callable[[str, Any, Any, Any], Awaitable[ToolReturn] | ToolReturn]"
)
"""``execute(call_id, params, signal, on_update[, ctx])``, async or not."""
UpdateValue: TypeAlias = "ToolReturn | None"
"""What ``on_update`` takes: a partial result in any shape ``execute`` may return."""
Exposure = Literal["direct", "deferred", "model-only", "hidden"]
ExecutionMode = Literal["parallel", "sequential"]
DeliverAs = Literal["steer", "followUp", "nextTurn"]
UserDeliverAs = Literal["steer", "followUp"]
FlagType = Literal["boolean", "string"]
CommandHandler: TypeAlias = "Callable[[str, Any], object]"
"""``handler(args, ctx)`` of ``/name``, async or not."""
ShortcutHandler: TypeAlias = "Callable[[Any], object]"
"""``handler(ctx)`` of a key."""
Completions: TypeAlias = "Callable[[str], object]"
"""``get_argument_completions(prefix)``: strings, ``{"value", "label", "description"}`` dicts or None."""
MessageRenderer: TypeAlias = "Callable[[Any, Any, Any], object]"
"""``renderer(message_or_entry, options, theme)`` for the app."""
RenderCall: TypeAlias = "Callable[[Any, Any, Any], object]"
"""``render_call(args, theme, context)``."""
RenderResult: TypeAlias = "Callable[[Any, Any, Any, Any], object]"
"""``render_result(result, options, theme, context)``."""
