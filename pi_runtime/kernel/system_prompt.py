"""``SystemPromptSource``: rebuilds the agent's system prompt when tools or resources change, and
declares the changes in the transcript before each model request (Pi 1.6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agent.agent import Agent
from .tool_declarations import DeclaredLoadout


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
        self._declared = DeclaredLoadout()
        self._wire_tools: dict[int, tuple[Any, dict[str, Any]]] = {}
        self.run_edits: dict[str, str | None] = {}
        """Sections the run's ``before_agent_start`` handlers set (their text) or took out (None).
        They hold until the next run starts: a tool loaded mid-run (``tool_search``) rebuilds the
        prompt, and Pi 1.6 keeps such a section (the MCP servers list) until the next prompt."""

    def start_run(self) -> None:
        """A run starts: its handlers decide the sections anew."""
        self.run_edits = {}
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the prompt (each run starts with one; so does every change of the tools)."""
        self._wire_tools = {}  # declarations are built again from the tools as they are now
        if self._build is None:
            return
        built = self._build()
        if hasattr(built, "render"):
            for name, text in self.run_edits.items():
                if text is None:
                    built.remove(name)
                else:
                    built.set(name, text)
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
            tools_added=self._tool_declarations() or None,
        )

    def declare_changes(self, pending: list[Any]) -> list[Any]:
        """``pending`` (the messages about to go in before a model request) with a system message
        declaring the tools and prompt sections changed since the transcript last declared them
        put before the first that is not a system message (Pi 1.6), or unchanged when nothing
        changed. The agent loop calls it before every request."""
        self._declared.read(self._agent.state.messages)
        sections = self.sections.wrapped() if self.sections is not None else None
        change = self._declared.change(self._tool_declarations(), sections, pending)
        if change is None:
            return pending
        first_other = next((i for i, m in enumerate(pending) if getattr(m, "role", None) != "system"), len(pending))
        return [*pending[:first_other], change, *pending[first_other:]]

    def _tool_declarations(self) -> list[dict[str, Any]]:
        """The executable tools' declarations, each built once per tool object between refreshes."""
        cache: dict[int, tuple[Any, dict[str, Any]]] = {}
        out = []
        for tool in self._agent.state.tools:
            if tool.declaration_hidden:  # callable from codemode scripts only (``codemode.mode: only``)
                continue
            known = self._wire_tools.get(id(tool))
            if known is None or known[0] is not tool:
                known = (tool, tool.to_tool().to_wire())
            cache[id(tool)] = known  # holding the tool keeps its id from being reused
            out.append(known[1])
        self._wire_tools = cache
        return out
