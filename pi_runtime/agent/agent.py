"""``Agent``: the stateful wrapper around the loop.

It owns the transcript and the tools, runs one loop at a time, queues steering and
follow-up messages, and hands every event to its subscribers (awaited in registration
order, so a subscriber that persists messages sees them in order).

Hooks (all optional; each documents its contract):

- ``convert_to_llm(messages) -> messages``: must not raise; turns stored messages into
  user/assistant/toolResult for the provider.
- ``transform_context(messages, signal) -> messages`` (async): runs before each request
  (pruning, injected context). An exception ends the run with an error message.
- ``get_api_key(provider) -> str | None`` (sync or async): called before each request,
  so expiring keys can be refreshed. ``get_request_auth(model)`` returns key and headers
  together (models.json headers) and wins when set. An exception from either ends the
  turn with an error message, never out of the loop.
- ``before_tool_call`` / ``after_tool_call``: see ``tool_exec``.
- ``prepare_request(signal) -> RequestTarget | None`` (async): called before every model request;
  returns where this request goes (a virtual model's router picked it) or None for the selection.
  An exception ends the turn with an error message naming the selection (routing failed).
- ``declare_loadout(pending) -> messages``: called before every model request with the
  messages about to go in (the prompts, steering, follow-ups; often none); returns them with
  any message to add first (the kernel's declaration of changed tools, as Pi 1.6). Must not raise.
- ``prepare_next_turn()`` (async): called between the turns of a run, before the next turn
  starts (Pi's ``prepareNextTurn``); the kernel compacts there when the context is over the
  threshold, and may replace ``state.messages``. Must not raise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import field
from typing import Any, Literal

from ..ai.abort import AbortController, AbortSignal
from ..ai.options import RequestLimits
from ..ai.stream import stream as default_stream
from ..ai.types import ImageContent, Model, TextContent, UserMessage
from ..records import record
from .convert import convert_to_llm as default_convert
from .listeners import Listener, Listeners
from .loop import AgentRun, RequestTarget
from .tool import AgentTool
from .tool_exec import AfterHook, BeforeHook

QueueMode = Literal["one-at-a-time", "all"]
QueueKind = Literal["steer", "follow_up"]
StreamingBehavior = Literal["steer", "followUp"]
"""Where text sent while a run streams goes (Pi's ``streamingBehavior``): steering or a follow-up."""


@record
class AgentState:
    model: Model
    system_prompt: str = ""
    thinking_level: str = "off"
    tools: list[AgentTool] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    is_streaming: bool = False
    streaming_message: Any = None
    pending_tool_calls: set[str] = field(default_factory=set)
    error_message: str | None = None


class AgentBusyError(RuntimeError):
    pass


class Agent:
    def __init__(
        self,
        model: Model,
        *,
        system_prompt: str = "",
        tools: list[AgentTool] | None = None,
        messages: list[Any] | None = None,
        thinking_level: str = "off",
        stream_fn: Callable[..., Any] = default_stream,
        convert_to_llm: Callable[[list[Any]], list[Any]] = default_convert,
        transform_context: Callable[[list[Any], AbortSignal | None], Awaitable[list[Any]]] | None = None,
        get_api_key: Callable[[str], Any] | None = None,
        get_request_auth: Callable[[Model], Any] | None = None,
        before_tool_call: BeforeHook | None = None,
        after_tool_call: AfterHook | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        tool_execution: Literal["parallel", "sequential"] = "parallel",
        session_id: str | None = None,
    ) -> None:
        self.state = AgentState(
            model=model,
            system_prompt=system_prompt,
            thinking_level=thinking_level,
            tools=list(tools or []),
            messages=list(messages or []),
        )
        self.stream_fn = stream_fn
        self.convert_to_llm = convert_to_llm
        self.transform_context = transform_context
        self.get_api_key = get_api_key
        self.get_request_auth = get_request_auth
        """Returns an object with ``api_key`` and ``headers`` (sync or async), optionally ``base_url``
        (an endpoint the credential names); wins over get_api_key."""
        self.reauthorize: Callable[[Model, str | None], Awaitable[bool]] | None = None
        """Called once per request when the server refused the key (401) before anything streamed:
        renews a signed-in credential that was refused before its time; True sends the request again.
        May raise to say why the sign-in cannot be renewed."""
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.checks_each_call: Callable[[], bool] | None = None
        """True while ``before_tool_call`` gates calls on the state they run in (a permission
        gate): a batch then runs one call at a time, each checked just before it runs."""
        self.prepare_request: Callable[[AbortSignal | None], Awaitable[RequestTarget | None]] | None = None
        """See the module docstring: routes a request made with a virtual model."""
        self.declare_loadout: Callable[[list[Any]], list[Any]] | None = None
        """See the module docstring: lets the kernel add a system message before a request."""
        self.prepare_next_turn: Callable[[], Awaitable[None]] | None = None
        """See the module docstring: the kernel's compaction between the turns of a run."""
        self.block_images: Callable[[], bool] | None = None
        """True when images must not reach the model (``images.blockImages``), asked at each request."""
        self.steering_mode: QueueMode = steering_mode
        self.follow_up_mode: QueueMode = follow_up_mode
        self.tool_execution = tool_execution
        self.session_id = session_id
        self.max_tokens: int | None = None
        self.temperature: float | None = None
        self.request_limits: Callable[[], RequestLimits] | None = None
        """Timeouts and the server-delay cap for each request (from settings); None: the defaults."""
        self._listeners = Listeners()
        self._steering: list[Any] = []
        self._follow_up: list[Any] = []
        self._controller: AbortController | None = None
        self._run_task: asyncio.Future[Any] | None = None
        self._scheduled: list[Any] = []
        self._drain_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener (sync or async). Returns a function that removes it."""
        return self._listeners.add(listener)

    # The loop's surface (see ``loop.LoopHost``): emitting, and taking queued messages.

    async def emit(self, event: Any) -> None:
        """Deliver ``event`` to every subscriber, after any event queued with :meth:`emit_soon`."""
        if self._scheduled:
            await self.flush_events()
        await self._listeners.emit(event)

    def emit_soon(self, event: Any) -> None:
        """Emit from synchronous code (a tool's update callback), keeping event order."""
        self._scheduled.append(event)
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = asyncio.ensure_future(self.flush_events())

    async def flush_events(self) -> None:
        """Deliver what :meth:`emit_soon` queued (a tool's end waits for its updates to be out)."""
        while self._scheduled:
            await self._listeners.emit(self._scheduled.pop(0))

    # ------------------------------------------------------------------ queues

    @property
    def signal(self) -> AbortSignal | None:
        return self._controller.signal if self._controller else None

    def steer(self, message: Any) -> None:
        """Queue a message delivered after the current tool calls, before the next model call."""
        self._steering.append(_as_message(message))

    def follow_up(self, message: Any) -> None:
        """Queue a message delivered only when the agent would otherwise stop."""
        self._follow_up.append(_as_message(message))

    def clear_steering_queue(self) -> list[Any]:
        taken, self._steering = self._steering, []
        return taken

    def clear_follow_up_queue(self) -> list[Any]:
        taken, self._follow_up = self._follow_up, []
        return taken

    def clear_all_queues(self) -> tuple[list[Any], list[Any]]:
        return self.clear_steering_queue(), self.clear_follow_up_queue()

    @property
    def steering_queue(self) -> list[Any]:
        return list(self._steering)

    @property
    def follow_up_queue(self) -> list[Any]:
        return list(self._follow_up)

    def _queue_of(self, kind: QueueKind) -> list[Any]:
        return self._steering if kind == "steer" else self._follow_up

    def replace_queued(self, old: Any, new: Any) -> bool:
        """Put ``new`` where ``old`` waits (matched by identity); False when ``old`` is no longer queued.

        Synchronous, so the loop cannot take ``old`` half-way through the swap.
        """
        for queue in (self._steering, self._follow_up):
            for i, queued in enumerate(queue):
                if queued is old:
                    queue[i] = new
                    return True
        return False

    def remove_queued(self, message: Any) -> bool:
        """Drop ``message`` (matched by identity) from whichever queue holds it; False when it is not queued."""
        for queue in (self._steering, self._follow_up):
            for i, queued in enumerate(queue):
                if queued is message:
                    del queue[i]
                    return True
        return False

    def place_queued(self, message: Any, kind: QueueKind, before: Any = None) -> bool:
        """Move a queued ``message`` into the ``kind`` queue, just before ``before`` (at the end when None
        or not queued there). False (nothing moved) when ``message`` is no longer queued."""
        if not self.remove_queued(message):
            return False
        queue = self._queue_of(kind)
        for i, queued in enumerate(queue):
            if queued is before:
                queue.insert(i, message)
                return True
        queue.append(message)
        return True

    def _take(self, queue: list[Any], mode: QueueMode) -> list[Any]:
        if not queue:
            return []
        if mode == "all":
            taken = list(queue)
            queue.clear()
            return taken
        return [queue.pop(0)]

    def take_steering(self) -> list[Any]:
        """Take the steering messages due now (one, or all in ``all`` mode); the loop calls this
        after each turn's tool calls."""
        taken = self._take(self._steering, self.steering_mode)
        if taken and self.on_queue_taken is not None:
            self.on_queue_taken("steer", taken)
        return taken

    def take_follow_up(self) -> list[Any]:
        """Take the follow-up messages due now; the loop calls this when it would otherwise stop."""
        taken = self._take(self._follow_up, self.follow_up_mode)
        if taken and self.on_queue_taken is not None:
            self.on_queue_taken("followUp", taken)
        return taken

    on_queue_taken: Callable[[str, list[Any]], None] | None = None
    """Called (synchronously) when queued messages are delivered; the kernel mirrors its UI queue."""

    # ------------------------------------------------------------------ running

    @property
    def is_streaming(self) -> bool:
        return self.state.is_streaming

    async def prompt(
        self, input: str | Any | list[Any], images: list[ImageContent] | None = None, *, aborted: bool = False
    ) -> list[Any]:
        """Start a run with new input and wait for it to finish. Returns the messages it produced.

        ``aborted``: the host was told to abort before the run began (while ``before_agent_start``
        hooks ran): the input is recorded and the turn ends aborted without a model request.
        """
        if self.state.is_streaming:
            raise AgentBusyError("Agent is already processing a prompt. Use steer() or follow_up().")
        if isinstance(input, str):
            # Blocks even for plain text: Pi's normalizePromptInput stores every prompt so.
            prompts = [UserMessage(content=[TextContent(text=input), *(images or ())])]
        elif isinstance(input, list):
            prompts = list(input)
        else:
            prompts = [input]
        return await self._run(prompts, poll_steering_first=False, aborted=aborted)

    async def continue_(self) -> list[Any]:
        """Continue from the existing transcript (e.g. after an error or a retry).

        With a user/toolResult tail the model is asked again; with an assistant tail one
        queued steering (then follow-up) batch is delivered instead.
        """
        if self.state.is_streaming:
            raise AgentBusyError("Agent is already processing.")
        messages = [m for m in self.state.messages if getattr(m, "role", None) != "system"]
        if not messages:
            raise ValueError("No messages to continue from")
        if getattr(messages[-1], "role", None) == "assistant":
            batch = self.take_steering() or self.take_follow_up()
            if not batch:
                raise ValueError("Cannot continue from an assistant message with nothing queued")
            return await self._run(batch, poll_steering_first=False)
        return await self._run([], poll_steering_first=True)

    async def _run(self, prompts: list[Any], poll_steering_first: bool, aborted: bool = False) -> list[Any]:
        self.state.is_streaming = True
        self.state.error_message = None
        self._controller = AbortController()
        self.ending_after_turn = False
        if aborted:
            self._controller.abort()
        loop = asyncio.get_running_loop()
        self._run_task = loop.create_future()
        try:
            return await AgentRun(self).run(prompts, poll_steering_first)
        finally:
            self.state.is_streaming = False
            self.state.streaming_message = None
            self.state.pending_tool_calls.clear()
            if not self._run_task.done():
                self._run_task.set_result(None)

    ending_after_turn = False
    """Set by :meth:`end_after_turn`; the loop reads it after each ``turn_end``."""

    def end_after_turn(self) -> None:
        """End the run cleanly once the current turn has ended (Pi's ``finishTurn`` → ``end``):
        no further model call, and unlike :meth:`abort` nothing is cut off or recorded as aborted.
        Meant for a ``turn_end`` listener (the per-prompt budget)."""
        self.ending_after_turn = True

    def abort(self, reason: str | None = None) -> None:
        """Cancel the current run: the stream ends as aborted, running tools get the signal."""
        if self._controller is not None:
            self._controller.abort(reason)

    async def wait_for_idle(self) -> None:
        if self._run_task is not None and not self._run_task.done():
            await asyncio.shield(self._run_task)

    def reset(self) -> None:
        """Forget the transcript, queues and error state (model, tools and prompt stay)."""
        self.state.messages = []
        self.state.error_message = None
        self.state.streaming_message = None
        self.state.pending_tool_calls.clear()
        self.clear_all_queues()


def _as_message(message: Any) -> Any:
    if isinstance(message, str):
        return UserMessage(content=[TextContent(text=message)])
    return message
