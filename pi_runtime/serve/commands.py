"""The session commands ``pi serve`` answers: ``pi --mode rpc``'s (Pi's and pi's, unchanged), and
``get_snapshot``, which needs the session's stream (its cursor and the message being streamed)."""

from __future__ import annotations

from typing import Any

from ..modes.rpc_commands import COMMANDS, CommandError
from .live import LiveSession


async def run_session_command(live: LiveSession, cmd: dict[str, Any]) -> Any:
    """Run one session command and return its data.

    Raises:
        CommandError: No such command, or a malformed argument; any kernel error as raised.
    """
    name = cmd["type"]
    if name == "get_snapshot":
        return live.hub.snapshot()
    handler = COMMANDS.get(name)
    if handler is None:
        raise CommandError(f"Unknown command: {name}")
    return await handler(live.session, cmd)
