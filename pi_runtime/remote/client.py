"""``ServeClient``: one connection to a ``pi serve`` (asyncio), shared by the sessions it attaches.

It says ``hello``, sends commands with ids and awaits their responses (a failure raises the
kernel's error type, see ``errors``), and routes each session's records, in order, to the
:class:`~pi_runtime.remote.session.RemoteSession` that attached it. Records that arrive between an
``attach`` answer and the moment its session object exists are held, so none is lost.

Example:
    client = await ServeClient.connect(folder="/path/to/project")
    for row in await client.list_sessions():
        print(row["session"], row["status"])
    session = await client.attach(handle)      # a SessionPort
    session.subscribe(print)
    await session.prompt("Hello")
"""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..modes.rpc_mode import LineSplitter, LineTooLong
from ..serve.protocol import PROTOCOL_VERSION, decode_record, encode_record
from .errors import ConnectionLost, RemoteError, error_from_response

if TYPE_CHECKING:
    from .session import RemoteSession

READ_LIMIT = 1 << 16


def default_socket(folder: str | os.PathLike[str] | None = None) -> Path:
    """Where the server of ``folder`` (default: the current folder) listens, with this agent dir."""
    from ..paths import agent_dir
    from ..serve.place import socket_path

    return socket_path(os.path.abspath(folder or os.getcwd()), agent_dir())


class NoServer(Exception):
    """Nothing listens where the folder's server would be."""


