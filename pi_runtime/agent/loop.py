"""The agent loop, as Pi runs it.

An outer loop that goes round again only for queued follow-ups; inner turns of "stream an
assistant response → run its tool calls → finish the turn → poll steering". Steering is
delivered after the current turn's tool calls and before the next model call; follow-ups
only when the agent would otherwise stop.

Stop conditions: an assistant message that ended in ``error`` or ``aborted`` (its tool
calls are not run); a batch whose every result asked to terminate; a turn with no tool
calls and nothing queued. An abort during tool execution is not a stop of its own: as in
Pi, the loop goes on to the next turn (taking any steering), whose model call ends at once
as an empty ``aborted`` assistant message, so the session records the same entries as Pi's.

The loop sees its agent only through ``LoopHost`` (``loop_host.py``): state, hooks, ``emit`` and
the queue takers; never the agent's private fields.
"""

from __future__ import annotations

import inspect
import time
from typing import TYPE_CHECKING, Any, Literal

from ..ai.options import StreamOptions
from ..ai.stream import stream as default_stream
from ..ai.stream import takes_system_messages, takes_wire_messages
from ..ai.types import AssistantMessage, Context, Model, TextContent, ToolResultMessage
from ..records import record
from .convert import convert_to_llm as default_convert
from .convert import convert_transcript
from .events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from .tool_exec import ToolBatch
from .transcript import Transcript

if TYPE_CHECKING:
    from .loop_host import LoopHost


ABORTED_BEFORE_REQUEST = "This operation was aborted"


@record(frozen=True, slots=True)
class RequestTarget:
    """The model and thinking level one request goes to (the selection unless it was routed)."""

    model: Model
    thinking_level: str


