"""The built-in MCP extension (``builtin:mcp``): a session's MCP servers wired to it.

Pi ships its MCP support as a built-in extension, so MCP tools go through the same tool pipeline
as any other (``tool_call``/``tool_result`` hooks, permission gates). Here too, and the CLI loads
it whenever an ``mcp.json`` exists or an extension registers a server (``--no-mcp``, ``-ne`` and
``"-builtin:mcp"`` in the settings' ``extensions`` leave it out, ``-e builtin:mcp`` brings it back):

- ``session_start`` reads the ``mcp.json`` files (the project's only when it is trusted) and the
  servers extensions registered (``pi.get_mcp_servers()``), and starts connecting every enabled
  server in the background;
- ``mcp_servers_change`` (an extension registered or removed a server later) connects new
  servers at once; a removed server's tools are deactivated, then its connection closes. Handling
  this event is what makes this extension the one that connects registered servers; the runner
  adds it for them when no ``mcp.json`` exists, and leaves it out when an extension owns ``/mcp``;
- each server's tools are registered as it connects (``pi.register_tools``: one prompt rebuild
  for them all), active unless their exposure is ``hidden`` or ``--tools``/``--exclude-tools``
  leave them out;
- ``before_agent_start`` (every prompt) waits for servers whose tools are declared, at most ten
  seconds, then reports configuration errors and failed connections once;
- ``session_shutdown`` (quit, end of ``-p``, RPC EOF, a signal, ``/reload``) stops every server; a
  switch to another session keeps them;
- ``/mcp`` (Pi's command of this extension) prints the servers' status in print mode and notifies
  it in RPC/JSON mode; ``/mcp reconnect <server>`` reconnects one (``command.py``). The app
  shows its own ``/mcp`` screen instead. After ``/reload`` the extension loads again and reads
  ``mcp.json`` afresh, so changed servers take effect (as in Pi).
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

from ..modes.output_guard import real_stdout
from .manager import McpManager, ToolFilter

EXTENSION_PATH = "builtin:mcp"
_SWITCHES = frozenset({"new", "resume", "fork"})
_tool_filter = ToolFilter()
_managers: weakref.WeakKeyDictionary[Any, McpManager] = weakref.WeakKeyDictionary()
"""The live manager of each extension runner, by the runner's event bus (``pi.events``)."""


def set_tool_filter(tool_filter: ToolFilter) -> None:
    """What ``--tools`` and ``--exclude-tools`` say about MCP tools, for the next sessions' servers
    (the CLI sets it before it loads extensions)."""
    global _tool_filter
    _tool_filter = tool_filter


def manager_for_bus(bus: Any) -> McpManager | None:
    """The manager of the runner whose event bus is ``bus``."""
    try:
        return _managers.get(bus)
    except TypeError:  # not weak-referenceable: no runner of ours
        return None


def activate_discovery(pi: Any, manager: McpManager) -> None:
    """Turn on the tool that reaches the servers' undeclared tools, from their configuration (before
    they connect): ``codemode`` for ``codemode`` exposure (unless ``autoEnableCodemode`` is false),
    ``tool_search`` for ``deferred`` (Pi). Only a tool that reaches other tools counts: an extension's
    tool of the same name without ``reaches_tools`` is never turned on."""
    exposures: set[str] = set()
    for entry in manager.entries:
        if entry.enabled:
            exposures.add(entry.exposure)
            exposures.update(str(v) for v in (entry.config.get("toolExposure") or {}).values())
    wanted = []
    if "codemode" in exposures and manager.config.auto_enable_codemode is not False:
        wanted.append("codemode")
    if "deferred" in exposures:
        wanted.append("tool_search")
    tools = {t["name"] for t in pi.get_all_tools()}
    reaching = [n for n in wanted if n in tools and getattr(pi._runner.tools.all.get(n), "reaches_tools", None)]
    active = pi.get_active_tools()
    if any(n not in active for n in reaching):
        pi.set_active_tools([*active, *reaching])


