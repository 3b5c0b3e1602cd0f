"""The built-in MCP extension: a session's :class:`~pi_runtime.mcp.manager.McpManager` wired to it.

Pi ships its MCP support as a built-in extension, so MCP tools go through the same tool pipeline
as any other (``tool_call``/``tool_result`` hooks, permission gates). Here too:

- ``session_start`` starts connecting every enabled server in the background;
- each server's tools are registered as it connects (``pi.register_tool``), active unless their
  exposure is ``hidden`` or ``--tools``/``--exclude-tools`` leave them out;
- ``before_agent_start`` (every prompt) waits for servers whose tools are declared, at most ten
  seconds, then reports configuration errors and failed connections once;
- ``session_shutdown`` (quit, end of ``-p``, RPC EOF, a signal) stops every server; a switch to
  another session keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .manager import McpManager

EXTENSION_PATH = "builtin:mcp"
_SWITCHES = frozenset({"new", "resume", "fork"})


def mcp_extension(manager: McpManager) -> Callable[[Any], None]:
    """The extension factory (``def extension(pi)``) serving ``manager``."""

    def extension(pi: Any) -> None:
        def register(tools: list[Any]) -> None:
            for tool in tools:
                pi.register_tool(tool)

        manager.on_tools = register

        def started(_event: Any, _ctx: Any) -> None:
            manager.start()

        async def before_prompt(_event: Any, ctx: Any) -> None:
            await manager.wait_for_declared()
            for problem in manager.problems():
                ctx.ui.notify(problem, "warning")

        async def shutdown(event: Any, _ctx: Any) -> None:
            # A switch to another session (/new, /resume, /fork) keeps the servers running.
            if event.get("reason") not in _SWITCHES:
                await manager.close()

        pi.on("session_start", started)
        pi.on("before_agent_start", before_prompt)
        pi.on("session_shutdown", shutdown)

    return extension
