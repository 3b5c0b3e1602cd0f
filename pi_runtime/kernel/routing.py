"""``RequestRouter``: a session's side of virtual models (``pi_runtime.ai.virtual``).

While the selection is a virtual model, every request of the agent loop goes through
:meth:`RequestRouter.prepare`: it works out why the request is made (``user``, ``continuation``,
``retry``), hands the router the conversation, the latest physical response and the router state
stored on the branch, stores new state as a ``pi.virtual-model-state`` custom entry before the
request is sent, and compacts first when the routed model's window is too small for the
conversation (the route stands). The selection itself never changes: the agent keeps the virtual
model, and each assistant message names the physical model that answered.

It also answers which model's limits apply to the conversation (the physical model of the latest
response, else the selection) and routes requests made outside the loop (summaries) as ``direct``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..agent.agent import Agent
from ..agent.convert import convert_to_llm
from ..agent.loop import RequestTarget
from ..ai.abort import AbortSignal
from ..ai.types import Model, is_virtual
from .events import EntryAppendedEvent
from .record import SessionRecord

if TYPE_CHECKING:
    from ..ai.virtual import FailedRequest, RoutedModel, RouteReason

# ``pi_runtime.ai.virtual`` is imported where a virtual model is in use, not at start-up (~3 ms); reading
# the branch needs only ``ai.virtual_branch``.


class RequestRouter:
    """Routes the requests of one session while a virtual model is selected.

    Args:
        agent: Holds the selection, the thinking level and the transcript.
        record: The session file (router state entries, the branch).
        registry: The ``ModelRegistry`` (None: no virtual models).
        emit: The kernel's event outlet (``entry_appended`` for a state entry).
        compact_for: ``await compact_for(model)`` compacts when the context is over the threshold of
            ``model``'s window; True when it compacted.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        record: SessionRecord,
        registry: Any,
        emit: Callable[[Any], Awaitable[None]],
        compact_for: Callable[[Model], Awaitable[bool]],
    ) -> None:
        self._agent = agent
        self._record = record
        self._registry = registry
        self._emit = emit
        self._compact_for = compact_for
        self.failed: Any = None
        """The failed assistant message the next request repeats (set by retry and overflow recovery)."""

    @property
    def selecting_virtual(self) -> bool:
        """Whether the selection is a virtual model."""
        return self._registry is not None and is_virtual(self._agent.state.model)

    # ------------------------------------------------------------------ hooks of the other parts

    def starting_run(self) -> None:
        """A prompt starts a run: record a virtual selection the branch does not imply; a retry a
        compaction before the prompt planned is replaced by the prompt."""
        self.failed = None
        self.record_selection()

    def retrying(self, failed: Any) -> None:
        """Recovery repeats the request that produced ``failed`` (routed with reason ``retry``)."""
        self.failed = failed

    # ------------------------------------------------------------------ the agent loop's hook

    async def prepare(self, signal: AbortSignal | None) -> RequestTarget | None:
        """Where the next request of the loop goes (None: to the selection, which is physical).

        Raises:
            RoutingError: The router failed; the loop ends the turn with this error.
        """
        failed, self.failed = self.failed, None
        state = self._agent.state
        model = state.model
        if not self.selecting_virtual:
            return None
        from ..ai.virtual import VIRTUAL_MODEL_STATE_ENTRY, ModelRouteRequest, router_state

        messages = self._llm_messages()
        reason: RouteReason = "retry" if failed is not None else "user" if self._user_turn() else "continuation"
        stored = router_state(self._record.manager.raw_branch(), model.provider, model.id)
        request = ModelRouteRequest(
            model=model, thinking_level=state.thinking_level, reason=reason, messages=messages,
            previous=self._previous(messages), failed=self._failed(failed), state=stored, signal=signal,
        )
        route = await self._registry.route_virtual(model, request)
        if route.state is not None and route.state is not stored:
            # Stored before the request is sent, and kept if the request then fails (as Pi).
            manager = self._record.manager
            entry_id = manager.append_custom(VIRTUAL_MODEL_STATE_ENTRY, {
                "provider": model.provider, "modelId": model.id, "state": route.state})
            entry = manager.get_entry(entry_id)
            if entry is not None:
                await self._emit(EntryAppendedEvent(entry))
        await self._compact_for(route.model)
        return RequestTarget(route.model, route.thinking_level)

    def _llm_messages(self) -> list[Any]:
        from ..session.entries import parse_messages

        out = convert_to_llm(list(self._agent.state.messages), keep_system=True)
        dicts = [i for i, m in enumerate(out) if isinstance(m, dict)]
        if dicts:
            parsed = parse_messages([out[i] for i in dicts])
            for i, message in zip(dicts, parsed):
                out[i] = message
        return out

    def _user_turn(self) -> bool:
        """Whether a message the user wrote came after the latest response (Pi: only ``user``
        messages start a turn; an extension's messages may follow them)."""
        messages = self._agent.state.messages
        for index in range(len(messages) - 1, -1, -1):
            role = getattr(messages[index], "role", None)
            if role == "assistant":
                return False
            if role == "user":
                return True
        return False

    def _previous(self, messages: list[Any]) -> RoutedModel | None:
        from ..ai.virtual import RoutedModel, latest_response

        latest = latest_response(messages)
        model = self._registry.physical(latest.provider, latest.model) if latest is not None else None
        return RoutedModel(model, latest.thinking_level) if model is not None else None

    def _failed(self, message: Any) -> FailedRequest | None:
        if message is None:
            return None
        from ..ai.virtual import FailedRequest

        # A failed routing attempt names the virtual model: there is no physical request to report.
        model = self._registry.physical(message.provider, message.model)
        return FailedRequest(model, message.thinking_level, message) if model is not None else None

    # ------------------------------------------------------------------ what the rest of the kernel asks

    def routed(self) -> RoutedModel | None:
        """Under a virtual selection: the physical model and level of the latest successful response."""
        if not self.selecting_virtual:
            return None
        return self._previous(self._agent.state.messages)

    def limits_model(self) -> Model:
        """The model whose context window applies to the conversation now."""
        routed = self.routed()
        return routed.model if routed is not None else self._agent.state.model

    def model_for_message(self, message: Any) -> Model | None:
        """The model whose limits apply to ``message`` (an overflow check): under a virtual selection
        the physical model that produced it (None when unknown: nothing to check it against),
        otherwise the selection."""
        if self.selecting_virtual:
            return self._registry.physical(message.provider, message.model)
        return self._agent.state.model

    async def route_direct(self, model: Model, signal: AbortSignal | None) -> tuple[Model, str]:
        """``(physical model, level)`` for a request outside the loop (a summary) made with ``model``.

        Raises:
            RoutingError: The router failed.
        """
        state = self._agent.state
        if self._registry is None or not is_virtual(model):
            return model, state.thinking_level
        from ..ai.virtual import ModelRouteRequest

        request = ModelRouteRequest(model=model, thinking_level=state.thinking_level, reason="direct",
                                    messages=self._llm_messages(), signal=signal)
        request.previous = self._previous(request.messages)
        route = await self._registry.route_virtual(model, request)
        return route.model, route.thinking_level  # direct requests keep no state

    def record_selection(self) -> None:
        """Record a virtual selection the branch does not imply (tree navigation, ``--model`` on a
        resumed session): responses name physical models, so only a ``model_change`` records it."""
        if self._registry is None:
            return
        model = self._agent.state.model
        if not is_virtual(model) and not self._registry.has_virtual_models:
            return  # neither the selection nor anything the branch records can be virtual: nothing to record
        from ..ai.virtual_branch import branch_selection

        manager = self._record.manager
        recorded = branch_selection(manager.raw_branch(), self._registry.find)
        if recorded is None or recorded == (model.provider, model.id):
            return
        recorded_model = self._registry.find(*recorded)
        if is_virtual(model) or (recorded_model is not None and is_virtual(recorded_model)):
            manager.append_model_change(model.provider, model.id)
