"""``AgentSession``: the one object every front end talks to.

It owns an ``Agent``, a ``SessionManager``, settings, resources and the model registry.
It persists every finished message, keeps the agent's transcript equal to the session's
active context, and runs the automatic work Pi does around a prompt: threshold
compaction, retry of transient errors (with jitter), overflow recovery, and the queues.

The class is split by concern into mixins (``prompting``, ``recovery``, ``tree_ops``,
``compaction_ops``, ``bash_ops``, ``inspect``) so no file grows into Pi's 3,000 lines.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..agent.agent import Agent
from ..agent.events import AgentEndEvent, MessageEndEvent, TurnEndEvent
from ..agent.listeners import Listener, Listeners
from ..ai.types import THINKING_LEVELS, Model
from .bash_ops import BashOpsMixin
from .compaction_ops import CompactionOpsMixin
from .budget import Budget, BudgetMeter
from .events import BudgetExceededEvent, ModelChangedEvent, QueueUpdateEvent, ThinkingLevelChangedEvent
from .inspect import InspectMixin
from .prompting import PromptingMixin
from .recovery import RecoveryMixin
from .retry import RetryPolicy
from .tree_ops import TreeOpsMixin


class AgentSession(
    PromptingMixin, RecoveryMixin, CompactionOpsMixin, TreeOpsMixin, BashOpsMixin, InspectMixin
):
    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: Any,
        settings: Any,
        model_registry: Any = None,
        resources: Any = None,
        cwd: str,
        tool_factory: Callable[[str, "AgentSession"], list[Any]] | None = None,
        system_prompt_builder: Callable[["AgentSession"], str] | None = None,
        scoped_models: list[tuple[Model, str | None]] | None = None,
    ) -> None:
        self.agent = agent
        self.session_manager = session_manager
        self.settings = settings
        self.model_registry = model_registry
        self.resources = resources
        self.cwd = cwd
        self.tool_factory = tool_factory
        self.system_prompt_builder = system_prompt_builder
        self.scoped_models = scoped_models or []
        self._listeners = Listeners(isolate=True)
        self._entry_ids: dict[int, str] = {}
        """id(message) -> session entry id, for context edits of a failed attempt."""
        self._deferred_messages: list[Any] = []
        self._runner: asyncio.Task[Any] | None = None
        self._settled = asyncio.Event()
        self._settled.set()
        self._aborting = False
        self.is_compacting = False
        self._usage_stale = False
        """True after a compaction until a new response reports real usage."""
        self._compaction_controller: Any = None
        self._retry_controller: Any = None
        self.retry_policy = self._retry_policy_from_settings()
        self.auto_compaction_enabled = bool(_setting(settings, "compaction.enabled", True))
        self.budget = Budget(
            max_turns=_setting(settings, "budget.maxTurns", None),
            max_tokens=_setting(settings, "budget.maxTokens", None),
            max_cost=_setting(settings, "budget.maxCost", None),
        )
        self._meter: BudgetMeter | None = None
        self._budget_stop: str | None = None
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)
        agent.on_queue_taken = self._on_queue_taken
        if model_registry is not None:
            agent.get_request_auth = model_registry.request_auth_async

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every agent and kernel event (sync or async listener). Returns an unsubscriber."""
        return self._listeners.add(listener)

    async def _emit(self, event: Any) -> None:
        # One broken subscriber (a UI, a logger) must not stop the run.
        await self._listeners.emit(event)

    async def _on_agent_event(self, event: Any) -> None:
        if isinstance(event, MessageEndEvent):
            self._persist_message(event.message)
            if getattr(event.message, "role", None) == "assistant" and event.message.stop_reason != "error":
                self._usage_stale = False
        elif isinstance(event, AgentEndEvent):
            event.will_retry = self._plan_recovery() is not None
        await self._emit(event)
        if isinstance(event, TurnEndEvent) and self._meter is not None and self._budget_stop is None:
            hit = self._meter.add_turn(event.message)
            if hit is not None:
                # Stop at this turn boundary: the agent loop sees the abort before its next
                # model call, so nothing is cut off mid-stream.
                self._budget_stop = hit[1]
                self.agent.abort("budget")
                await self._emit(BudgetExceededEvent(limit=hit[0], message=hit[1]))

    def _persist_message(self, message: Any) -> None:
        if getattr(message, "role", None) == "custom":  # extension messages: Pi's custom_message entry
            entry_id = self.session_manager.append_custom_message(
                message.custom_type, message.content, message.display, message.details
            )
            self._entry_ids[id(message)] = entry_id
            return
        entry_id = self.session_manager.append_message(message)
        self._entry_ids[id(message)] = entry_id

    # ------------------------------------------------------------------ state

    @property
    def model(self) -> Model:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def messages(self) -> list[Any]:
        return self.agent.state.messages

    @property
    def is_streaming(self) -> bool:
        return not self._settled.is_set()

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def session_id(self) -> str:
        return self.session_manager.session_id

    @property
    def session_file(self) -> str | None:
        path = self.session_manager.session_file
        return str(path) if path else None

    @property
    def session_name(self) -> str | None:
        return self.session_manager.session_name

    @property
    def steering_texts(self) -> list[str]:
        """What the user queued as steering (read from the agent's queue; extension messages left out)."""
        return _queued_texts(self.agent.steering_queue)

    @property
    def follow_up_texts(self) -> list[str]:
        """What the user queued as follow-ups."""
        return _queued_texts(self.agent.follow_up_queue)

    # ------------------------------------------------------------------ model and thinking

    def available_thinking_levels(self, model: Model | None = None) -> list[str]:
        model = model or self.model
        if not model.reasoning:
            return ["off"]
        levels = list(THINKING_LEVELS)
        supports_xhigh = bool((model.compat or {}).get("supportsXhigh", False)) or "xhigh" in (
            getattr(model, "thinking_levels", None) or []
        )
        if not supports_xhigh:
            levels.remove("xhigh")
        return levels

    def _clamp_thinking(self, level: str, model: Model | None = None) -> str:
        levels = self.available_thinking_levels(model)
        if level in levels:
            return level
        if level not in THINKING_LEVELS:
            return levels[-1] if level == "max" else "off"
        # Highest supported level not above the requested one.
        wanted = THINKING_LEVELS.index(level)
        candidates = [lv for lv in levels if THINKING_LEVELS.index(lv) <= wanted]
        return candidates[-1] if candidates else levels[0]

    async def set_model(self, model: Model, *, persist_default: bool = False) -> None:
        """Switch model (recorded as a model_change entry); the thinking level is re-clamped."""
        self.agent.state.model = model
        self.session_manager.append_model_change(model.provider, model.id)
        await self._emit(ModelChangedEvent(model))
        clamped = self._clamp_thinking(self.agent.state.thinking_level, model)
        if clamped != self.agent.state.thinking_level:
            await self.set_thinking_level(clamped)
        if persist_default and hasattr(self.settings, "set_default_model"):
            self.settings.set_default_model(model.provider, model.id)

    async def cycle_model(self, direction: int = 1) -> dict[str, Any] | None:
        """Next model in the scoped list (or all models with credentials). None if only one."""
        if self.scoped_models:
            pool = [m for m, _ in self.scoped_models]
            scoped = True
        else:
            pool = self.model_registry.available() if self.model_registry else []
            scoped = False
        if len(pool) <= 1:
            return None
        current = next((i for i, m in enumerate(pool) if m.ref == self.model.ref), -1)
        target = pool[(current + direction) % len(pool)]
        await self.set_model(target)
        if scoped:
            level = dict((m.ref, lv) for m, lv in self.scoped_models).get(target.ref)
            if level:
                await self.set_thinking_level(level)
        return {"model": target, "thinkingLevel": self.thinking_level, "isScoped": scoped}

    async def set_thinking_level(self, level: str) -> str:
        """Set (clamped to what the model supports); recorded as a thinking_level_change entry."""
        level = self._clamp_thinking(level)
        if level == self.agent.state.thinking_level:
            return level
        self.agent.state.thinking_level = level
        self.session_manager.append_thinking_level_change(level)
        await self._emit(ThinkingLevelChangedEvent(level))
        return level

    async def cycle_thinking_level(self) -> str | None:
        levels = self.available_thinking_levels()
        if levels == ["off"]:
            return None
        current = self.thinking_level
        nxt = levels[(levels.index(current) + 1) % len(levels)] if current in levels else levels[0]
        return await self.set_thinking_level(nxt)

    def set_steering_mode(self, mode: str) -> None:
        self.agent.steering_mode = mode  # type: ignore[assignment]

    def set_follow_up_mode(self, mode: str) -> None:
        self.agent.follow_up_mode = mode  # type: ignore[assignment]

    def set_auto_compaction(self, enabled: bool) -> None:
        self.auto_compaction_enabled = enabled

    def set_auto_retry(self, enabled: bool) -> None:
        self.retry_policy.enabled = enabled

    # ------------------------------------------------------------------ queues

    def _on_queue_taken(self, kind: str, messages: list[Any]) -> None:
        asyncio.ensure_future(self._emit_queue())

    async def _emit_queue(self) -> None:
        await self._emit(QueueUpdateEvent(self.steering_texts, self.follow_up_texts))

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop queued steering and follow-up messages; returns their texts (for the editor)."""
        steering, follow_up = self.steering_texts, self.follow_up_texts
        self.agent.clear_all_queues()
        asyncio.ensure_future(self._emit_queue())
        return steering, follow_up

    # ------------------------------------------------------------------ lifecycle

    def _retry_policy_from_settings(self) -> RetryPolicy:
        return RetryPolicy(
            enabled=bool(_setting(self.settings, "retry.enabled", True)),
            max_retries=int(_setting(self.settings, "retry.maxRetries", 3)),
            base_delay_ms=int(_setting(self.settings, "retry.baseDelayMs", 2000)),
            max_delay_ms=int(
                _setting(self.settings, "retry.maxAgentDelayMs", None)
                or _setting(self.settings, "retry.maxDelayMs", 60_000)
            ),
        )

    async def wait_for_idle(self) -> None:
        """Wait until nothing more will run on its own (the ``agent_settled`` point)."""
        await self._settled.wait()

    async def abort(self) -> None:
        """Cancel everything in flight (run, retry wait, compaction, summaries) and wait for idle."""
        self._aborting = True
        try:
            for controller in (self._retry_controller, self._compaction_controller):
                if controller is not None:
                    controller.abort()
            self.agent.abort()
            await self.wait_for_idle()
        finally:
            self._aborting = False

    async def dispose(self) -> None:
        await self.abort()
        runner = getattr(self, "extension_runner", None)
        if runner is not None:
            await runner.shutdown("quit")
        self._unsubscribe_agent()
        self._listeners.clear()
        close = getattr(self.session_manager, "close", None)
        if close is not None:
            close()


def _queued_texts(messages: list[Any]) -> list[str]:
    from .tree_ops import message_text

    return [message_text(m) for m in messages if getattr(m, "role", None) == "user"]


def _setting(settings: Any, dotted: str, default: Any) -> Any:
    """Read ``a.b`` from a settings object or dict, tolerating either naming style."""
    if settings is None:
        return default
    getter = getattr(settings, "get", None)
    if callable(getter) and not isinstance(settings, dict):
        try:
            value = getter(dotted)
            return default if value is None else value
        except Exception:  # noqa: BLE001
            pass
    node: Any = settings
    for part in dotted.split("."):
        if isinstance(node, dict):
            node = node.get(part)
        else:
            snake = "".join("_" + c.lower() if c.isupper() else c for c in part)
            node = getattr(node, snake, getattr(node, part, None))
        if node is None:
            return default
    return node