class ServeClient:
    """A connection to ``pi serve`` (use :meth:`connect`)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: Path) -> None:
        self.path = path
        self.server: dict[str, Any] = {}
        """The server's ``hello`` data (protocol, version, folder, pid, socket)."""
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._sessions: dict[str, RemoteSession] = {}
        self._held: dict[str, list[dict[str, Any]]] = {}
        self._read_task = asyncio.ensure_future(self._read())
        self.closed = asyncio.Event()

    @classmethod
    async def connect(cls, path: str | os.PathLike[str] | None = None, *, folder: str | None = None,
                      client: str = "pi") -> ServeClient:
        """Connect and say hello.

        Args:
            path: The server's socket; by default the one of ``folder`` (default: the current folder).
            folder: Whose server to find when ``path`` is not given.
            client: What this client calls itself in ``hello``.

        Raises:
            NoServer: Nothing listens there.
            RemoteError: The server does not speak this client's protocol.
        """
        where = Path(path) if path is not None else default_socket(folder)
        try:
            reader, writer = await asyncio.open_unix_connection(os.fspath(where), limit=READ_LIMIT)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise NoServer(f"no pi serve listens at {where} (start one with `pi serve`)") from exc
        self = cls(reader, writer, where)
        try:
            self.server = await self.request({"type": "hello", "protocol": PROTOCOL_VERSION, "client": client})
        except BaseException:
            await self.close()
            raise
        return self

    # ------------------------------------------------------------------ commands

    async def request(self, command: dict[str, Any]) -> Any:
        """Send ``command`` (an ``id`` is added unless it has one) and return its response's ``data`` (None without).

        Raises:
            RemoteError: Or the kernel's error type the server named (``PromptError`` ...).
            ConnectionLost: The connection closed first.
        """
        record = await self.request_record(command)
        if not record.get("success"):
            raise error_from_response(record)
        return record.get("data")

    async def request_record(self, command: dict[str, Any]) -> dict[str, Any]:
        """Like :meth:`request`, but the whole response record, whether it succeeded or not."""
        if self.closed.is_set():
            raise ConnectionLost(str(command.get("type")))
        given = command.get("id")
        cmd_id = given if isinstance(given, str) and given not in self._waiting else f"c{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[cmd_id] = future
        self._writer.write(encode_record({**command, "id": cmd_id}))
        try:
            return await future
        finally:
            self._waiting.pop(cmd_id, None)

    def send_nowait(self, command: dict[str, Any]) -> None:
        """Send a record that gets no response (``extension_ui_response``)."""
        if not self.closed.is_set():
            self._writer.write(encode_record(command))

    async def list_sessions(self) -> list[dict[str, Any]]:
        """The server's live sessions (``session``, ``status``, ``lastAnswer``, ``name``...)."""
        data = await self.request({"type": "list_sessions"})
        return list(data["sessions"])

    async def open_session(self, *, session_path: str | None = None, continue_recent: bool = False,
                           name: str | None = None) -> dict[str, Any]:
        """Open a session on the server (new, a file, or the folder's most recent); its listing row."""
        command: dict[str, Any] = {"type": "open_session", "continue": continue_recent}
        if session_path is not None:
            command["sessionPath"] = session_path
        if name is not None:
            command["name"] = name
        return dict(await self.request(command))

    async def open_beside(self, handle: str, kind: str, entry_id: str | None = None) -> dict[str, Any]:
        """Open a session beside ``handle``'s on the server: ``new``, ``fork`` (before the user message
        ``entry_id``) or ``clone``; its listing row, with ``editorText`` for a fork."""
        command: dict[str, Any] = {"type": "open_session", "beside": handle, "kind": kind}
        if entry_id is not None:
            command["entryId"] = entry_id
        return dict(await self.request(command))

    async def close_session(self, handle: str) -> None:
        """End a session on the server (its run is aborted)."""
        await self.request({"type": "close_session", "session": handle})

    async def attach(self, handle: str, *, cursor: int | None = None) -> RemoteSession:
        """Attach a session: a ``RemoteSession`` that holds its state and receives its events.

        Raises:
            RemoteError: No such session.
        """
        from .session import RemoteSession

        data = await self._attach_data(handle, cursor)
        session = RemoteSession(self, data)
        self._adopt(session)
        return session

    async def _attach_data(self, handle: str, cursor: int | None) -> dict[str, Any]:
        command: dict[str, Any] = {"type": "attach", "session": handle}
        if cursor is not None:
            command["cursor"] = cursor
        self._held.setdefault(handle, [])
        try:
            data = await self.request(command)
        except BaseException:
            self._held.pop(handle, None)
            raise
        return dict(data)

    def _adopt(self, session: RemoteSession) -> None:
        """Route ``session``'s records to it, starting with those held since its attach answer."""
        self._sessions[session.handle] = session
        for record in self._held.pop(session.handle, []):
            session.receive(record)

    async def reattach(self, session: RemoteSession) -> dict[str, Any]:
        """Attach ``session`` again on this connection from its cursor (after a reconnect)."""
        data = await self._attach_data(session.handle, session.cursor)
        self._sessions[session.handle] = session
        session.resume_from(data)
        for record in self._held.pop(session.handle, []):
            session.receive(record)
        return data

    async def detach(self, handle: str) -> None:
        self._sessions.pop(handle, None)
        if not self.closed.is_set():
            try:
                await self.request({"type": "detach", "session": handle})
            except RemoteError:
                pass

    # ------------------------------------------------------------------ reading

    async def _read(self) -> None:
        splitter = LineSplitter(256 << 20)
        try:
            while True:
                chunk = await self._reader.read(READ_LIMIT)
                if not chunk:
                    break
                for line in splitter.feed(chunk):
                    if isinstance(line, LineTooLong) or not line:
                        continue
                    try:
                        record = decode_record(line)
                    except ValueError:
                        continue  # not JSON: nothing this client can act on
                    if isinstance(record, dict):
                        self._dispatch(record)
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed.set()
            for cmd_id, future in list(self._waiting.items()):
                if not future.done():
                    future.set_exception(ConnectionLost(cmd_id))
            for session in list(self._sessions.values()):
                session.connection_lost()

    def _dispatch(self, record: dict[str, Any]) -> None:
        if record.get("type") == "response" and isinstance(record.get("id"), str):
            future = self._waiting.get(record["id"])
            if future is not None and not future.done():
                future.set_result(record)
            return
        handle = record.get("session")
        session = self._sessions.get(handle) if isinstance(handle, str) else None
        if session is not None:
            session.receive(record)
        elif isinstance(handle, str) and handle in self._held:
            self._held[handle].append(record)

    async def close(self) -> None:
        """Close the connection (attached runs go on on the server)."""
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, OSError):
            pass
        self._read_task.cancel()
        try:
            await self._read_task
        except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing anyway
            pass
