"""``LoopHost``: everything the agent loop (``loop.AgentRun``, ``tool_exec.ToolBatch``) uses of its agent.

The loop reads the agent's state and hooks and calls four methods; it never reaches into the
agent's private fields. ``Agent`` implements this; a test or another host may too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from ..ai.abort import AbortSignal
    from ..ai.options import RequestLimits
    from ..ai.types import Model
    from .agent import AgentState
    from .loop import RequestTarget
    from .tool_exec import AfterHook, BeforeHook


class LoopHost(Protocol):
    """What one run of the loop needs from the agent that started it."""

    state: AgentState
    """Model, system prompt, thinking level, tools and the transcript the loop appends to."""
    stream_fn: Callable[..., Any]
    convert_to_llm: Callable[[list[Any]], list[Any]]
    transform_context: Callable[[list[Any], AbortSignal | None], Awaitable[list[Any]]] | None
    get_api_key: Callable[[str], Any] | None
    get_request_auth: Callable[[Model], Any] | None
    reauthorize: Callable[[Model, str | None], Awaitable[bool]] | None
    before_tool_call: BeforeHook | None
    after_tool_call: AfterHook | None
    checks_each_call: Callable[[], bool] | None
    declare_loadout: Callable[[list[Any]], list[Any]] | None
    prepare_request: Callable[[AbortSignal | None], Awaitable[RequestTarget | None]] | None
    """Where the next request goes (a virtual model's router); None: the selection."""
    prepare_next_turn: Callable[[], Awaitable[None]] | None
    """Between the turns of a run, before the next turn starts (a compaction of the context)."""
    block_images: Callable[[], bool] | None
    tool_execution: Literal["parallel", "sequential"]
    session_id: str | None
    max_tokens: int | None
    temperature: float | None
    request_limits: Callable[[], RequestLimits] | None
    ending_after_turn: bool
    """Set during a turn (``Agent.end_after_turn``): the run ends once the turn has."""

    @property
    def signal(self) -> AbortSignal | None:
        """The run's abort signal."""

    async def emit(self, event: Any) -> None:
        """Deliver an event to the agent's subscribers (after any queued with ``emit_soon``)."""

    def emit_soon(self, event: Any) -> None:
        """Queue an event from synchronous code (a tool's update callback), in order."""

    async def flush_events(self) -> None:
        """Deliver what ``emit_soon`` queued."""

    def take_steering(self) -> list[Any]:
        """The steering messages due now (possibly none)."""

    def take_follow_up(self) -> list[Any]:
        """The follow-up messages due now (possibly none)."""
