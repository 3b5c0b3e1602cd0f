"""Public helpers for a provider's stream function (``pi.register_provider(stream=...)``).

A stream function is ``async def stream(model, context, options)`` yielding stream events
(``start``, ``text_delta``..., then exactly one ``done`` or ``error``). Build the events with a
:class:`StreamWriter` instead of by hand::

    async def stream(model, context, options):
        out = StreamWriter(model)
        async for chunk in my_backend(context, signal=options.signal):
            for event in out.text(chunk):
                yield event
        out.usage(input=120, output=42)
        for event in out.done():
            yield event

``context`` has ``system_prompt``, ``messages`` (``role`` ``user``/``assistant``/``toolResult``)
and ``tools`` (``name``, ``description``, ``parameters`` as JSON schema); ``options`` has
``api_key``, ``signal``, ``max_tokens``, ``temperature``, ``reasoning`` and ``headers``.
A stream function should not raise: end with :meth:`StreamWriter.error` (pi turns a stray
exception into an error response anyway). :func:`text_stream` covers the simplest case.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

from .. import deep_json
from ..ai.builder import MessageBuilder
from ..ai.events import AssistantMessageEvent
from ..ai.types import AssistantMessage, Model


class StreamWriter:
    """Builds one assistant response and the events that describe it.

    Each method returns the events to ``yield`` (a list, possibly empty). Text, thinking and
    tool-call deltas go into the current block of that kind, opening one when needed;
    switching kind closes the open block.

    Args:
        model: The model being answered for (``stream``'s first argument).
    """

    def __init__(self, model: Model) -> None:
        self._builder = MessageBuilder(model)
        self._open: tuple[str, int] | None = None

    @property
    def message(self) -> AssistantMessage:
        """The response so far."""
        return self._builder.message

    def start(self) -> list[AssistantMessageEvent]:
        """The ``start`` event (sent by the first other call when you do not call it)."""
        return self._builder.start()

    def _switch(self, kind: str) -> tuple[int, list[AssistantMessageEvent]]:
        events: list[AssistantMessageEvent] = []
        if self._open is not None and self._open[0] == kind:
            return self._open[1], events
        events.extend(self.end_block())
        if kind == "text":
            index, started = self._builder.text_start()
        else:
            index, started = self._builder.thinking_start()
        self._open = (kind, index)
        return index, events + started

    def text(self, delta: str) -> list[AssistantMessageEvent]:
        """Append answer text."""
        index, events = self._switch("text")
        return events + self._builder.text_delta(index, str(delta))

    def thinking(self, delta: str, *, signature: str | None = None) -> list[AssistantMessageEvent]:
        """Append reasoning text (``signature``: the provider's opaque thinking signature, if any)."""
        index, events = self._switch("thinking")
        if signature:
            self._builder.set_thinking_signature(index, signature)
        return events + self._builder.thinking_delta(index, str(delta))

    def tool_call(self, call_id: str, name: str, arguments: dict[str, Any] | str) -> list[AssistantMessageEvent]:
        """A whole tool call (``arguments`` as a dict or a JSON string)."""
        events = self.end_block()
        index, started = self._builder.toolcall_start(str(call_id), str(name))
        raw = arguments if isinstance(arguments, str) else deep_json.dumps(arguments)
        events += started + self._builder.toolcall_delta(index, raw) + self._builder.end_block(index)
        return events

    def start_tool_call(self, call_id: str, name: str) -> list[AssistantMessageEvent]:
        """Open a tool call whose JSON arguments arrive in pieces (:meth:`tool_call_delta`)."""
        events = self.end_block()
        index, started = self._builder.toolcall_start(str(call_id), str(name))
        self._open = ("toolCall", index)
        return events + started

    def tool_call_delta(self, json_piece: str) -> list[AssistantMessageEvent]:
        """Append to the open tool call's JSON arguments."""
        if self._open is None or self._open[0] != "toolCall":
            raise ValueError("tool_call_delta: no tool call is open (call start_tool_call first)")
        return self._builder.toolcall_delta(self._open[1], str(json_piece))

    def end_block(self) -> list[AssistantMessageEvent]:
        """Close the open block (``text_end``, ``thinking_end`` or ``toolcall_end``)."""
        if self._open is None:
            return []
        _, index = self._open
        self._open = None
        return self._builder.end_block(index)

    def usage(self, *, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> None:
        """Token counts of this response (cost is computed from the model's prices at the end)."""
        usage = self.message.usage
        usage.input, usage.output, usage.cache_read, usage.cache_write = input, output, cache_read, cache_write
        usage.total_tokens = input + output + cache_read + cache_write

    def done(self, stop_reason: str | None = None) -> list[AssistantMessageEvent]:
        """End successfully: ``stop``, ``length`` or ``toolUse`` (from the content when None)."""
        self._open = None
        return self._builder.finish(stop_reason)

    def error(self, message: str, *, aborted: bool = False) -> list[AssistantMessageEvent]:
        """End with an error (or as aborted); what was streamed so far is kept."""
        self._open = None
        return self._builder.fail(str(message), aborted=aborted)


def text_stream(reply: Callable[..., Any]) -> Callable[..., AsyncIterator[AssistantMessageEvent]]:
    """Adapt ``reply(model, context, options) -> str`` (sync or async) into a stream function.

    Args:
        reply: Returns the whole answer text; raising ends the response with an error.

    Returns:
        A provider stream function for ``register_provider(stream=...)``.
    """

    async def stream(model: Model, context: Any, options: Any) -> AsyncIterator[AssistantMessageEvent]:
        out = StreamWriter(model)
        for event in out.start():
            yield event
        try:
            text = reply(model, context, options)
            if inspect.isawaitable(text):
                text = await text
        except Exception as exc:  # noqa: BLE001 - providers end with an error, never raise
            for event in out.error(f"{type(exc).__name__}: {exc}"):
                yield event
            return
        for event in out.text(str(text)) + out.done("stop"):
            yield event

    return stream
