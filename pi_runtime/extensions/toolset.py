"""``ToolSet``: every tool that can be activated (built-in and extension) and which are active.

It owns the name -> tool table; the session's active list is read and written through the
``SessionActions`` port, and every change rebuilds the system prompt (tool lines, guidelines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..agent.tool import AgentTool
    from ..kernel.extension_port import SessionActions


class ToolSet:
    """The tools of one runner's session."""

    def __init__(self) -> None:
        self.all: dict[str, AgentTool] = {}
        """Every tool that can be activated, by name."""
        self._actions: SessionActions | None = None

    def attach(self, actions: SessionActions, available: dict[str, AgentTool], registered: list[Any]) -> None:
        """Use ``actions`` for the active list; ``available`` plus the extensions' tools can be activated."""
        self._actions = actions
        self.all = dict(available)
        for tool in registered:
            self.all[tool.name] = tool

    def _port(self) -> SessionActions:
        if self._actions is None:
            raise RuntimeError(
                "not available while the extension loads; call it from a handler (e.g. session_start) or a command"
            )
        return self._actions

    @property
    def attached(self) -> bool:
        return self._actions is not None

    def active_names(self) -> list[str]:
        """Names of the active tools."""
        return [t.name for t in self._port().active_tools()]

    def set_active(self, names: list[str]) -> list[str]:
        """Activate exactly ``names`` (unknown names are ignored); rebuilds the system prompt."""
        port = self._port()
        chosen = list(dict.fromkeys(n for n in names if n in self.all))
        port.set_tools([self.all[n] for n in chosen])
        port.refresh_system_prompt()
        return chosen

    def add(self, tool: AgentTool) -> None:
        """Make a tool registered after binding available (and active unless ``default_active`` is False)."""
        self.add_many([tool])

    def add_many(self, tools: list[AgentTool]) -> None:
        """:meth:`add` for several tools, with one system-prompt rebuild (an MCP server can bring
        thousands: one rebuild per tool made registering them quadratic)."""
        port = self._port()
        active = port.active_tools()
        position = {t.name: i for i, t in enumerate(active)}
        changed = False
        for tool in tools:
            self.all[tool.name] = tool
            if tool.name in position:
                active[position[tool.name]] = tool
            elif getattr(tool, "default_active", True):
                position[tool.name] = len(active)
                active.append(tool)
            else:
                continue
            changed = True
        if changed:
            port.set_tools(active)
            port.refresh_system_prompt()

    def remove(self, tool: AgentTool, replacement: AgentTool | None = None) -> None:
        """Forget an extension's tool (a reload); a built-in it replaced comes back."""
        if self.all.get(tool.name) is not tool:
            return
        port = self._port()
        if replacement is not None:
            self.all[tool.name] = replacement
        else:
            del self.all[tool.name]
        tools = [replacement if t is tool else t for t in port.active_tools()]
        port.set_tools([t for t in tools if t is not None])
        port.refresh_system_prompt()

    def prompt_guidelines(self, active: list[str]) -> list[str]:
        """Rules from the active extension tools' ``prompt_guidelines``."""
        out: list[str] = []
        for name in active:
            out.extend(getattr(self.all.get(name), "prompt_guidelines", None) or [])
        return out
