"""``/mcp login|logout|reconnect <server>`` and the same actions from the ``/mcp`` screen.

Sign-in opens :class:`~pi_tui.screens.mcp_login.McpLoginScreen`; its result, like every action's,
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


def _oauth_problem(connection: Any) -> str | None:
    from pi_runtime.frontend import oauth_applies

    if oauth_applies(connection.entry):
        return None
    entry = connection.entry
    why = "it sends its own Authorization header" if entry.transport == "http" else "it is not an HTTP server"
    return f'MCP server "{entry.name}" does not use OAuth: {why}'


async def _notify(app: Any, text: str, kind: str = "info") -> None:
    await app.transcript.add_notice(text, kind)


def start_sign_in(app: Any, manager: Any, name: str) -> str | None:
    """Open the sign-in dialog for ``name``; returns why not, if it cannot."""
    from .screens.mcp_login import McpLoginScreen

    connection, problem = _connection(manager, name)
    problem = problem or _oauth_problem(connection)
    if problem:
        return problem

    def done(ok: bool, message: str) -> None:
        app.call_later(_notify, app, message, "info" if ok else "error")

    app.push_screen(McpLoginScreen(manager, name, done))
    return None


async def sign_out(manager: Any, name: str) -> tuple[bool, str]:
    """Delete ``name``'s credentials and reconnect it; ``(ok, message)``."""
    from pi_runtime.frontend import McpAuthFileError, McpAuthStore

    connection, problem = _connection(manager, name)
    problem = problem or _oauth_problem(connection)
    if problem:
        return False, problem
    store = McpAuthStore(manager.agent_dir)
    try:
        removed = store.remove(name, str(connection.entry.config["url"]))
    except McpAuthFileError as exc:
        return False, str(exc)
    if not removed:
        return True, f'No stored credentials for MCP server "{name}"'
    try:
        await manager.reconnect(name)
    except Exception:  # noqa: BLE001 - expected: it now needs sign-in, which its state shows
        pass
    return True, f'Signed out of MCP server "{name}": deleted its credentials from {store.path}'


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