class AgentRun:
    """One low-level run: from ``agent_start`` to ``agent_end``."""

    def __init__(self, agent: LoopHost) -> None:
        self.agent = agent
        self.produced: list[Any] = []
        self._tool_cache: dict[int, Any] = {}

    async def emit(self, event: Any) -> None:
        await self.agent.emit(event)

    async def _add_message(self, message: Any) -> None:
        await self.emit(MessageStartEvent(message))
        self.agent.state.messages.append(message)
        self.produced.append(message)
        await self.emit(MessageEndEvent(message))

    async def run(self, prompts: list[Any], poll_steering_first: bool = False) -> list[Any]:
        await self.emit(AgentStartEvent())
        await self.emit(TurnStartEvent())
        for message in self._declared(prompts):
            await self._add_message(message)
        pending = self.agent.take_steering() if poll_steering_first else []
        first_turn = True
        while True:
            more_tool_calls = True
            while more_tool_calls or pending:
                if not first_turn:
                    if self.agent.prepare_next_turn is not None:
                        await self.agent.prepare_next_turn()
                        if not pending:
                            # It can take a while (a compaction): steering typed meanwhile goes in now.
                            pending = self.agent.take_steering()
                    await self.emit(TurnStartEvent())
                first_turn = False
                # Before every request, as Pi: a tool registered during the last turn is declared now.
                for message in self._declared(pending):
                    await self._add_message(message)
                pending = []
                assistant = await self._stream_response()
                if assistant.stop_reason in ("error", "aborted"):
                    await self.emit(TurnEndEvent(assistant, []))
                    return await self._end()
                calls = assistant.tool_calls()
                results: list[ToolResultMessage] = []
                terminate = False
                if calls:
                    batch = ToolBatch(self.agent, assistant, self.emit)
                    results, terminate = await batch.run(calls)
                    self.produced.extend(results)
                await self.emit(TurnEndEvent(assistant, results))
                if self.agent.ending_after_turn:
                    return await self._end()
                more_tool_calls = bool(calls) and not terminate
                pending = self.agent.take_steering()
            follow_ups = self.agent.take_follow_up()
            if not follow_ups:
                break
            pending = follow_ups
        return await self._end()

    def _declared(self, pending: list[Any]) -> list[Any]:
        declare = self.agent.declare_loadout
        return pending if declare is None else declare(pending)

    async def _end(self) -> list[Any]:
        await self.emit(AgentEndEvent(list(self.produced)))
        return self.produced

    def _tool_specs(self) -> list[Any]:
        specs = []
        for tool in self.agent.state.tools:
            if tool.declaration_hidden:  # callable (codemode ``only``), not declared
                continue
            cached = self._tool_cache.get(id(tool))
            if cached is None or cached[0] is not tool.declared_description:
                cached = self._tool_cache[id(tool)] = (tool.declared_description, tool.to_tool())
            specs.append(cached[1])
        return specs

    async def _request_auth(self, model: Model) -> tuple[str | None, dict[str, str | None], str | None]:
        """``(key, headers, base URL the credential names or None)`` for the next request (to ``model``)."""
        agent = self.agent
        if agent.get_request_auth is not None:
            auth = agent.get_request_auth(model)
            if inspect.isawaitable(auth):
                auth = await auth
            return auth.api_key, dict(auth.headers or {}), getattr(auth, "base_url", None)
        if agent.get_api_key is not None:
            key = agent.get_api_key(model.provider)
            if inspect.isawaitable(key):
                key = await key
            return key, {}, None
        return None, {}, None

    async def _send_again_after_refusal(self, final: AssistantMessage, api_key: str | None, model: Model) -> bool:
        """After a 401 that came before anything streamed: whether a renewed sign-in may be tried.

        A signed-in credential can be refused before its expiry (revoked, rotated elsewhere); it is
        renewed once and the request sent again. When the renewal fails its message (how to log in
        again) is added to the error.
        """
        agent = self.agent
        if agent.reauthorize is None or final.stop_reason != "error" or not final.error_message:
            return False
        from ..ai.errors import status_in_text

        if status_in_text(final.error_message) != 401:
            return False
        try:
            return await agent.reauthorize(model, api_key)
        except Exception as exc:  # noqa: BLE001 - the refresh failed: say so with the refusal
            if not (agent.signal is not None and agent.signal.aborted):
                final.error_message = f"{final.error_message}\n{exc}"
            return False

    async def _fail_without_request(self, error: str, stop_reason: Literal["error", "aborted"] = "error", *,
                                    target: RequestTarget | None = None) -> AssistantMessage:
        model = target.model if target is not None else self.agent.state.model
        level = target.thinking_level if target is not None else self.agent.state.thinking_level
        message = AssistantMessage(
            api=model.api, provider=model.provider, model=model.id, stop_reason=stop_reason, error_message=error,
            duration_ms=0, thinking_level=(level if model.reasoning else None) or "off",
        )
        return await self._add_failure(message)

    async def _add_failure(self, message: AssistantMessage) -> AssistantMessage:
        await self.emit(MessageStartEvent(message))
        self.agent.state.error_message = message.error_message
        self.agent.state.messages.append(message)
        self.produced.append(message)
        await self.emit(MessageEndEvent(message))
        return message

    async def _target(self) -> RequestTarget | AssistantMessage:
        """The model and level for the next request: the selection, or where ``prepare_request``
        routes it. A routing failure ends the turn with an error message naming the selection, in
        the shape Pi gives a run that failed before its request (an empty text block, no timing)."""
        agent = self.agent
        state = agent.state
        if agent.prepare_request is not None:
            try:
                target = await agent.prepare_request(agent.signal)
            except Exception as exc:  # noqa: BLE001 - a router's failure is this request's error response
                aborted = agent.signal is not None and agent.signal.aborted
                model = state.model
                return await self._add_failure(AssistantMessage(
                    content=[TextContent(text="")], api=model.api, provider=model.provider, model=model.id,
                    stop_reason="aborted" if aborted else "error", error_message=str(exc) or type(exc).__name__,
                ))
            if target is not None:
                return target
        return RequestTarget(state.model, state.thinking_level)

    async def _stream_response(self) -> AssistantMessage:
        started = time.monotonic()
        agent = self.agent
        state = agent.state
        if agent.signal is not None and agent.signal.aborted:
            # Aborted before the request (mid-tool, the host's pre-run hooks, a context transform):
            # none is sent. Pi's message here is the one its fetch rejects an aborted signal with.
            return await self._fail_without_request(ABORTED_BEFORE_REQUEST, stop_reason="aborted")
        target = await self._target()
        if isinstance(target, AssistantMessage):
            return target
        model = target.model
        source = state.messages  # read after routing: a compaction before the request replaces it
        if (isinstance(source, Transcript) and source.pending and agent.transform_context is None
                and agent.convert_to_llm is default_convert and agent.stream_fn is default_stream
                and takes_wire_messages(model.api)):
            # Stored messages go into the request as the session file's dicts (see Transcript);
            # for any other provider the transcript is validated here, once.
            llm_messages = convert_transcript(source.stored_dicts(), source.stored_roles(), source.added(),
                                              keep_system=takes_system_messages(model.api))
        else:
            messages = list(source)
            if agent.transform_context is not None:
                messages = await agent.transform_context(messages, agent.signal)
            if agent.convert_to_llm is default_convert and takes_system_messages(model.api):
                llm_messages = default_convert(messages, keep_system=True)  # Pi's own API sends the transcript
            else:
                llm_messages = agent.convert_to_llm(messages)
        if agent.block_images is not None and agent.block_images():
            from ..tools.image_resize import without_images

            llm_messages = without_images(llm_messages)  # images.blockImages, read at each request
        specs = self._tool_specs()
        context = Context.model_construct(
            system_prompt=state.system_prompt, messages=llm_messages, tools=specs or None
        )
        refused_once = False
        while True:
            try:
                api_key, headers, base_url = await self._request_auth(model)
            except Exception as exc:  # noqa: BLE001 - e.g. a failing `!command` key in models.json
                if agent.signal is not None and agent.signal.aborted:
                    # Aborted while the key was being fetched (an OAuth refresh): the turn is aborted.
                    return await self._fail_without_request("Request was aborted", stop_reason="aborted",
                                                            target=target)
                return await self._fail_without_request(f"Could not get credentials: {exc}", target=target)
            options = StreamOptions(
                api_key=api_key,
                headers=headers,
                signal=agent.signal,
                reasoning=target.thinking_level if model.reasoning else None,
                session_id=agent.session_id,
                max_tokens=agent.max_tokens,
                temperature=agent.temperature,
            )
            if agent.request_limits is not None:
                agent.request_limits().apply(options)
            # A credential may name its own endpoint (GitHub Copilot's account endpoint).
            request_model = model.model_copy(update={"base_url": base_url}) if base_url else model
            stream = agent.stream_fn(request_model, context, options)
            partial: AssistantMessage | None = None
            async for event in stream:
                kind = event.type
                if kind == "start":
                    partial = event.partial
                    state.streaming_message = partial
                    await self.emit(MessageStartEvent(partial))
                elif kind == "done" or kind == "error":
                    pass  # the final message is taken from result() below
                else:
                    if partial is None:
                        partial = event.partial
                        state.streaming_message = partial
                        await self.emit(MessageStartEvent(partial))
                    await self.emit(MessageUpdateEvent(partial, event))
            final = await stream.result()
            if partial is None and not refused_once and await self._send_again_after_refusal(final, api_key, model):
                refused_once = True  # nothing was shown yet: the renewed request replaces this one
                continue
            break
        # Pi records on every answer how long the call took and the thinking level it asked for.
        if final.duration_ms is None:
            final.duration_ms = round((time.monotonic() - started) * 1000)
        if final.thinking_level is None:
            final.thinking_level = options.reasoning or "off"
        if partial is None:
            await self.emit(MessageStartEvent(final))
        state.streaming_message = None
        if final.stop_reason == "error":
            state.error_message = final.error_message
        state.messages.append(final)
        self.produced.append(final)
        await self.emit(MessageEndEvent(final))
        return final
