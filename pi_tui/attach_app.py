"""``pi attach`` in the full app: sessions that ``pi serve`` runs, one tab each.

Each tab holds a ``RemoteSession`` (``pi_runtime.remote``), which is a ``SessionPort``: the app
drives it exactly as a local session (prompt, steer, follow-up, the queue, abort, the tree, fork),
and the server's kernel serialises what every viewer sends. Quitting the app, or closing a tab,
detaches: the runs go on in the server, and ``pi attach`` shows them again with everything they
did meanwhile (the attach's snapshot). When the connection drops, each session reconnects from
the last record it applied and gets the records it missed (``remote/reconnect.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .app import PiApp

if TYPE_CHECKING:
    from pi_runtime.frontend import RemoteSession


class AttachedApp(PiApp):
    """``PiApp`` on the sessions of a ``pi serve`` (Textual runs ``PiApp.on_mount`` too).

    Args:
        socket: Where the server listens.
        handles: The server's ids of the sessions to attach, the first one shown.
        attached: The sessions being attached (``pi attach`` starts that while the app is
            imported); ``handles`` is then not used.
    """

    def __init__(self, socket: Path, handles: list[str], *, attached: Awaitable[list[RemoteSession]] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(None, **kwargs)
        self.socket = socket
        self.handles = list(handles)
        self._attached = attached
        self.ended_by_signal: int | None = None
        """SIGTERM or SIGHUP, when one of them ended the app (``terminal/exit_signals.py``)."""
        self.ready = asyncio.Event()
        """Set once every session is in its tab and the first is shown (tests and the bench wait on it)."""

    def on_mount(self) -> None:
        from .terminal import exit_signals

        exit_signals.install(self)
        self.input.show_starting()
        # The first frame first: the editor takes keys while the sessions' state is read and drawn.
        self.call_after_refresh(lambda: self.run_worker(self._attach_all(), name="attach", group="startup",
                                                        exit_on_error=False))

    async def _attach_all(self) -> None:
        from pi_runtime.frontend import ConnectionLost, NoServer, RemoteError, ServeClient

        try:
            if self._attached is not None:
                sessions = await self._attached
            else:
                client = await ServeClient.connect(self.socket, client="pi attach (app)")
                sessions = [await client.attach(handle) for handle in self.handles]
        except (NoServer, RemoteError, ConnectionLost, OSError) as exc:
            self.exit(1, return_code=1, message=f"pi: {exc}")
            return
        self.footer_bar.set_working(False)
        # An answer streaming in a session is drawn as far as it got when the tab's bridge
        # subscribes (``RemoteSession.subscribe``), then grows with the stream.
        await self.attach_session(sessions[0])
        for session in sessions[1:]:
            await self.workspace.open(session)
        for entry in self.workspace.sessions:
            # A run already going on in the server: the tab and the footer say so from the start.
            if entry.session.is_streaming:
                entry.working, entry.working_since = True, time.monotonic()
        if len(sessions) > 1:
            await self.workspace.show(self.workspace.sessions[0])
        else:
            first = self.workspace.sessions[0]
            self.footer_bar.set_working(first.working, since=first.working_since)
        self.refresh_session_tabs()
        self.ready.set()


async def run_attached(socket: Path, attaching: Awaitable[list[RemoteSession]]) -> int:
    """Run the app on served sessions being attached until the user quits (on the running loop:
    the sessions' connection lives on it); returns the exit code.

    Quitting detaches: the runs go on in the server. The line printed afterwards says how to come back.
    """
    import gc
    import sys

    from .launch import _follow_the_terminals_size
    from .sessions.served import is_served

    app = AttachedApp(socket, [], attached=attaching)
    _follow_the_terminals_size()
    gc.freeze()  # as ``pi``: objects made at start stay out of every collection during long streams
    try:
        code = await app.run_async()
    finally:
        gc.unfreeze()
    # The served sessions still running there (not those it closed, nor a local tab's).
    handles = [entry.session.handle for entry in app.workspace.sessions
               if is_served(entry.session) and not entry.session.view.closed]
    # Only on a terminal: under a web driver stdout carries the driver's packets.
    if app.ended_by_signal is None and handles and sys.stdout.isatty():
        again = f"pi attach {handles[0]}" if len(handles) == 1 else "pi attach"
        sys.stdout.write(f"Detached: pi serve goes on running {'it' if len(handles) == 1 else 'them'} ({again})\n")
        sys.stdout.flush()
    return int(code or 0)
