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
        if any(getattr(t, "prepare_loadout", None) for t in actions.active_tools()):
            self.refresh_loadout()

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
        """Activate exactly ``names`` (unknown and ``hidden`` names are ignored); rebuilds the system prompt.

        Tools that stay active keep their order and new ones are appended (Pi: reordering the same
        names must not change the prompt)."""
        port = self._port()
        wanted = [n for n in dict.fromkeys(names) if n in self.all and exposure_of(self.all[n]) != "hidden"]
        kept = [t.name for t in port.active_tools() if t.name in wanted]
        chosen = list(dict.fromkeys([*kept, *wanted]))
        self._set(port, [self.all[n] for n in chosen])
        port.refresh_system_prompt()
        return chosen

    def callable_tools(self, active: list[AgentTool] | None = None) -> list[AgentTool]:
        """What a tool's nested calls (codemode scripts) can run: the active ``direct`` tools and every
        ``deferred`` one, in registration order (Pi's callable tools)."""
        names = {t.name for t in (active if active is not None else self._port().active_tools())}
        out = []
        for name, tool in self.all.items():
            exposure = exposure_of(tool)
            if exposure == "deferred" or (exposure == "direct" and name in names):
                out.append(tool)
        return out

    def _set(self, port: SessionActions, active: list[AgentTool]) -> None:
        """Make ``active`` the active tools, after the active tools' ``prepare_loadout`` hooks (the
        ``codemode`` tool) have said how they are declared: new descriptions, declarations hidden."""
        for tool in self.all.values():
            if tool.declared_description is not None or tool.declaration_hidden:
                tool.declared_description = None
                tool.declaration_hidden = False
        for hook in [getattr(t, "prepare_loadout", None) for t in active]:
            if hook is None:
                continue
            try:
                changes = hook(active, self.callable_tools(active))
            except Exception:  # a broken hook leaves the declarations as they are
                import logging

                logging.getLogger("pi.extensions").exception("prepare_loadout failed")
                continue
            by_name = {t.name: t for t in active}
            for name, description in changes.descriptions.items():
                if name in by_name:
                    by_name[name].declared_description = description
            for name in changes.hidden:
                if name in by_name:
                    by_name[name].declaration_hidden = True
        port.set_tools(active)

    def refresh_loadout(self) -> None:
        """Apply the loadout hooks again (a setting they read changed, a tool was registered)."""
        port = self._port()
        self._set(port, port.active_tools())
        port.refresh_system_prompt()

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
            elif getattr(tool, "default_active", True) and exposure_of(tool) in ("direct", "model-only"):
                position[tool.name] = len(active)
                active.append(tool)
            else:
                continue
            changed = True
        if changed or any(getattr(t, "prepare_loadout", None) for t in active):
            self._set(port, active)
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
        self._set(port, [t for t in tools if t is not None])
        port.refresh_system_prompt()

    def prompt_guidelines(self, active: list[str]) -> list[str]:
        """Rules from the active extension tools' ``prompt_guidelines`` (tools whose declarations are
        hidden have none in the prompt: codemode lists them with theirs)."""
        out: list[str] = []
        for name in active:
            tool = self.all.get(name)
            if tool is not None and not tool.declaration_hidden:
                out.extend(getattr(tool, "prompt_guidelines", None) or [])
        return out


def exposure_of(tool: Any) -> str:
    """How a tool reaches the model (``AgentTool.exposure``); an MCP tool's ``codemode`` exposure is
    ``deferred`` here, as in Pi: callable from scripts, declared only once ``tool_search`` loads it."""
    exposure = getattr(tool, "tool_exposure", None) or getattr(tool, "exposure", "direct")
    return "deferred" if exposure == "codemode" else str(exposure)