def extension(pi: Any) -> None:
    """Serve the session's MCP servers (see the module docstring)."""
    from .. import __version__

    tool_filter = _tool_filter
    state: dict[str, McpManager | None] = {"manager": None}

    def register(tools: list[Any]) -> None:
        pi.register_tools(tools)

    def switched(manager: McpManager, gone: set[str]) -> None:
        # /mcp turned a server off or changed its exposure: what left the declared set is out of
        # the next request; codemode or tool_search comes on when an exposure now needs it.
        if gone:
            pi.set_active_tools([name for name in pi.get_active_tools() if name not in gone])
        activate_discovery(pi, manager)

    def manager_for(ctx: Any) -> McpManager | None:
        """The manager, made on first need: at session start, or at the first registration when
        this extension was added for one after the session started."""
        manager = state["manager"]
        if manager is None:
            from . import has_config

            trusted = ctx.is_project_trusted()
            if not has_config(ctx.agent_dir, ctx.cwd, trusted) and not pi.get_mcp_servers():
                return None
            manager = McpManager.load(ctx.cwd, ctx.agent_dir, project_trusted=trusted, tool_filter=tool_filter,
                                      version=__version__)
            manager.on_tools = register
            manager.on_switched = lambda gone: switched(manager, gone)
            state["manager"] = manager
            _managers[pi.events] = manager
        return manager

    def started(_event: Any, ctx: Any) -> None:
        manager = manager_for(ctx)
        if manager is not None:
            manager.set_registered(pi.get_mcp_servers())
            manager.start()
            activate_discovery(pi, manager)

    async def registrations_changed(_event: Any, ctx: Any) -> None:
        manager = manager_for(ctx)
        if manager is None:
            return
        before = {t.name for t in manager.tools()}
        # The registrations now, not the event's: changes are applied in order, the last one wins.
        removed = manager.set_registered(pi.get_mcp_servers())
        manager.start()
        activate_discovery(pi, manager)
        gone = before - {t.name for t in manager.tools()}
        if gone:  # unreachable from the next request on, before the server is even stopped
            pi.set_active_tools([name for name in pi.get_active_tools() if name not in gone])
        await manager.close_connections(removed)

    async def before_prompt(event: Any, ctx: Any) -> None:
        manager = state["manager"]
        if manager is None:
            return
        await manager.wait_for_declared()
        sections = getattr(event, "sections", None)
        if sections is not None:  # the servers as they are when the prompt starts (Pi 1.6)
            from .servers_section import SECTION, render_section

            text = render_section(
                (entry, getattr(manager.connections.get(entry.name), "instructions", None))
                for entry in manager.entries)
            if text:
                sections.set(SECTION, text)
            else:
                sections.remove(SECTION)
        await manager.reconnect_signed_in()
        for problem in manager.problems():
            ctx.ui.notify(problem, "warning")

    async def shutdown(event: Any, _ctx: Any) -> None:
        manager = state["manager"]
        if manager is not None and getattr(event, "reason", None) not in _SWITCHES:
            await manager.close()

    async def mcp_command(args: str, ctx: Any) -> None:
        from . import command

        def show(line: str) -> None:  # a sign-in's URL, before it waits for the browser
            if ctx.mode in ("print", "json"):
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
            else:
                ctx.ui.notify(line, "info")

        reply = await command.run(state["manager"], args or "", agent_dir=ctx.agent_dir, show=show)
        if ctx.mode == "print":
            # Print mode's answer goes to stdout, as the model's would; a failure to stderr.
            stream = real_stdout() if reply.ok else sys.stderr
            stream.write(reply.text + "\n")
            stream.flush()
        else:
            # RPC and JSON mode own stdout: the client sees a notification (JSON mode: stderr).
            ctx.ui.notify(reply.text, "info" if reply.ok else "error")

    pi.register_command("mcp", mcp_command, description="MCP servers: their state and tools; sign in, reconnect, turn them on or off, change exposure")
    pi.on("session_start", started)
    pi.on("mcp_servers_change", registrations_changed)
    pi.on("before_agent_start", before_prompt)
    pi.on("session_shutdown", shutdown)
