"""``/mcp`` outside the app: print the servers' status, or reconnect one (mcp.md).

In Pi ``/mcp`` belongs to the built-in MCP extension, so ``pi -p "/mcp"`` and an RPC ``prompt``
of ``/mcp`` run it instead of sending it to the model: "Outside the interactive TUI, ``/mcp``
prints server status; ``/mcp login <server>``, ``/mcp logout <server>``, and ``/mcp reconnect
<server>`` perform those actions directly." The built-in extension registers it
(``extension.py``); the app keeps its own ``/mcp`` screen. Without any ``mcp.json`` the extension
is not loaded at all (start-up stays fast), so the print and RPC modes answer an ``/mcp`` nobody
owns with :func:`unowned_reply`.

This module imports nothing heavy: the print and RPC modes ask :func:`is_mcp_command` of every
prompt.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..records import record
from ..text_safety import terminal_safe
from . import global_path, has_config

USAGE = "Usage: /mcp [reconnect <server> | login <server> | logout <server>]"


@record(frozen=True)
class McpReply:
    """What ``/mcp`` answers: the text to show and whether it went as asked."""

    text: str
    ok: bool = True


def is_mcp_command(text: str) -> bool:
    """Whether ``text`` is ``/mcp`` or ``/mcp <args>``."""
    stripped = text.strip()
    return stripped == "/mcp" or stripped.startswith(("/mcp ", "/mcp\t"))


def no_servers_text(agent_dir: str | os.PathLike[str]) -> str:
    return f"No MCP servers configured. Add them to {global_path(agent_dir)} or .pi/mcp.json (pi mcp add)."


def unowned_reply(text: str, session: Any) -> McpReply | None:
    """The answer to an ``/mcp`` no extension registered (None when ``text`` is something else or
    an extension owns ``/mcp``): no servers configured, or MCP turned off for this run."""
    if not is_mcp_command(text):
        return None
    runner = getattr(session, "extension_runner", None)
    if runner is not None and "mcp" in runner.commands():
        return None
    agent_dir = getattr(runner, "agent_dir", None)
    if agent_dir is None:
        from ..paths import agent_dir as default_agent_dir

        agent_dir = default_agent_dir()
    cwd = getattr(session, "cwd", None) or os.getcwd()
    trusted = bool(getattr(getattr(session, "settings", None), "project_trusted", False))
    if has_config(agent_dir, cwd, trusted):
        return McpReply("MCP is turned off for this run (--no-mcp or --no-extensions).", ok=False)
    return McpReply(no_servers_text(agent_dir))


def status_text(manager: Any) -> str:
    """The servers as ``pi mcp list`` shows them: state, exposure, scope, transport, tools, errors."""
    lines: list[str] = []
    for row in manager.status():
        count = len(row["tools"])
        if row["state"] == "connected":
            state = f"connected, {count} tool{'' if count == 1 else 's'}"
        else:
            state = row["state"] if row["enabled"] else "disabled"
        lines.append(f"{row['name']}: {state} ({row['exposure']}, {row['scope']})")
        lines.append(f"  {row['transport']}")
        if row["tools"]:
            lines.append(f"  tools: {', '.join(row['tools'])}")
        if row["resources"]:
            lines.append("  offers resources")
        if row["state"] != "connected" and row.get("error"):
            lines.append("  " + str(row["error"]).replace("\n", "\n  "))
    lines += [f"config error: {error}" for error in manager.config.errors]
    return "\n".join(lines) if lines else "No MCP servers configured."


async def run(manager: Any, args: str, *, agent_dir: str | os.PathLike[str],
              show: Callable[[str], None] | None = None) -> McpReply:
    """Answer ``/mcp <args>`` for ``manager``'s servers (None: no servers configured).

    The status waits until every server's connect attempt has ended (connected, failed or needing
    sign-in), as Pi's does and as ``pi mcp list`` does: each attempt is bounded by the server's own
    timeout, and a status taken under a shorter cap said "connecting" on a busy machine.

    Args:
        manager: The session's ``McpManager``, or None.
        args: What followed ``/mcp``.
        agent_dir: Named in the "no servers" answer.
        show: Where a sign-in's progress lines go (the authorization URL) before it answers.
    """
    words = args.split()
    if manager is None:
        return McpReply(no_servers_text(agent_dir), ok=not words)
    if not words:
        await manager.wait_connected()
        return McpReply(status_text(manager))
    action, names = words[0], words[1:]
    if action not in ("reconnect", "login", "logout") or len(names) != 1:
        return McpReply(USAGE, ok=False)
    name = names[0]
    if action in ("login", "logout"):
        from .accounts import sign_in_and_reconnect, sign_out_and_reconnect

        if action == "logout":
            ok, text = await sign_out_and_reconnect(manager, name)
        else:  # the URL (and what to do) goes out at once; the answer comes when the browser is back
            ok, text = await sign_in_and_reconnect(manager, name, show or (lambda _line: None))
        return McpReply(text, ok=ok)
    from .connection import McpConnectionError

    try:
        connection = await manager.reconnect(name)
    except KeyError:
        return McpReply(f'No enabled MCP server "{name}"', ok=False)
    except McpConnectionError as exc:
        return McpReply(terminal_safe(f'MCP server "{name}" failed to connect: {exc}', multiline=True), ok=False)
    count = len(connection.tools)
    return McpReply(f"Reconnected {name}: {count} tool{'' if count == 1 else 's'}")
