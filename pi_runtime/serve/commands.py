"""The session commands ``pi serve`` adds to ``pi --mode rpc``'s (which it answers unchanged).

What a front end holding a session in another process calls that Pi's RPC protocol has no command
for: a snapshot to resync from, tree navigation and labels, model cycling in either direction,
setting the model as the default, and the questions asked before a fork or a resume. A handler
gets the live session and the command; what it returns is the response's ``data``; an exception
is a failed response.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..modes.rpc_commands import COMMANDS, CommandError
from .live import LiveSession

SessionHandler = Callable[[LiveSession, dict[str, Any]], Awaitable[Any]]
SERVE_COMMANDS: dict[str, SessionHandler] = {}


def serve_command(name: str) -> Callable[[SessionHandler], SessionHandler]:
    def register(fn: SessionHandler) -> SessionHandler:
        SERVE_COMMANDS[name] = fn
        return fn

    return register


async def run_session_command(live: LiveSession, cmd: dict[str, Any]) -> Any:
    """Run one session command (serve's own, else ``pi --mode rpc``'s) and return its data.

    Raises:
        CommandError: No such command, or a malformed argument; any kernel error as raised.
    """
    name = cmd["type"]
    handler = SERVE_COMMANDS.get(name)
    if handler is not None:
        return await handler(live, cmd)
    rpc_handler = COMMANDS.get(name)
    if rpc_handler is None:
        raise CommandError(f"Unknown command: {name}")
    return await rpc_handler(live.session, cmd)


def _str(cmd: dict[str, Any], key: str) -> str:
    value = cmd.get(key)
    if not isinstance(value, str) or not value:
        raise CommandError(f"'{key}' must be a non-empty string")
    return value


@serve_command("get_snapshot")
async def _snapshot(live: LiveSession, cmd: dict[str, Any]) -> Any:
    return live.hub.snapshot()


@serve_command("navigate_tree")
async def _navigate(live: LiveSession, cmd: dict[str, Any]) -> Any:
    summarize = cmd.get("summarize", False)
    if not isinstance(summarize, bool | str):
        raise CommandError("'summarize' must be true, false or custom instructions")
    try:
        return await live.session.navigate_tree(_str(cmd, "entryId"), summarize)
    except KeyError as exc:
        raise CommandError(exc.args[0] if exc.args else str(exc)) from exc


@serve_command("set_label")
async def _set_label(live: LiveSession, cmd: dict[str, Any]) -> Any:
    label = cmd.get("label")
    if label is not None and not isinstance(label, str):
        raise CommandError("'label' must be a string or null")
    try:
        return {"entryId": live.session.set_label(_str(cmd, "entryId"), label)}
    except KeyError as exc:
        raise CommandError(exc.args[0] if exc.args else str(exc)) from exc


@serve_command("cycle_model")
async def _cycle_model(live: LiveSession, cmd: dict[str, Any]) -> Any:
    direction = cmd.get("direction", 1)
    if direction not in (1, -1) or isinstance(direction, bool):
        raise CommandError("'direction' must be 1 or -1")
    return await live.session.cycle_model(direction)


@serve_command("clone")
async def _clone(live: LiveSession, cmd: dict[str, Any]) -> Any:
    entry_id = cmd.get("entryId")
    if entry_id is not None and not isinstance(entry_id, str):
        raise CommandError("'entryId' must be a string")
    return await live.session.clone(entry_id)


@serve_command("set_model")
async def _set_model(live: LiveSession, cmd: dict[str, Any]) -> Any:
    session = live.session
    provider, model_id = _str(cmd, "provider"), _str(cmd, "modelId")
    model = session.model_registry.find(provider, model_id) if session.model_registry else None
    if model is None:
        raise CommandError(f"Model not found: {provider}/{model_id}")
    await session.set_model(model, persist_default=cmd.get("persistDefault") is True)
    return model.to_public_wire()


@serve_command("sibling_allowed")
async def _sibling_allowed(live: LiveSession, cmd: dict[str, Any]) -> Any:
    entry_id = cmd.get("entryId")
    return {"allowed": await live.session.sibling_allowed(_str(cmd, "kind"),
                                                          entry_id if isinstance(entry_id, str) else None)}


@serve_command("switch_allowed")
async def _switch_allowed(live: LiveSession, cmd: dict[str, Any]) -> Any:
    return {"allowed": await live.session.switch_allowed(_str(cmd, "sessionPath"))}
