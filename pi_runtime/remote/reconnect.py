"""Keeping a viewer attached: when the connection to ``pi serve`` drops, connect again and go on
from the last record applied (the server replays what was missed, or gives a snapshot to start
again from, see ``RemoteSession.resume_from``).

The first retry is at once, then they space out (a server being restarted takes a moment) up to
a few seconds apart; a front end shows what ``report`` says. It ends when the session closes on
the server, or when the server no longer has it (a restarted server starts with other sessions).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .session import RemoteSession

Severity = Literal["information", "warning"]
FIRST_RETRY_S = 0.1
LONGEST_RETRY_S = 5.0


async def keep_attached(session: RemoteSession, report: Callable[[str, Severity], None]) -> None:
    """Run until ``session`` closes: reconnect it each time its connection is lost.

    Args:
        session: The served session to keep attached.
        report: Told, in words, when the connection is lost, when it is back and when it is given up.
    """
    from .client import NoServer
    from .errors import ConnectionLost, RemoteError

    while True:
        await session.wait_disconnected()
        if session.view.closed:
            reason = session.view.closed_reason
            report(f"pi serve closed this session ({reason})" if reason else "pi serve closed this session", "warning")
            return
        report("lost the connection to pi serve; reconnecting…", "warning")
        delay = 0.0
        while True:
            if delay:
                await asyncio.sleep(delay)  # a back-off between attempts, not a wait for a condition
            try:
                data = await session.reconnect()
            except (NoServer, ConnectionLost, OSError):
                delay = min(LONGEST_RETRY_S, max(FIRST_RETRY_S, delay * 2))
                continue
            except RemoteError as exc:
                report(f"pi serve no longer has this session ({exc})", "warning")
                return
            missed = data.get("replayed")
            report("reconnected" + (f" ({missed} missed record(s) replayed)" if missed else ""), "information")
            break
