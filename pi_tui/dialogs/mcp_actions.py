"""``/mcp login|logout|reconnect <server>`` and the same actions from the ``/mcp`` screen.

Sign-in opens :class:`~pi_tui.dialogs.mcp_login.McpLoginScreen`; its result, like every action's,
is a notice in the transcript. Signing out deletes the server's stored credentials
(``mcp-auth.json``) and reconnects it, so it shows that it needs sign-in again.
"""

from __future__ import annotations

from typing import Any

USAGE = "Usage: /mcp, /mcp login <server>, /mcp logout <server>, /mcp reconnect <server>"


def _connection(manager: Any, name: str) -> tuple[Any, str | None]:
    """The enabled server ``name``, or why there is none."""
    if not name:
        return None, USAGE
    connection = manager.connections.get(name)
    if connection is not None:
        return connection, None
    if any(entry.name == name for entry in manager.entries):
        return None, f'MCP server "{name}" is disabled; enable it in mcp.json first'
    return None, f'No MCP server named "{name}"'


async def _notify(app: Any, text: str, kind: str = "info") -> None:
    await app.transcript.add_notice(text, kind)


def start_sign_in(app: Any, manager: Any, name: str) -> str | None:
    """Open the sign-in dialog for ``name``; returns why not, if it cannot."""
    from pi_runtime.frontend.app_support import find_oauth_server

    from .mcp_login import McpLoginScreen

    _connection_found, problem = find_oauth_server(manager, name)
    if problem:
        return problem

    def done(ok: bool, message: str) -> None:
        app.call_later(_notify, app, message, "info" if ok else "error")

    app.push_screen(McpLoginScreen(manager, name, done))
    return None


async def sign_out(manager: Any, name: str) -> tuple[bool, str]:
    """Delete ``name``'s credentials and reconnect it (``pi_runtime.mcp.accounts``)."""
    from pi_runtime.frontend.app_support import sign_out_and_reconnect

    result: tuple[bool, str] = await sign_out_and_reconnect(manager, name)
    return result


async def run_mcp_action(app: Any, manager: Any, action: str, name: str) -> None:
    """``/mcp <action> <server>``."""
    if action == "login":
        problem = start_sign_in(app, manager, name)
        if problem:
            await _notify(app, problem, "error")
        return
    if action == "logout":
        ok, message = await sign_out(manager, name)
        await _notify(app, message, "info" if ok else "error")
        return
    if action == "reconnect":
        _connection_found, problem = _connection(manager, name)
        if problem:
            await _notify(app, problem, "error")
            return
        try:
            await manager.reconnect(name)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            await _notify(app, str(exc).splitlines()[0], "error")
            return
        await _notify(app, f'Reconnected to MCP server "{name}"')
        return
    await _notify(app, USAGE, "error")
