"""The one helper every provider uses to grow the live assistant message and emit events.

Providers translate their wire format into calls on ``MessageBuilder``; the builder keeps
the content blocks, the raw tool-call JSON and the event shapes consistent across all of
them. Each method returns the events to yield (a list, possibly empty).
"""

from __future__ import annotations

from .events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from .types import AssistantMessage, Model, TextContent, ThinkingContent, ToolCall


def _append(block: object, field: str, delta: str) -> None:
    """``block.<field> += delta`` without copying the whole string each time.

    Taking the string out of the struct (the field holds ``""`` meanwhile) leaves it with a
    single reference, so CPython can grow it in place; ``block.text += delta`` copied the full
    text per delta (quadratic over a long answer).
    """
    value = getattr(block, field)
    setattr(block, field, "")
    value += delta
    setattr(block, field, value)



MAX_ERROR_TEXT = 4000
"""Characters of a server's error text kept, as Pi keeps them (pi-ai's provider error bodies)."""
_ERROR_TEXT_MARGIN = 200
"""Room for what pi adds around a server's text (a retry hint, the delay it asked for)."""


def truncate_error_text(text: str, limit: int = MAX_ERROR_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how many went, in Pi's words; left whole when it
    is longer by no more than pi's own words around a server's text (a provider that already kept
    Pi's head of its body, then named itself and the status)."""
    if len(text) <= limit + _ERROR_TEXT_MARGIN:
        return text
    return f"{text[:limit]}... [truncated {len(text) - limit} chars]"

class MessageBuilder:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.message = AssistantMessage(
            api=model.api, provider=model.provider, model=model.id, stop_reason="pending"
        )
        self.started = False
        self.usage_seen = False
        """Whether the provider reported usage (``usage_updated``)."""
        self._open: dict[int, str] = {}
        """Open block index -> kind (text, thinking, toolCall)."""
        self._tool_json: dict[int, list[str]] = {}
        self._tool_json_len: dict[int, int] = {}
        self._tool_parsed_at: dict[int, int] = {}

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> list[AssistantMessageEvent]:
        """The ``start`` event, once: call it when the server accepted the request (Pi sends none
        for a request that failed before that, and the agent loop starts the message at its end)."""
        if self.started:
            return []
        self.started = True
        return [StartEvent(self.message)]

    def usage_updated(self) -> None:
        """Price the usage a provider just wrote into ``message.usage`` (Pi's ``calculateCost``
        on each usage report): the cost follows the stream, and a message that never got usage
        keeps no ``totalFromProvider``, as Pi's."""
        self.usage_seen = True
        self.message.usage.compute_cost(self.model)

    def set_raw_stop_reason(self, raw: str | None) -> None:
        """Keep the provider's own stop reason (``rawStopReason``) when it sent one."""
        if raw:
            self.message.raw_stop_reason = raw

    def finish(self, stop_reason: str | None = None) -> list[AssistantMessageEvent]:
        """Close open blocks and end with ``done``. Stop reason defaults from the content."""
        events = self.start() + self.close_all()
        msg = self.message
        if stop_reason is None or (stop_reason == "stop" and msg.tool_calls()):
            stop_reason = "toolUse" if msg.tool_calls() else "stop"
        msg.stop_reason = stop_reason  # type: ignore[assignment]
        events.append(DoneEvent(stop_reason, msg))
        return events

    def fail(self, error_message: str, aborted: bool = False) -> list[AssistantMessageEvent]:
        """End with ``error``; partial content is kept (open blocks are closed). No ``start`` is
        sent for a request that never got that far. A message far longer than any provider's
        (a gateway's 900 KB page) keeps its head: it is printed and saved in the session."""
        events = self.close_all()
        msg = self.message
        reason = "aborted" if aborted else "error"
        msg.stop_reason = reason  # type: ignore[assignment]
        msg.error_message = truncate_error_text(error_message)
        events.append(ErrorEvent(reason, msg))
        return events

    def close_all(self) -> list[AssistantMessageEvent]:
        events: list[AssistantMessageEvent] = []
        for index in sorted(self._open):
            events.extend(self.end_block(index))
        return events

    def end_block(self, index: int) -> list[AssistantMessageEvent]:
        kind = self._open.pop(index, None)
        if kind is None:
            return []
        block = self.message.content[index]
        if kind == "text":
            return [TextEndEvent(index, block.text, self.message)]  # type: ignore[union-attr]
        if kind == "thinking":
            return [ThinkingEndEvent(index, block.thinking, self.message)]  # type: ignore[union-attr]
        raw = "".join(self._tool_json.pop(index, []))
        self._tool_json_len.pop(index, None)
        self._tool_parsed_at.pop(index, None)
        if raw.strip():
            from .tool_arguments import parse_tool_arguments  # see toolcall_delta

            block.arguments, block.arguments_error = parse_tool_arguments(raw)  # type: ignore[union-attr]
        return [ToolCallEndEvent(index, block, self.message)]  # type: ignore[arg-type]

    # ------------------------------------------------------------------ text

    def text_start(self, signature: str | None = None) -> tuple[int, list[AssistantMessageEvent]]:
        events = self.start()
        index = len(self.message.content)
        self.message.content.append(TextContent(text="", text_signature=signature))
        self._open[index] = "text"
        events.append(TextStartEvent(index, self.message))
        return index, events

    def text_delta(self, index: int, delta: str) -> list[AssistantMessageEvent]:
        _append(self.message.content[index], "text", delta)
        return [TextDeltaEvent(index, delta, self.message)]

    # ------------------------------------------------------------------ thinking

    def thinking_start(
        self, signature: str | None = None, redacted: bool | None = None
    ) -> tuple[int, list[AssistantMessageEvent]]:
        events = self.start()
        index = len(self.message.content)
        self.message.content.append(
            ThinkingContent(thinking="", thinking_signature=signature, redacted=redacted)
        )
        self._open[index] = "thinking"
        events.append(ThinkingStartEvent(index, self.message))
        return index, events

    def thinking_delta(self, index: int, delta: str) -> list[AssistantMessageEvent]:
        _append(self.message.content[index], "thinking", delta)
        return [ThinkingDeltaEvent(index, delta, self.message)]

    def set_thinking_signature(self, index: int, signature: str) -> None:
        block = self.message.content[index]
        block.thinking_signature = (block.thinking_signature or "") + signature  # type: ignore[union-attr]

    # ------------------------------------------------------------------ tool calls

    def toolcall_start(self, call_id: str, name: str) -> tuple[int, list[AssistantMessageEvent]]:
        events = self.start()
        index = len(self.message.content)
        self.message.content.append(ToolCall(id=call_id, name=name, arguments={}))
        self._open[index] = "toolCall"
        self._tool_json[index] = []
        self._tool_json_len[index] = 0
        self._tool_parsed_at[index] = 0
        events.append(ToolCallStartEvent(index, self.message))
        return index, events

    def toolcall_delta(self, index: int, delta: str) -> list[AssistantMessageEvent]:
        if not delta:  # a chunk that names the call or gives its id only: announced, nothing to parse
            return [ToolCallDeltaEvent(index, "", self.message)]
        parts = self._tool_json[index]
        parts.append(delta)
        total = self._tool_json_len[index] + len(delta)
        self._tool_json_len[index] = total
        # Re-parsing the whole argument string on every delta is quadratic for a long
        # `write`; re-parse only once it has grown by an eighth, which keeps it linear
        # while short arguments (paths, commands) still update on every chunk.
        last = self._tool_parsed_at[index]
        if total - last >= max(64, last // 8) or total < 256:
            # The argument parsers load with the first tool call, not with every start-up: a
            # plain answer never needs them (their module-level patterns cost ~1.5 M instructions).
            from .partial_json import parse_partial

            joined = "".join(parts)
            parts[:] = [joined]
            self.message.content[index].arguments = parse_partial(joined)  # type: ignore[union-attr]
            self._tool_parsed_at[index] = total
        return [ToolCallDeltaEvent(index, delta, self.message)]

    def replace_tool_arguments(self, index: int, text: str) -> None:
        """Start a tool call's argument text over with ``text`` (a server that resends it whole,
        differently); no event, the next delta or the block's end shows it."""
        self._tool_json[index] = [text]
        self._tool_json_len[index] = len(text)
        self._tool_parsed_at[index] = len(text)
        from .partial_json import parse_partial

        self.message.content[index].arguments = parse_partial(text)  # type: ignore[union-attr]

    def is_open(self, index: int) -> bool:
        return index in self._open
