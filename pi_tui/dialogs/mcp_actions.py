"""``/mcp login|logout|reconnect <server>`` and the same actions from the ``/mcp`` screen, with the
screen's Enable/Disable and Exposure.

Sign-in opens :class:`~pi_tui.dialogs.mcp_login.McpLoginScreen`; its result, like every action's,
is a notice in the transcript. Signing out deletes the server's stored credentials
(``mcp-auth.json``) and reconnects it, so it shows that it needs sign-in again. Enable, Disable and
Exposure are saved to the mcp.json that defines the server (``McpManager.set_enabled``) and say
where in a toast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EXPOSURES = {
    "codemode": "called from codemode scripts, not declared to the model one by one",
    "deferred": "declared once tool_search finds them",
    "direct": "declared to the model as tools of their own",
    "hidden": "not reachable at all",
}
"""Each exposure and what it means for the model, in the order the picker lists them."""

USAGE = "Usage: /mcp, /mcp login <server>, /mcp logout <server>, /mcp reconnect <server>"


def _connection(manager: Any, name: str) -> tuple[Any, str | None]:
    """The enabled server ``name``, or why there is none."""
    if not name:
        return None, USAGE
    connection = manager.connections.get(name)
    if connection is not None:
        return connection, None
    if any(entry.name == name for entry in manager.entries):
        return None, f'MCP server "{name}" is disabled; enable it in /mcp (e) first'
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


def _saved_where(manager: Any, name: str, *, in_project: bool = False) -> str:
    from pi_runtime.frontend.app_support import saved_where

    entry = next((e for e in manager.entries if e.name == name), None)
    path = saved_where(entry, manager.config.project_config, in_project=in_project) if entry else None
    return f"saved to {path}" if path is not None else "for this session"


async def switch_server(app: Any, manager: Any, name: str, enabled: bool, *, in_project: bool) -> None:
    """Turn ``name`` on or off (``in_project``: as a trusted project's override); a toast says where it went."""
    from pi_runtime.frontend.app_support import McpConfigError

    try:
        await manager.set_enabled(name, enabled, in_project=in_project)
    except (McpConfigError, KeyError) as exc:
        app.notify(f'Could not change MCP server "{name}": {exc}', severity="error", timeout=6)
        return
    where = _saved_where(manager, name, in_project=in_project)
    app.notify(f'MCP server "{name}" {"enabled" if enabled else "disabled"} ({where})', timeout=4)


def choose_exposure(app: Any, manager: Any, row: dict[str, Any], done: Callable[[], None]) -> None:
    """Pick ``row``'s server's exposure from a list; ``done()`` runs after a change was saved."""
    from pi_runtime.frontend.app_support import McpConfigError

    from .pick_list import PickList
    from .pick_rows import PickItem

    name, current = row["name"], row["exposure"]
    items = [PickItem(value, f"{'✓' if value == current else ' '} {value:<9} {meaning}", value, current=value == current)
             for value, meaning in EXPOSURES.items()]

    def picked(value: object) -> None:
        if not isinstance(value, str) or value == current:
            return  # cancelled, or the same as before
        try:
            manager.set_exposure(name, value)
        except (McpConfigError, KeyError) as exc:
            app.notify(f'Could not change MCP server "{name}": {exc}', severity="error", timeout=6)
            return
        app.notify(f'MCP server "{name}" exposure: {value} ({_saved_where(manager, name)})', timeout=4)
        done()

    app.push_screen(PickList(f"Exposure of {name}", items, filterable=False, id="mcp-exposure",
                             hint="↑↓ move · enter save · esc back"), picked)
