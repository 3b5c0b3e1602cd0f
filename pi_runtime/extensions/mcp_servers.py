"""MCP servers registered by extensions (``pi.register_mcp_server``) and who connects them.

A registration has the shape of an ``mcpServers`` entry and is checked by the same validator as
``mcp.json`` (:func:`pi_runtime.mcp.config.validate_server`); it lives for the session only, so
``/reload`` forgets every registration and the extensions register again as they load.

This part does not connect anything. Extensions that handle ``mcp_servers_change`` connect the
registered servers (the built-in ``builtin:mcp`` does): they read :meth:`McpServerRegistrations.servers`
on ``session_start`` and get the event for every change after it. Two policies live here because
they decide which extension connects:

- an extension that registers the ``/mcp`` command replaces the built-in MCP support, so the
  built-in extension is taken out before the session starts (it reads no ``mcp.json``);
- when the built-in MCP support is allowed but was not loaded (no ``mcp.json`` existed), it is
  added the moment a registration needs it, at start-up or later.

When nothing connects registered servers, each registration is reported as an extension error.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterable
from typing import Any

from ..records import record
from .dispatch import Dispatcher
from .events import McpServersChangeEvent
from .registry import ExtensionRegistry
from .reporter import ErrorReporter

BUILTIN_MCP = "builtin:mcp"
CHANGE_EVENT = "mcp_servers_change"


@record(frozen=True)
class RegisteredMcpServer:
    """One server an extension registered."""

    name: str
    """The server name (as an ``mcpServers`` key)."""
    config: dict[str, Any]
    """The entry, validated (exposure aliases resolved)."""
    extension_path: str
    """The extension that registered it."""


class McpServerRegistrations:
    """The session's registered MCP servers.

    Args:
        registry: The loaded extensions (who connects, who owns ``/mcp``).
        reporter: Where unconnected registrations are reported.
        dispatcher: Emits ``mcp_servers_change``.
        add_extension: Loads a factory as an extension (the built-in MCP support, on demand).
    """

    def __init__(self, registry: ExtensionRegistry, reporter: ErrorReporter, dispatcher: Dispatcher,
                 add_extension: Callable[[Callable[[Any], Any], str, str], Any]) -> None:
        self._registry = registry
        self._reporter = reporter
        self._dispatcher = dispatcher
        self._add_extension = add_extension
        self._servers: dict[str, RegisteredMcpServer] = {}
        self._live = False
        self._reporting = False
        self._emitting: asyncio.Lock | None = None
        self.builtin_on_demand: tuple[Any, list[str]] | None = None
        """Set when the built-in MCP support is allowed but not loaded: the ``--tools`` and
        ``--exclude-tools`` it should apply when it is added for a registration."""

    # ------------------------------------------------------------------ the API

    def register(self, owner: str, name: Any, config: Any) -> None:
        """Add or replace ``owner``'s server ``name``.

        Raises:
            ValueError: An invalid name or config, or a name another extension registered.
        """
        from ..mcp.config import namespace, validate_server

        if not isinstance(name, str):
            raise ValueError(f"register_mcp_server: the server name must be a string, not {type(name).__name__}")
        checked = validate_server(name, copy.deepcopy(config))
        if isinstance(checked, str):
            raise ValueError(f"register_mcp_server: {checked}")
        taken = self._servers.get(name)
        if taken is not None and taken.extension_path != owner:
            raise ValueError(f'register_mcp_server: MCP server "{name}" is already registered by {taken.extension_path}')
        clash = next((s for s in self._servers.values() if s.name != name and namespace(s.name) == namespace(name)), None)
        if clash is not None:
            raise ValueError(f'register_mcp_server: MCP server "{name}" conflicts with "{clash.name}" '
                             f"(registered by {clash.extension_path}): their tool names would be the same")
        self._servers[name] = RegisteredMcpServer(name, checked, owner)
        if self._live:
            self._changed(added=self._servers[name])

    def unregister(self, owner: str, name: str) -> None:
        """Remove ``owner``'s server ``name`` (no effect when nobody registered it).

        Raises:
            ValueError: Another extension registered it.
        """
        taken = self._servers.get(name)
        if taken is None:
            return
        if taken.extension_path != owner:
            raise ValueError(f'unregister_mcp_server: MCP server "{name}" was registered by {taken.extension_path}')
        del self._servers[name]
        if self._live:
            self._changed()

    def servers(self) -> list[RegisteredMcpServer]:
        """Every registered server, in registration order."""
        return list(self._servers.values())

    def forget(self, owners: Iterable[str] | None = None) -> None:
        """Drop the registrations of ``owners`` (an extension that failed to load), or all (``/reload``)."""
        if owners is None:
            self._servers.clear()
            self._live = self._reporting = False
            return
        gone = set(owners)
        self._servers = {n: s for n, s in self._servers.items() if s.extension_path not in gone}

    # ------------------------------------------------------------------ who connects

    def replaced(self) -> bool:
        """Whether an extension registered ``/mcp`` (it replaces the built-in MCP support)."""
        return any("mcp" in ext.commands for ext in self._registry if ext.path != BUILTIN_MCP)

    def has_connector(self) -> bool:
        """Whether some extension handles ``mcp_servers_change``."""
        return any(ext.handlers.get(CHANGE_EVENT) for ext in self._registry)

    def settle(self) -> None:
        """Before ``session_start``: take out a replaced built-in MCP support, or add it when
        registrations need it; changes from now on (``session_start`` handlers included) emit
        ``mcp_servers_change``."""
        self._live = True
        if self.replaced():
            builtin = [ext for ext in self._registry if ext.path == BUILTIN_MCP]
            for ext in builtin:
                self._registry.extensions.remove(ext)
            if builtin:
                self._registry.refresh_handled()
        elif self._servers:
            self._add_builtin_if_needed()

    async def started(self) -> None:
        """After ``session_start``: registrations nothing connects are reported (later ones as they come)."""
        self._reporting = True
        if not self.has_connector():
            for server in self._servers.values():
                await self._reporter.report(server.extension_path, "register_mcp_server", _unconnected(server.name))

    def _add_builtin_if_needed(self) -> None:
        # In Pi the built-in support is always loaded; here it comes with the first registration.
        loaded = any(ext.path == BUILTIN_MCP for ext in self._registry)
        if self.builtin_on_demand is None or loaded or self.replaced():
            return
        from ..mcp.extension import extension as builtin_mcp
        from ..mcp.extension import set_tool_filter
        from ..mcp.manager import ToolFilter

        tools, exclude = self.builtin_on_demand
        set_tool_filter(ToolFilter(tools, exclude))
        self._add_extension(builtin_mcp, BUILTIN_MCP, "builtin")

    def _changed(self, added: RegisteredMcpServer | None = None) -> None:
        if added is not None:
            self._add_builtin_if_needed()
            if self._reporting and not self.has_connector():
                self._reporter.report_soon(added.extension_path, "register_mcp_server", _unconnected(added.name))
        if not self._registry.has_handlers(CHANGE_EVENT):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop, no session: the next session_start reads the registrations
        from ..background import spawn

        spawn(self._emit(McpServersChangeEvent(servers=self.servers())), name="mcp-servers-change")

    async def _emit(self, event: McpServersChangeEvent) -> None:
        # One change at a time, in order: a connector sees the registrations change as they did.
        if self._emitting is None:
            self._emitting = asyncio.Lock()
        async with self._emitting:
            await self._dispatcher.emit(CHANGE_EVENT, event, abortable=False)


def _unconnected(name: str) -> str:
    return (f'MCP server "{name}" is not connected: no extension connects registered MCP servers '
            "(the built-in MCP support is disabled or replaced)")
