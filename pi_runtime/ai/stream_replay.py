"""``StreamReplay``: grows a copy of a streaming assistant message from its wire events.

The JSON and RPC shapes of ``message_update`` are delta-only (Pi's choice, so a long answer stays
linear in size). A viewer in another process rebuilds the live message the way the provider grew
it: text and thinking deltas are appended, a tool call's argument text is collected and parsed as
partial JSON (as often as ``MessageBuilder`` does), and each block's end replaces what was built
with the authoritative content. The typed events it returns point at that copy, as the kernel's
point at its own live message.
"""

from __future__ import annotations

from typing import Any

from .events import AssistantMessageEvent, event_from_wire
from .partial_json import parse_partial
from .types import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage


class StreamReplay:
    """The live copy of one assistant message and the argument text of its open tool calls.

    Args:
        message: The message as ``message_start`` (or a state snapshot) gave it; grown in place.
        tool_json: The argument text received so far of tool calls still open (a snapshot taken
            mid-stream carries it: see :meth:`open_tool_json`), by block index.
    """

    def __init__(self, message: AssistantMessage, tool_json: dict[int, str] | None = None) -> None:
        self.message = message
        self._tool_json: dict[int, str] = dict(tool_json or {})
        self._parsed_at: dict[int, int] = {index: len(text) for index, text in self._tool_json.items()}

    def open_tool_json(self) -> dict[int, str]:
        """The argument text of the tool calls whose end has not come yet, by block index."""
        return dict(self._tool_json)

    def apply(self, event: dict[str, Any], usage: dict[str, Any] | None = None) -> AssistantMessageEvent:
        """Apply one wire stream event (and the usage reported with it); returns it typed.

        Raises:
            ValueError: The event does not fit the message (a block index it does not have).
        """
        message = self.message
        if usage is not None:
            message.usage = Usage.model_validate(usage)
        typed = event_from_wire(event, message)
        kind = typed.type
        content = message.content
        index = event.get("contentIndex", 0)
        if kind in ("text_start", "thinking_start", "toolcall_start"):
            if index != len(content):
                raise ValueError(f"{kind} for block {index}, but the message has {len(content)} blocks")
            if kind == "text_start":
                content.append(TextContent(text=""))
            elif kind == "thinking_start":
                content.append(ThinkingContent(thinking=""))
            else:
                content.append(ToolCall(id=str(event.get("id", "")), name=str(event.get("toolName", "")), arguments={}))
                self._tool_json[index], self._parsed_at[index] = "", 0
        elif kind == "text_delta" or kind == "text_end":
            block = self._block(index, TextContent)
            block.text = block.text + event["delta"] if kind == "text_delta" else event["content"]
        elif kind == "thinking_delta" or kind == "thinking_end":
            block = self._block(index, ThinkingContent)
            block.thinking = block.thinking + event["delta"] if kind == "thinking_delta" else event["content"]
        elif kind == "toolcall_delta":
            self._tool_delta(index, event["delta"])
        elif kind == "toolcall_end":
            self._block(index, ToolCall)
            content[index] = typed.tool_call  # type: ignore[union-attr]  # narrowed by kind
            self._tool_json.pop(index, None)
            self._parsed_at.pop(index, None)
        elif kind == "done" or kind == "error":
            final = typed.partial
            for name in final.__struct_fields__:
                setattr(message, name, getattr(final, name))
        return typed

    def _block(self, index: int, kind: type[Any]) -> Any:
        content = self.message.content
        if not 0 <= index < len(content) or not isinstance(content[index], kind):
            raise ValueError(f"no {kind.__name__} block at index {index}")
        return content[index]

    def _tool_delta(self, index: int, delta: str) -> None:
        block = self._block(index, ToolCall)
        text = self._tool_json.get(index, "") + delta
        self._tool_json[index] = text
        # As MessageBuilder: parse on every delta while short, then once grown by an eighth.
        last = self._parsed_at.get(index, 0)
        if len(text) - last >= max(64, last // 8) or len(text) < 256:
            block.arguments = parse_partial(text)
            self._parsed_at[index] = len(text)
