"""``SystemPromptSource``: rebuilds the agent's system prompt when tools or resources change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agent.agent import Agent


class SystemPromptSource:
    """Owns the last built prompt sections and writes the rendered prompt into the agent.

    Args:
        agent: Receives ``state.system_prompt``.
        build: Returns the prompt: a string, or sections with ``render()`` and ``wrapped()``
            (None: the agent's prompt is left as it is).
    """

    def __init__(self, agent: Agent, build: Callable[[], Any] | None) -> None:
        self._agent = agent
        self._build = build
        self.sections: Any = None
        """The sections of the last build (Pi 1.6 records them in the leading system message)."""

    def refresh(self) -> None:
        if self._build is None:
            return
        built = self._build()
        if hasattr(built, "render"):
            self.sections = built
            built = built.render()
        self._agent.state.system_prompt = built

    def leading_message(self) -> Any:
        """Pi 1.6 opens a session's transcript with the prompt it declared: sections and tools."""
        from ..ai.types import SystemMessage

        sections = self.sections
        return SystemMessage(
            content="" if sections is not None else self._agent.state.system_prompt,
            sections=sections.wrapped() if sections is not None else None,
            tools_added=[t.to_tool().to_wire() for t in self._agent.state.tools] or None,
        )

    def declare_changes(self, prompts: list[Any]) -> list[Any]:
        """``prompts`` opened by a system message declaring the tools and prompt sections changed
        since the transcript last declared them (Pi 1.6), or unchanged when nothing changed."""
        from .tool_declarations import loadout_change_message

        current = [t.to_tool().to_wire() for t in self._agent.state.tools]
        sections = self.sections.wrapped() if self.sections is not None else None
        change = loadout_change_message([*self._agent.state.messages, *prompts], current, sections)
        if change is None:
            return prompts
        first_other = next((i for i, m in enumerate(prompts) if getattr(m, "role", None) != "system"), len(prompts))
        return [*prompts[:first_other], change, *prompts[first_other:]]
