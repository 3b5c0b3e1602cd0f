"""``ModelControl``: the model and thinking level in use, switched and cycled (``/model``, Ctrl+P, Shift+Tab).

Each change is recorded in the session file (``model_change``, ``thinking_level_change``) and
announced, so front ends show the new model's name and context window at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..agent.agent import Agent
from ..ai.types import Model
from .events import ModelChangedEvent, ThinkingLevelChangedEvent
from .record import SessionRecord
from .thinking import available_thinking_levels, clamp_thinking

# ``results`` (ten frozen records, ~6 ms to define) is imported where a result is made: a plain prompt
# (``pi -p``) makes none.
if TYPE_CHECKING:
    from .results import CycleModelResult


class ModelControl:
    """Model and thinking level of one session.

    Args:
        agent: Holds the model and level in use.
        record: Records the changes.
        emit: The kernel's event outlet.
        registry: Models with credentials, for cycling (None: nothing to cycle through).
        scoped_models: The ``--models`` list with optional thinking levels (cycling uses it first).
        save_default: Saves a model as the settings' default (None: nowhere to save).
    """

    def __init__(
        self,
        *,
        agent: Agent,
        record: SessionRecord,
        emit: Callable[[Any], Awaitable[None]],
        registry: Any,
        scoped_models: list[tuple[Model, str | None]],
        save_default: Callable[[str, str], None] | None,
    ) -> None:
        self._agent = agent
        self._record = record
        self._emit = emit
        self._registry = registry
        self.scoped_models = scoped_models
        self._save_default = save_default

    def available_levels(self, model: Model | None = None) -> list[str]:
        return available_thinking_levels(model or self._agent.state.model)

    async def set_model(self, model: Model, *, persist_default: bool = False, source: str = "set") -> None:
        """Switch model (recorded as a model_change entry); the thinking level is re-clamped."""
        state = self._agent.state
        state.model = model
        self._record.manager.append_model_change(model.provider, model.id)
        await self._emit(ModelChangedEvent(model, source))
        clamped = clamp_thinking(state.thinking_level, model)
        if clamped != state.thinking_level:
            await self.set_thinking_level(clamped)
        if persist_default and self._save_default is not None:
            self._save_default(model.provider, model.id)

    async def cycle_model(self, direction: int = 1) -> CycleModelResult | None:
        """Next model in the scoped list (or all models with credentials). None if only one."""
        from .results import CycleModelResult

        scoped = bool(self.scoped_models)
        pool = [m for m, _ in self.scoped_models] if scoped else (self._registry.available() if self._registry else [])
        if len(pool) <= 1:
            return None
        current_ref = self._agent.state.model.ref
        current = next((i for i, m in enumerate(pool) if m.ref == current_ref), -1)
        target = pool[(current + direction) % len(pool)]
        await self.set_model(target, source="cycle")
        if scoped:
            level = {m.ref: lv for m, lv in self.scoped_models}.get(target.ref)
            if level:
                await self.set_thinking_level(level)
        return CycleModelResult(target, self._agent.state.thinking_level, scoped)

    async def set_thinking_level(self, level: str) -> str:
        """Set (clamped to what the model supports); recorded as a thinking_level_change entry."""
        state = self._agent.state
        level = clamp_thinking(level, state.model)
        if level == state.thinking_level:
            return level
        state.thinking_level = level
        self._record.manager.append_thinking_level_change(level)
        await self._emit(ThinkingLevelChangedEvent(level))
        return level

    async def cycle_thinking_level(self) -> str | None:
        levels = self.available_levels()
        if levels == ["off"]:
            return None
        current = self._agent.state.thinking_level
        nxt = levels[(levels.index(current) + 1) % len(levels)] if current in levels else levels[0]
        return await self.set_thinking_level(nxt)
