"""``KernelActions``: what an extension runner may do to its session (the ``SessionActions`` port).

Extensions start runs, queue, defer or store messages, emit events, change the tools and the
system prompt and install the agent's hooks through this object, never through the session's
parts or private fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agent.agent import Agent
from ..agent.tool import AgentTool
from ..ai.abort import AbortSignal
from .extension_port import AgentHookSet
from .outbox import EventOutbox
from .record import SessionRecord
from .run_driver import RunDriver


class KernelActions:
    """The session's actions port for its extension runner.

    Args:
        agent: Its queues take steered and follow-up messages; its hooks and tools are swapped here.
        driver: Starts runs and keeps messages that arrive mid-run.
        record: Stores messages.
        outbox: Emits events.
        check_ready: Raises ``PromptError`` when no run could start.
        refresh_system_prompt: Rebuilds the system prompt.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        driver: RunDriver,
        record: SessionRecord,
        outbox: EventOutbox,
        check_ready: Callable[[], None],
        refresh_system_prompt: Callable[[], None],
    ) -> None:
        self._agent = agent
        self._driver = driver
        self._record = record
        self._outbox = outbox
        self._after_turn: list[Any] = []
        self.check_ready = check_ready
        self.refresh_system_prompt = refresh_system_prompt

    # ------------------------------------------------------------------ state

    @property
    def is_streaming(self) -> bool:
        return self._driver.is_running

    @property
    def signal(self) -> AbortSignal | None:
        """The run's abort signal while the agent runs, else None."""
        return self._agent.signal if self._agent.is_streaming else None

    def has_pending_messages(self) -> bool:
        """Whether steering or follow-up messages (the user's or an extension's) are queued."""
        return bool(self._agent.steering_queue or self._agent.follow_up_queue)

    # ------------------------------------------------------------------ messages

    def start_run(self, messages: list[Any]) -> None:
        """Start a run with ``messages`` (the session is idle)."""
        self._driver.start(messages)

    def steer_message(self, message: Any) -> None:
        self._agent.steer(message)

    def follow_up_message(self, message: Any) -> None:
        self._agent.follow_up(message)

    def defer_message(self, message: Any) -> None:
        """Keep ``message`` until the run in progress settles (stored at once when idle)."""
        if not self._driver.defer(message):
            self._record.add(message)

    def defer_to_turn_end(self, message: Any) -> None:
        """Store ``message`` when the current turn ends, after its tool results (at once when idle).

        Appending mid-turn could land between a tool call and its result, which providers
        reject on replay; at the turn's end the next model call of the same run sees it.
        """
        if self._driver.is_running:
            self._after_turn.append(message)
        else:
            self.store_message(message)

    def flush_turn_end(self) -> None:
        """Store what :meth:`defer_to_turn_end` kept (the kernel calls this at each turn and run end)."""
        while self._after_turn:
            self.store_message(self._after_turn.pop(0))

    def store_message(self, message: Any) -> None:
        """Add a message to the transcript and file, and announce it (``message_start``/``_end``)."""
        from ..agent.events import MessageEndEvent, MessageStartEvent

        self._record.add(message)
        self._outbox.emit_soon(MessageStartEvent(message))
        self._outbox.emit_soon(MessageEndEvent(message))

    # ------------------------------------------------------------------ events

    async def emit(self, event: Any) -> None:
        await self._outbox.emit(event)

    def emit_soon(self, event: Any) -> None:
        self._outbox.emit_soon(event)

    async def emit_agent_event(self, event: Any) -> None:
        """Deliver an agent event the runner made (a nested tool call's ``tool_execution_*``)."""
        await self._outbox.emit(event)

    # ------------------------------------------------------------------ tools, prompt, hooks

    def active_tools(self) -> list[AgentTool]:
        return list(self._agent.state.tools)

    def set_tools(self, tools: list[AgentTool]) -> None:
        """Make exactly ``tools`` active (the caller rebuilds the prompt)."""
        self._agent.state.tools = list(tools)

    def set_system_prompt(self, text: str) -> None:
        """Use ``text`` as the system prompt until the next rebuild (``before_agent_start``)."""
        self._agent.state.system_prompt = text

    def swap_agent_hooks(self, hooks: AgentHookSet) -> AgentHookSet:
        """Install ``hooks`` on the agent (None fields keep no hook; ``stream_fn`` None keeps the
        current one). Returns the hooks that were installed before."""
        agent = self._agent
        previous = AgentHookSet(agent.before_tool_call, agent.after_tool_call, agent.transform_context, agent.stream_fn,
                                agent.checks_each_call)
        agent.before_tool_call = hooks.before_tool_call
        agent.after_tool_call = hooks.after_tool_call
        agent.transform_context = hooks.transform_context
        agent.checks_each_call = hooks.checks_each_call
        if hooks.stream_fn is not None:
            agent.stream_fn = hooks.stream_fn
        return previous
