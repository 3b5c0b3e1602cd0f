"""The built-in MCP extension (``builtin:mcp``): a session's MCP servers wired to it.

Pi ships its MCP support as a built-in extension, so MCP tools go through the same tool pipeline
as any other (``tool_call``/``tool_result`` hooks, permission gates). Here too, and the CLI loads
it whenever an ``mcp.json`` exists (``--no-mcp`` and ``-ne`` leave it out, ``-e builtin:mcp`` brings
it back):

- ``session_start`` reads the ``mcp.json`` files (the project's only when it is trusted) and
  starts connecting every enabled server in the background;
- each server's tools are registered as it connects (``pi.register_tool``), active unless their
  exposure is ``hidden`` or ``--tools``/``--exclude-tools`` leave them out;
- ``before_agent_start`` (every prompt) waits for servers whose tools are declared, at most ten
  seconds, then reports configuration errors and failed connections once;
- ``session_shutdown`` (quit, end of ``-p``, RPC EOF, a signal, ``/reload``) stops every server; a
  switch to another session keeps them. After ``/reload`` the extension loads again and reads
  ``mcp.json`` afresh, so changed servers take effect (as in Pi).
"""

from __future__ import annotations

import weakref
from typing import Any

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


def extension(pi: Any) -> None:
    """Serve the session's MCP servers (see the module docstring)."""
    from .. import __version__

    tool_filter = _tool_filter
    state: dict[str, McpManager | None] = {"manager": None}

    def register(tools: list[Any]) -> None:
        for tool in tools:
            pi.register_tool(tool)

    def started(_event: Any, ctx: Any) -> None:
        manager = state["manager"]
        if manager is None:
            from . import has_config

            trusted = ctx.is_project_trusted()
            if not has_config(ctx.agent_dir, ctx.cwd, trusted):
                return
            manager = McpManager.load(ctx.cwd, ctx.agent_dir, project_trusted=trusted, tool_filter=tool_filter,
                                      version=__version__)
            manager.on_tools = register
            state["manager"] = manager
            _managers[pi.events] = manager
        manager.start()

    async def before_prompt(_event: Any, ctx: Any) -> None:
        manager = state["manager"]
        if manager is None:
            return
        await manager.wait_for_declared()
        await manager.reconnect_signed_in()
        for problem in manager.problems():
            ctx.ui.notify(problem, "warning")

    async def shutdown(event: Any, _ctx: Any) -> None:
        manager = state["manager"]
        if manager is not None and getattr(event, "reason", None) not in _SWITCHES:
            await manager.close()

    pi.on("session_start", started)
    pi.on("before_agent_start", before_prompt)
    pi.on("session_shutdown", shutdown)
