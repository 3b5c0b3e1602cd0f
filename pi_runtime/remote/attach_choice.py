"""Which of a ``pi serve``'s sessions ``pi attach`` opens in the app, decided before the app
takes the terminal: a mistake (no server, an unknown id) is one line on the normal screen.

    pi attach                 every running session, each in a tab (a new one when none runs)
    pi attach 2               the second session of ``pi attach --list``
    pi attach 3f09            the session whose id (or kernel session id) starts so
    pi attach --new | -c      a new session, or the folder's most recent one, opened on the server
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import ServeClient
    from .session import RemoteSession


class AttachChoiceError(Exception):
    """The sessions asked for cannot be attached (the message says why, in one line)."""


def match_session(rows: list[dict[str, Any]], ref: str) -> dict[str, Any]:
    """The listing row ``ref`` names: a 1-based index into the listing, or a unique prefix of a
    session's id on the server or of its kernel ``sessionId``.

    Raises:
        AttachChoiceError: No row, or several, match.
    """
    if ref.isdigit() and 1 <= int(ref) <= len(rows):
        return rows[int(ref) - 1]
    found = [row for row in rows if str(row.get("session", "")).startswith(ref)
             or str(row.get("sessionId") or "").startswith(ref)]
    if not found:
        raise AttachChoiceError(f"no session {ref} on this pi serve (pi attach --list names them)")
    if len(found) > 1:
        names = ", ".join(str(row["session"]) for row in found)
        raise AttachChoiceError(f"{ref} names several sessions ({names}): give more of the id")
    return found[0]


async def choose_handles(client: ServeClient, ref: str | None, *, new: bool = False,
                         continue_recent: bool = False) -> list[str]:
    """The server ids of the sessions to attach, opening one on the server when asked (or when
    none runs and no id was given).

    Raises:
        AttachChoiceError: ``ref`` names no running session, or several.
        RemoteError: The server refused to open a session.
    """
    if new or continue_recent:
        return [str((await client.open_session(continue_recent=continue_recent))["session"])]
    rows = await client.list_sessions()
    if ref is not None:
        return [str(match_session(rows, ref)["session"])]
    if not rows:
        return [str((await client.open_session())["session"])]
    return [str(row["session"]) for row in rows]


async def attach_for_app(socket: Path, ref: str | None, *, new: bool = False, continue_recent: bool = False,
                         load_app: Callable[[], Any]) -> tuple[asyncio.Future[list[RemoteSession]], Any]:
    """Connect, choose the sessions and ask to attach them, then run ``load_app`` (the app's
    imports) while the server builds and sends their snapshots. Returns the attaching (a future the
    app awaits once it has painted its first frame) and what ``load_app`` returned.

    The imports run here, blocking the loop, rather than in a thread: reading a snapshot (decoding
    megabytes of JSON) would take the interpreter from them, and the first frame waits for them.

    Raises:
        NoServer, AttachChoiceError, RemoteError: As :func:`choose_handles` (the connection is closed).
    """
    from .client import ServeClient

    client = await ServeClient.connect(socket, client="pi attach")
    try:
        handles = await choose_handles(client, ref, new=new, continue_recent=continue_recent)
    except BaseException:
        await client.close()
        raise
    attaching = asyncio.ensure_future(asyncio.gather(*(client.attach(handle) for handle in handles)))
    for _ in range(3):
        # Let the attach commands be written (gather's tasks start on the next turns) before the
        # loop blocks: the server works on the snapshots meanwhile.
        await asyncio.sleep(0)
    try:
        return attaching, load_app()
    except BaseException:
        attaching.cancel()
        await client.close()
        raise
