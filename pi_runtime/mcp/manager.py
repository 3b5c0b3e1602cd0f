"""A session's MCP servers: their connections and the agent tools they offer.

The manager connects every enabled server in the background when the session starts; a server's
tools appear once it connects (``on_tools`` hands the new set to whoever registers them). The first
prompt waits up to :data:`FIRST_PROMPT_WAIT` seconds for servers whose tools are declared to the
model, so they are in its request. Closing stops every server concurrently.

Exposure (Pi's): ``direct`` tools are declared to the model; ``codemode`` (the default) tools are
only callable from ``codemode`` scripts; ``deferred`` tools are declared once ``tool_search`` loads
them (both count as ``deferred`` in :func:`pi_runtime.extensions.toolset.exposure_of`); ``hidden``
tools are registered but unreachable.
``--tools`` keeps MCP tools unless one of its entries names MCP tools (``mcp__…`` or a resource
tool); ``--exclude-tools`` applies to them as to any tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import fnmatch
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..text_safety import terminal_safe
from .config import McpConfig, McpServerEntry, load_config, namespace
from .connection import McpConnection, McpConnectionError
from .resources import RESOURCE_TOOLS, ListResourcesTool, ListTemplatesTool, ReadResourceTool
from .tools import McpTool, tool_name

log = logging.getLogger("pi.mcp")

FIRST_PROMPT_WAIT = 10.0
"""Seconds the first prompt waits for servers with declared tools."""
LOG_FILE = "mcp.log"
LOG_ROTATE_BYTES = 5 * 1024 * 1024
_EXPOSURE_RANK = {"direct": 3, "codemode": 2, "deferred": 2, "hidden": 0}


def mcp_manager_for(session: Any) -> McpManager | None:
    """The MCP manager serving ``session`` (None without MCP servers or the MCP extension)."""
    from .extension import manager_for_bus

    bus = getattr(getattr(session, "extension_runner", None), "bus", None)
    return manager_for_bus(bus) if bus is not None else None


def is_mcp_tool_name(name: str) -> bool:
    """A server tool (``mcp__…``) or one of the resource tools."""
    return name.startswith("mcp__") or name in RESOURCE_TOOLS


def declared(exposure: str) -> bool:
    """Whether tools of this exposure are declared to the model as soon as they register."""
    return exposure == "direct"


class McpLog:
    """``<agent dir>/mcp.log``: ``<time> [<server>] <level> <logger>: <message>``, rotated at 5 MB."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, server: str, params: Any) -> None:
        level = getattr(params, "level", "info")
        logger = getattr(params, "logger", None) or "-"
        data = getattr(params, "data", "")
        message = data if isinstance(data, str) else repr(data)
        stamp = _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > LOG_ROTATE_BYTES:
                self.path.replace(self.path.with_name(self.path.name + ".1"))
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(f"{stamp} [{server}] {level} {logger}: {message}\n")
        except OSError:
            log.debug("cannot write %s", self.path)


class ToolFilter:
    """What ``--tools`` and ``--exclude-tools`` say about MCP tools."""

    def __init__(self, tools: str | Iterable[str] | None = None, exclude: Iterable[str] = ()) -> None:
        items = [s.strip() for s in (tools.split(",") if isinstance(tools, str) else tools or []) if s.strip()]
        self.include = [s for s in items if s[0] not in "+-" and is_mcp_tool_name(s)]
        """MCP entries of an allowlist; empty keeps every MCP tool."""
        self.exclude = [s.strip() for s in exclude if s.strip()]

    def allows(self, name: str) -> bool:
        """Whether ``name`` may be declared."""
        if any(fnmatch.fnmatchcase(name, p) for p in self.exclude):
            return False
        return not self.include or any(fnmatch.fnmatchcase(name, p) for p in self.include)


