"""``ServeServer``: the sessions of one folder, and the Unix socket their viewers connect to.

Runs are the server's, not a viewer's: a viewer that disconnects is only detached, and a session
ends when a client closes it (``close_session``), when one of its extensions asks to shut down,
or when the server stops (SIGTERM, SIGINT or SIGHUP: every session is aborted and closed, each
file stays valid).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from pathlib import Path
from typing import Any

from .. import __version__
from ..cli_args import CliArgs
from .connection import Connection
from .live import LiveSessions
from .protocol import PROTOCOL_VERSION


class ServeServer:
    """Args:
    folder: The folder whose sessions this server runs.
    base_args: The ``pi serve`` command line (flags every session is built with).
    listener: The bound, listening socket (``place.bind_socket``).
    socket_path: Its path (said in ``hello``; removed when the server stops).
    """

    def __init__(self, folder: str, base_args: CliArgs, listener: socket.socket, socket_path: Path) -> None:
        self.folder = folder
        self.socket_path = socket_path
        self._listener = listener
        self.sessions = LiveSessions(folder, base_args, self._close_soon)
        self._connections: set[asyncio.Task[None]] = set()
        self._closing: set[asyncio.Task[Any]] = set()

    def hello_data(self) -> dict[str, Any]:
        from ..paths import agent_dir

        return {"protocol": PROTOCOL_VERSION, "server": f"pi {__version__}", "folder": self.folder,
                "agentDir": str(agent_dir()), "pid": os.getpid(), "socket": str(self.socket_path)}

    def _close_soon(self, handle: str) -> None:
        """An extension asked its session to end (``ctx.shutdown()``): close it once idle."""

        async def close() -> None:
            live = self.sessions.by_handle.get(handle)
            if live is not None:
                await live.session.wait_for_idle()
                await self.sessions.close(handle, "extension asked to shut down")

        task = asyncio.ensure_future(close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            await Connection(self, reader, writer).serve()
        except asyncio.CancelledError:
            # The server is stopping (``run`` cancels its connections). Python 3.11's stream
            # server reads a cancelled handler's outcome with ``task.exception()``, which raises
            # and prints a traceback on the way out: end the handler normally instead.
            pass
        finally:
            if task is not None:
                self._connections.discard(task)

    async def run(self, stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set; then close every session and connection."""
        server = await asyncio.start_unix_server(self._on_connection, sock=self._listener, limit=1 << 16)
        try:
            await stop.wait()
        finally:
            server.close()
            await self.sessions.close_all()
            for task in list(self._connections):
                task.cancel()
            if self._connections:
                await asyncio.wait(set(self._connections), timeout=2)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.socket_path)
