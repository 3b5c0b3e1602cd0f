"""Signing a session's MCP server in and out: what ``/mcp login|logout <server>`` do in every mode.

The app shows its own sign-in dialog (a field for a pasted redirect
URL); print and RPC mode show the authorization URL as a line (stderr, or an RPC notification)
and wait for the browser's redirect. Signing out deletes the credentials (``mcp-auth.json``)
and reconnects the server, so it shows that it needs sign-in again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def find_oauth_server(manager: Any, name: str) -> tuple[Any, str | None]:
    """The enabled OAuth server ``name`` of ``manager``, or why there is none."""
    from .oauth import oauth_applies

    connection = manager.connections.get(name) if name else None
    if connection is None:
        if not name:
            return None, "Name the server: /mcp login <server>"
        if any(entry.name == name for entry in manager.entries):
            return None, f'MCP server "{name}" is disabled; enable it in mcp.json first'
        return None, f'No MCP server named "{name}"'
    entry = connection.entry
    if not oauth_applies(entry):
        why = "it sends its own Authorization header" if entry.transport == "http" else "it is not an HTTP server"
        return None, f'MCP server "{name}" does not use OAuth: {why}'
    return connection, None


async def sign_in_and_reconnect(manager: Any, name: str, show: Callable[[str], None], **options: Any) -> tuple[bool, str]:
    """Run the sign-in for ``name`` (``show`` gets the lines to show: the URL), then reconnect it."""
    from .oauth import McpSignInError
    from .oauth_login import mcp_sign_in

    connection, problem = find_oauth_server(manager, name)
    if problem:
        return False, problem
    try:
        needed = await mcp_sign_in(connection.entry, manager.agent_dir, show, **options)
    except McpSignInError as exc:
        return False, str(exc)
    try:
        await manager.reconnect(name)
    except Exception as exc:  # noqa: BLE001 - signed in; the connection's own failure is the news
        return False, f'Signed in to MCP server "{name}", but it failed to connect: {str(exc).splitlines()[0]}'
    if not needed:
        return True, f'MCP server "{name}" needed no sign-in'
    return True, f'Signed in to MCP server "{name}"'


async def sign_out_and_reconnect(manager: Any, name: str) -> tuple[bool, str]:
    """Delete ``name``'s credentials and reconnect it; ``(ok, message)``."""
    from .oauth_store import McpAuthFileError, McpAuthStore

    connection, problem = find_oauth_server(manager, name)
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