class McpManager:
    """The MCP servers of one session.

    Args:
        config: What the ``mcp.json`` files say.
        cwd: The session folder.
        agent_dir: Where ``mcp.log`` goes.
        tool_filter: ``--tools`` / ``--exclude-tools`` for MCP tools.
        version: pi's version (sent as ``clientInfo``).
    """

    def __init__(self, config: McpConfig, cwd: str, agent_dir: str | Path, *,
                 tool_filter: ToolFilter | None = None, version: str = "0") -> None:
        self.config = config
        self.cwd = cwd
        self.agent_dir = Path(agent_dir)
        """Where ``mcp.log`` and ``mcp-auth.json`` are."""
        self.filter = tool_filter or ToolFilter()
        self._log = McpLog(Path(agent_dir) / LOG_FILE)
        self._version = version
        self.connections: dict[str, McpConnection] = {
            entry.name: self._connection(entry) for entry in config.servers if entry.enabled
        }
        """Connections of the enabled servers, by name."""
        self.registered: dict[str, McpServerEntry] = {}
        """Servers extensions registered (scope ``extension``), by name; see :meth:`set_registered`."""
        self.overridden: list[McpServerEntry] = []
        """Registrations a ``mcp.json`` server of the same name (or tool prefix) takes precedence over."""
        self.on_tools: Callable[[list[Any]], None] | None = None
        """Called with every tool (current and withdrawn) after a server's tools changed."""
        self.on_state: Callable[[McpConnection], None] | None = None
        """Called after any connection changes state (the app's ``/mcp`` screen refreshes)."""
        self.on_switched: Callable[[set[str]], None] | None = None
        """Called after ``/mcp`` turned a server on or off or changed its exposure, with the tools that
        are no longer declared to the model (the extension takes them out of the active set)."""
        self._tools: dict[str, McpTool] = {}
        self._resource_tools: list[Any] = []
        self._started = False
        self._connects: dict[str, asyncio.Task[Any]] = {}
        self._reported: set[str] = set()

    @classmethod
    def load(cls, cwd: str, agent_dir: str | Path, *, project_trusted: bool, **options: Any) -> McpManager:
        """A manager for the servers configured for ``cwd``."""
        return cls(load_config(agent_dir, cwd, project_trusted=project_trusted), cwd, agent_dir, **options)

    @property
    def entries(self) -> list[McpServerEntry]:
        """Every configured server, disabled ones included, then the registered ones."""
        return [*self.config.servers, *self.registered.values()]

    def _connection(self, entry: McpServerEntry) -> McpConnection:
        return McpConnection(entry, self.cwd, on_change=self._changed, log_line=self._log.write, version=self._version,
                             agent_dir=self.agent_dir)

    # ------------------------------------------------------------------ servers extensions register

    def set_registered(self, servers: Iterable[Any]) -> list[McpConnection]:
        """Make the registered servers these (``name``, ``config``, ``extension_path`` each).

        New servers connect right away once the manager started; a removed or changed one loses
        its tools at once (they are withdrawn, so a call fails) and its connection is returned for
        :meth:`close_connections`. A ``mcp.json`` server of the same name takes precedence.
        """
        files = {namespace(e.name): e.name for e in self.config.servers}
        wanted: dict[str, McpServerEntry] = {}
        self.overridden = []
        for server in servers:
            entry = McpServerEntry(server.name, dict(server.config), f"extension:{server.extension_path}", "extension")
            if namespace(server.name) in files:
                self.overridden.append(entry)
            else:
                wanted[server.name] = entry
        removed = []
        for name, old in list(self.registered.items()):
            if wanted.get(name) != old:
                del self.registered[name]
                connection = self.connections.pop(name, None)
                task = self._connects.pop(name, None)
                if task is not None:
                    task.cancel()
                self._withdraw(name)
                if connection is not None:
                    removed.append(connection)
        for name, entry in wanted.items():
            if name in self.registered:
                continue
            self.registered[name] = entry
            if entry.enabled:
                connection = self.connections[name] = self._connection(entry)
                if self._started:
                    self._connects[name] = asyncio.ensure_future(self._connect(connection))
        return removed

    async def close_connections(self, connections: Iterable[McpConnection]) -> None:
        """Stop these servers (concurrently) and wait until they are gone."""
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    def _withdraw(self, server: str) -> None:
        for name, tool in list(self._tools.items()):
            if tool.server == server:
                tool.withdrawn = True
                del self._tools[name]

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Connect every enabled server in the background (once; needs a running loop)."""
        if self._started:
            return
        self._started = True
        for name, connection in self.connections.items():
            self._connects[name] = asyncio.ensure_future(self._connect(connection))

    async def _connect(self, connection: McpConnection) -> None:
        try:
            await connection.client()
        except McpConnectionError:
            pass  # the connection keeps the state and the message
        except Exception as exc:  # noqa: BLE001 - a broken server must not break the session
            connection.state, connection.error = "failed", str(exc) or type(exc).__name__

    async def wait_for_declared(self, timeout: float = FIRST_PROMPT_WAIT) -> None:
        """Wait (at most ``timeout`` seconds) until servers with declared tools connected or failed."""
        await self.wait_connected(timeout, declared_only=True)

    async def wait_connected(self, timeout: float | None = None, *, declared_only: bool = False) -> None:
        """Start connecting, then wait until every (``declared_only``: every declaring) server
        connected or failed, or ``timeout`` seconds passed."""
        self.start()
        waiting = [task for name, task in self._connects.items()
                   if not task.done() and name in self.connections
                   and (not declared_only or self._declares(self.connections[name].entry))]
        if waiting:
            await asyncio.wait(waiting, timeout=timeout)

    async def reconnect_signed_in(self, timeout: float = FIRST_PROMPT_WAIT) -> None:
        """Reconnect servers waiting for sign-in whose credentials have appeared since (``pi mcp
        login`` in another terminal): a running session uses them on its next turn."""
        from .oauth_store import McpAuthFileError, McpAuthStore

        store = McpAuthStore(self.agent_dir)
        waiting = []
        for connection in self.connections.values():
            if connection.state != "needs-auth" or connection.closed:
                continue
            try:
                signed_in = store.has_tokens(connection.name, str(connection.entry.config["url"]))
            except McpAuthFileError:
                continue  # the connection would fail the same way; it says so when it is retried
            if signed_in:
                self._reported.discard(connection.name)
                waiting.append(asyncio.ensure_future(self._connect(connection)))
        if waiting:
            await asyncio.wait(waiting, timeout=timeout)

    def _declares(self, entry: McpServerEntry) -> bool:
        return declared(entry.exposure) or any(declared(str(v)) for v in (entry.config.get("toolExposure") or {}).values())

    async def close(self) -> None:
        """Stop every server (concurrently) and wait until they are gone."""
        for task in self._connects.values():
            task.cancel()
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)
        for task in self._connects.values():
            with contextlib.suppress(BaseException):
                await task

    async def reconnect(self, name: str) -> McpConnection:
        """Drop and reopen one server's connection.

        Raises:
            KeyError: No enabled server of that name.
            McpConnectionError: It cannot be reached.
        """
        connection = self.connections[name]
        await connection.reopen()
        return connection

    # ------------------------------------------------------------------ switches (/mcp)

    async def set_enabled(self, name: str, enabled: bool, *, in_project: bool = False) -> None:
        """Turn a server on or off, saved as Pi saves it (``config_edit.switch_server``): off, its
        tools are gone from the next request and its process stops; on, it connects.

        Raises:
            KeyError: No server of that name.
            McpConfigError: The change could not be saved (nothing changed then).
        """
        from .config_edit import switch_server

        entry = self._replace_entry(switch_server(self._entry(name), self.config.project_config,
                                                  enabled=enabled, in_project=in_project))
        connection = self.connections.pop(name, None)
        task = self._connects.pop(name, None)
        if task is not None:
            task.cancel()
        gone = {tool.name for tool in self._tools.values() if tool.server == name}
        self._withdraw(name)
        if not self._resource_servers():
            gone.update(tool.name for tool in self._resource_tools)
            self._resource_tools = []
        if self.on_switched is not None:
            self.on_switched(gone)
        if connection is not None:
            await connection.close()
        if enabled:
            connection = self.connections[name] = self._connection(entry)
            if self._started:
                self._connects[name] = asyncio.ensure_future(self._connect(connection))

    def set_exposure(self, name: str, exposure: str) -> None:
        """Change how a server's tools reach the model (saved as :meth:`set_enabled` saves); a
        connected server's tools are offered anew at once.

        Raises:
            KeyError: No server of that name.
            McpConfigError: The change could not be saved.
        """
        from .config_edit import switch_server

        entry = self._replace_entry(switch_server(self._entry(name), self.config.project_config, exposure=exposure))
        before = {tool.name for tool in self._tools.values() if tool.server == name and declared(tool.exposure)}
        connection = self.connections.get(name)
        if connection is not None:
            connection.entry = entry
            if connection.state == "connected":
                self._resource_tools = []  # made again, with the widest exposure there is now
                self._changed(connection)
        still = {tool.name for tool in self._tools.values() if tool.server == name and declared(tool.exposure)}
        if self.on_switched is not None:
            self.on_switched(before - still)

    def _entry(self, name: str) -> McpServerEntry:
        entry = self.registered.get(name) or self.config.get(name)
        if entry is None:
            raise KeyError(name)
        return entry

    def _replace_entry(self, entry: McpServerEntry) -> McpServerEntry:
        if entry.name in self.registered:
            self.registered[entry.name] = entry
        else:
            self.config.servers = [entry if e.name == entry.name else e for e in self.config.servers]
        return entry

    # ------------------------------------------------------------------ tools

    def problems(self) -> list[str]:
        """Configuration errors, failed connections and skipped tools not reported yet (each
        once), one line each, with what servers supplied made :func:`terminal_safe`."""
        return [terminal_safe(line) for line in self._problems()]

    def _problems(self) -> list[str]:
        out: list[str] = []
        for error in self.config.errors:
            if error not in self._reported:
                self._reported.add(error)
                out.append(f"MCP config: {error}")
        for connection in self.connections.values():
            if connection.state == "failed" and connection.name not in self._reported:
                self._reported.add(connection.name)
                first = (connection.error or "unknown error").split("\n", 1)[0]
                out.append(f'MCP server "{connection.name}" failed to connect: {first}')
            elif connection.state == "needs-auth" and connection.name not in self._reported:
                self._reported.add(connection.name)
                out.append(f'MCP server "{connection.name}" {connection.error}')
            skipped = connection.skipped_tools
            key = f"{connection.name}\0skipped\0{skipped}"
            if skipped and key not in self._reported:
                self._reported.add(key)
                shown = "; ".join(skipped[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
                count = f"{len(skipped)} malformed tool definition{'s' if len(skipped) > 1 else ''}"
                out.append(f'MCP server "{connection.name}": skipped {count}: {shown}')
        return out

    def tools(self) -> list[Any]:
        """The agent tools of every connected server, plus the resource tools when a server has resources."""
        return [*self._tools.values(), *(self._resource_tools if self._resource_servers() else [])]

    def _resource_servers(self) -> list[McpConnection]:
        return [c for c in self.connections.values() if c.has_resources and c.entry.exposure != "hidden"]

    def _changed(self, connection: McpConnection) -> None:
        if self.on_state is not None:
            self.on_state(connection)
        if connection.state != "connected" or self.connections.get(connection.name) is not connection:
            return  # not connected, or a registration that was removed meanwhile
        taken = {n for n, t in self._tools.items() if t.server != connection.name}
        fresh: dict[str, McpTool] = {}
        for definition in connection.tools:
            name = tool_name(connection.name, str(definition.get("name", "")), lambda n: n in taken or n in fresh)
            exposure = connection.entry.tool_exposure(str(definition.get("name", "")))
            tool = McpTool(connection, definition, name, exposure, readable_resources=lambda: bool(self._resource_servers()))
            tool.default_active = declared(exposure) and self.filter.allows(name)
            fresh[name] = tool
        for name, old in list(self._tools.items()):
            if old.server == connection.name and name not in fresh:
                old.withdrawn = True
                del self._tools[name]
        self._tools.update(fresh)
        servers = self._resource_servers()
        if servers and not self._resource_tools:
            widest = max((c.entry.exposure for c in servers), key=lambda e: _EXPOSURE_RANK.get(e, 0))
            for resource_tool in (ListResourcesTool(self._resource_servers, widest),
                                  ListTemplatesTool(self._resource_servers, widest),
                                  ReadResourceTool(self._resource_servers, widest)):
                resource_tool.default_active = declared(widest) and self.filter.allows(resource_tool.name)
                self._resource_tools.append(resource_tool)
        if self.on_tools is not None:
            self.on_tools(self.tools())

    # ------------------------------------------------------------------ status

    def status(self) -> list[dict[str, Any]]:
        """One row per configured or registered server: name, scope, source, enabled, exposure,
        transport, state, tools (the server's names), error; servers that need attention first.
        What the server supplied (tool names, the error with its stderr) is :func:`terminal_safe`. A
        registration a ``mcp.json`` server overrides is a row of its own, state ``overridden``, last."""
        rows = []
        for entry in self.entries:
            connection = self.connections.get(entry.name)
            row: dict[str, Any] = {
                "name": entry.name, "scope": entry.scope, "source": entry.source, "enabled": entry.enabled,
                "exposure": entry.exposure, "transport": entry.describe_transport(),
                "state": connection.state if connection is not None else "disabled",
                "tools": [terminal_safe(str(t.get("name"))) for t in connection.tools] if connection is not None else [],
                "error": terminal_safe(connection.error, multiline=True) if connection and connection.error else None,
                "resources": bool(connection and connection.has_resources),
            }
            if entry.override:
                row["override"] = entry.override
            rows.append(row)
        for entry in self.overridden:
            winner = next(e for e in self.config.servers if namespace(e.name) == namespace(entry.name))
            rows.append({
                "name": entry.name, "scope": entry.scope, "source": entry.source, "enabled": entry.enabled,
                "exposure": entry.exposure, "transport": entry.describe_transport(), "state": "overridden",
                "tools": [], "error": None, "resources": False, "override": winner.source,
            })
        attention = {"failed": 0, "needs-auth": 0, "disconnected": 1, "connecting": 2, "overridden": 4}
        return sorted(rows, key=lambda r: attention.get(r["state"], 3))
