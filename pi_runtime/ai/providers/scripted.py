"""A real provider that replays a script instead of calling a server.

Tests, snapshot scenes and the demo mode use it: it goes through the same ``stream()``
dispatch, emits the same events and honours the abort signal like an HTTP provider. Each
request pops the next scripted response (or asks a callable for one) and records the
context it was given, so a test can assert on exactly what the model saw.

Example:
    provider = ScriptedProvider()
    provider.push(scripted_text("Hello!"))
    model = provider.model()
    message = await complete(model, Context(messages=[UserMessage(content="hi")]))
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import field
from typing import Any

from ...records import record
from ..abort import sleep_or_abort
from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..types import Context, Model, ModelCost, TextContent, ThinkingContent, ToolCall, Usage

API = "scripted"


@record
class ScriptedText:
    text: str


@record
class ScriptedThinking:
    thinking: str
    signature: str | None = None


@record
class ScriptedToolCall:
    name: str
    arguments: dict[str, Any]
    id: str | None = None


ScriptedBlock = ScriptedText | ScriptedThinking | ScriptedToolCall


@record
class ScriptedResponse:
    blocks: list[ScriptedBlock] = field(default_factory=list)
    stop_reason: str | None = None
    """Defaults to toolUse when there are tool calls, else stop."""
    error: str | None = None
    """End with this error message after the blocks (e.g. "503 overloaded")."""
    usage: Usage | None = None
    """Defaults to an estimate: chars/4 of the context in, of the output out."""
    chunk_size: int = 8
    """Characters per delta."""
    delay: float = 0.0
    """Seconds to wait between deltas (0: none, but still yields to the loop)."""
    first_delay: float = 0.0
    """Seconds before the first event (a slow server)."""
    hang: bool = False
    """Stall after the blocks until aborted (a server that stops sending)."""


def scripted_text(text: str, **kwargs: Any) -> ScriptedResponse:
    return ScriptedResponse([ScriptedText(text)], **kwargs)


def scripted_tool_call(
    name: str, arguments: dict[str, Any], text: str | None = None, id: str | None = None, **kwargs: Any
) -> ScriptedResponse:
    blocks: list[ScriptedBlock] = [ScriptedText(text)] if text else []
    blocks.append(ScriptedToolCall(name, arguments, id=id))
    return ScriptedResponse(blocks, **kwargs)


def scripted_error(message: str, **kwargs: Any) -> ScriptedResponse:
    return ScriptedResponse([], error=message, **kwargs)


Responder = Callable[[Context, StreamOptions], ScriptedResponse]

_providers: dict[str, ScriptedProvider] = {}


class ScriptedProvider:
    """A queue of scripted responses bound to a provider name."""

    def __init__(self, name: str = "scripted", responder: Responder | None = None) -> None:
        self.name = name
        self.responses: list[ScriptedResponse] = []
        self.responder = responder
        self.requests: list[tuple[Context, StreamOptions]] = []
        self._call_counter = 0
        _providers[name] = self

    def push(self, *responses: ScriptedResponse) -> ScriptedProvider:
        self.responses.extend(responses)
        return self

    def model(self, model_id: str = "scripted-model", **overrides: Any) -> Model:
        values: dict[str, Any] = dict(
            id=model_id,
            name="Scripted model",
            api=API,
            provider=self.name,
            reasoning=True,
            input=["text", "image"],
            cost=ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
            context_window=200_000,
            max_tokens=32_000,
        )
        values.update(overrides)
        return Model(**values)

    def next_response(self, context: Context, options: StreamOptions) -> ScriptedResponse:
        # A shallow snapshot: stored messages are not mutated after message_end, and a deep
        # copy per request would make long scripted sessions quadratic.
        snapshot = Context.model_construct(
            system_prompt=context.system_prompt, messages=list(context.messages), tools=context.tools
        )
        self.requests.append((snapshot, options))
        if self.responses:
            return self.responses.pop(0)
        if self.responder is not None:
            return self.responder(context, options)
        return ScriptedResponse(error="Scripted provider has no response left")

    def next_call_id(self) -> str:
        self._call_counter += 1
        return f"call_{self._call_counter}"


def get_provider(name: str) -> ScriptedProvider | None:
    return _providers.get(name)


def _estimate_input(context: Context) -> int:
    """Rough chars/4 of the request, counting only text (cheap on long sessions)."""
    chars = len(context.system_prompt or "")
    for message in context.messages:
        content = getattr(message, "content", "")
        if isinstance(content, str):
            chars += len(content)
            continue
        for block in content:
            if isinstance(block, TextContent):
                chars += len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += len(str(block.arguments))
    return max(1, chars // 4)


def _chunks(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    provider = _providers.get(model.provider)
    builder = MessageBuilder(model)
    if provider is None:
        for e in builder.fail(f"No scripted provider named '{model.provider}'"):
            yield e
        return
    script = provider.next_response(context, options)
    signal = options.signal

    async def pause(seconds: float) -> bool:
        if seconds > 0:
            return await sleep_or_abort(seconds, signal)
        await asyncio.sleep(0)
        return bool(signal and signal.aborted)

    if await pause(script.first_delay):
        for e in builder.fail("Request was aborted", aborted=True):
            yield e
        return
    for e in builder.start():
        yield e
    output_chars = 0
    for block in script.blocks:
        if isinstance(block, ScriptedToolCall):
            import json

            index, events = builder.toolcall_start(block.id or provider.next_call_id(), block.name)
            pieces = _chunks(json.dumps(block.arguments), script.chunk_size * 4)
        elif isinstance(block, ScriptedThinking):
            index, events = builder.thinking_start(signature=block.signature)
            pieces = _chunks(block.thinking, script.chunk_size)
        else:
            index, events = builder.text_start()
            pieces = _chunks(block.text, script.chunk_size)
        for e in events:
            yield e
        for piece in pieces:
            if await pause(script.delay):
                for e in builder.fail("Request was aborted", aborted=True):
                    yield e
                return
            output_chars += len(piece)
            if isinstance(block, ScriptedToolCall):
                events = builder.toolcall_delta(index, piece)
            elif isinstance(block, ScriptedThinking):
                events = builder.thinking_delta(index, piece)
            else:
                events = builder.text_delta(index, piece)
            for e in events:
                yield e
        for e in builder.end_block(index):
            yield e
    if script.hang:
        if signal is not None:
            await signal.wait()
        for e in builder.fail("Request was aborted", aborted=True):
            yield e
        return
    usage = script.usage or Usage(input=_estimate_input(context), output=max(1, output_chars // 4))
    builder.message.usage = usage = usage.model_copy(deep=True)
    if not usage.total_tokens:
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    builder.usage_updated()
    if script.error:
        for e in builder.fail(script.error):
            yield e
        return
    for e in builder.finish(script.stop_reason):
        yield e
