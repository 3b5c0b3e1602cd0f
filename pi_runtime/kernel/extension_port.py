"""The two narrow seams between the kernel and the extension runner.

``ExtensionGate`` is what the kernel asks of extensions (input hooks, ``before_agent_start``,
the ``session_before_*`` vetoes, ``user_bash``, notifications) and tells them (abort,
shutdown); with no runner attached every question has the neutral answer. ``SessionActions``
is what the runner may do to the session (start a run, queue or store a message, emit an
event, swap the agent's hooks, change the tools or the prompt) instead of reaching into the
session's fields.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..records import record

if TYPE_CHECKING:
    from ..agent.tool import AgentTool
    from ..ai.abort import AbortSignal
    from .events import KernelEvent


class ExtensionHooks(Protocol):
    """The part of ``ExtensionRunner`` the kernel calls."""

    async def handle_input(self, text: str, images: list[Any] | None, streaming_behavior: str | None) -> str | None: ...
    def expand_templates(self) -> bool: ...
    async def before_agent_start(self, prompts: list[Any]) -> list[Any]: ...
    async def emit_cancellable(self, name: str, **fields: Any) -> bool: ...
    async def emit_gate(self, name: str, supplies: str | None = None, **fields: Any) -> Any: ...
    async def emit_named(self, name: str, **fields: Any) -> None: ...
    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> Any: ...
    def abort(self) -> None: ...
    async def shutdown(self, reason: str) -> None: ...


class ExtensionGate:
    """Forwards the kernel's questions to the attached runner, if any."""

    def __init__(self) -> None:
        self.runner: ExtensionHooks | None = None

    async def handle_input(self, text: str, images: list[Any] | None, streaming_behavior: str | None) -> str | None:
        """The text to send (possibly transformed), or None when an extension handled it."""
        if self.runner is None:
            return text
        return await self.runner.handle_input(text, images, streaming_behavior)

    def expand_templates(self) -> bool:
        """Whether the input being routed may expand ``/skill:`` and ``/template`` (False for
        ``pi.send_user_message`` without ``expand_prompt_templates``)."""
        return self.runner is None or self.runner.expand_templates()

    async def before_agent_start(self, prompts: list[Any]) -> list[Any]:
        if self.runner is None:
            return prompts
        return await self.runner.before_agent_start(prompts)

    async def cancels(self, name: str, **fields: Any) -> bool:
        """Whether an extension vetoes a ``session_before_*`` operation."""
        return self.runner is not None and await self.runner.emit_cancellable(name, **fields)

    async def decides(self, name: str, supplies: str, **fields: Any) -> GateDecision:
        """A ``session_before_*`` gate whose handlers may also hand over the work's result (the
        ``supplies`` field of their answer: a ``compaction``, a ``summary``)."""
        if self.runner is None:
            return GateDecision()
        decision: GateDecision = await self.runner.emit_gate(name, supplies, **fields)
        return decision

    async def notify(self, name: str, **fields: Any) -> None:
        if self.runner is not None:
            await self.runner.emit_named(name, **fields)

    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> Any:
        """What ``user_bash`` handlers decided: None (run it here), or a ``UserBashDecision``."""
        if self.runner is None:
            return None
        return await self.runner.user_bash(command, exclude_from_context, cwd)

    def abort(self) -> None:
        """The session is aborting: in-flight handlers of the run's events are cancelled."""
        if self.runner is not None:
            self.runner.abort()

    async def shutdown(self, reason: str) -> None:
        if self.runner is not None:
            await self.runner.shutdown(reason)


@record
class GateDecision:
    """What a ``session_before_*`` gate's handlers decided."""

    cancelled: bool = False
    supplied: Any = None
    """The result a handler handed over instead of pi working it out (None: pi does the work)."""


@record
class TreePreparation:
    """What ``/tree`` is about to do, for ``session_before_tree`` handlers."""

    target_id: str
    old_leaf_id: str | None
    common_ancestor_id: str | None
    entries_to_summarize: list[Any]
    """The entries of the branch being left, root first (what a summary would cover)."""
    user_wants_summary: bool
    custom_instructions: str | None = None


@record
class UserBashDecision:
    """What ``user_bash`` handlers decided about a ``!`` command (exactly one field is set)."""

    operations: Any = None
    """Run it through this backend: ``await operations.exec(command, cwd, on_data=, signal=, timeout=, env=)``."""
    result: dict[str, Any] | None = None
    """Record this outcome without running anything (``output``, ``exitCode``, ``cancelled``, ``truncated``)."""
    blocked: str | None = None
    """Do not run it: a handler failed (fail closed); the reason is recorded as the output."""


@record
class AgentHookSet:
    """The agent's replaceable hooks, swapped as one (see ``SessionActions.swap_agent_hooks``)."""

    before_tool_call: Any = None
    after_tool_call: Any = None
    transform_context: Any = None
    stream_fn: Callable[..., Any] | None = None
    checks_each_call: Callable[[], bool] | None = None
    """True when a batch of tool calls must run one by one, each checked just before it runs."""


class SessionActions(Protocol):
    """What an extension runner may do to its session."""

    @property
    def is_streaming(self) -> bool: ...
    @property
    def signal(self) -> AbortSignal | None: ...
    def has_pending_messages(self) -> bool: ...
    def check_ready(self) -> None: ...
    def start_run(self, messages: list[Any]) -> None: ...
    def steer_message(self, message: Any) -> None: ...
    def follow_up_message(self, message: Any) -> None: ...
    def defer_message(self, message: Any) -> None: ...
    def defer_to_turn_end(self, message: Any) -> None: ...
    def store_message(self, message: Any) -> None: ...
    async def emit(self, event: KernelEvent) -> None: ...
    def emit_soon(self, event: KernelEvent) -> None: ...
    def refresh_system_prompt(self) -> None: ...
    def set_system_prompt(self, text: str) -> None: ...
    def active_tools(self) -> list[AgentTool]: ...
    def set_tools(self, tools: list[AgentTool]) -> None: ...
    def swap_agent_hooks(self, hooks: AgentHookSet) -> AgentHookSet: ...
    def emit_agent_event(self, event: Any) -> Awaitable[None]: ...
