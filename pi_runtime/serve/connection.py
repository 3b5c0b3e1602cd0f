"""One client connection to ``pi serve``: its lines in, its responses and its sessions' records out.

Framing is ``pi --mode rpc``'s (LF only, a trailing CR dropped, a line over the cap answered and
skipped). Every line gets one response, a malformed one included, and the connection goes on.
The first command must be ``hello``. Server commands (``hello``, ``list_sessions``, ``attach``,
``detach``) are answered in the order they arrive; session commands run as tasks, as in RPC mode,
so a long ``bash`` never holds up an ``abort``. Writes never block: a client that stops reading
is disconnected once too much waits for it, and reconnects with its cursor.

After ``attach`` with ``"rpc": true`` the connection is Pi's RPC protocol for that one session:
commands need no ``session`` field and records come exactly as ``pi --mode rpc`` writes them.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

from ..modes.rpc_commands import NO_DATA, CommandError
from ..modes.rpc_decode import DecodeError, decode_line
from ..modes.rpc_mode import MAX_IN_FLIGHT, SHUTDOWN_GRACE, LineSplitter, LineTooLong, max_line_bytes
from .protocol import MAX_PENDING_BYTES, PROTOCOL_VERSION, SERVER_COMMANDS, encode_record, response

if TYPE_CHECKING:
    from .live import LiveSession
    from .server import ServeServer


class _Viewer:
    """This connection as a viewer of one session."""

    def __init__(self, connection: Connection, rpc: bool) -> None:
        self.connection = connection
        self.rpc = rpc

    def deliver(self, data: bytes) -> None:
        self.connection.send_bytes(data)


class Connection:
    """A client of the server (see the module docstring)."""

    def __init__(self, server: ServeServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.greeted = False
        self.viewers: dict[str, _Viewer] = {}
        self.rpc_session: str | None = None
        """The session this connection speaks Pi's RPC for (``attach`` with ``rpc``), else None."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    # ------------------------------------------------------------------ writing

    def send_bytes(self, data: bytes) -> None:
        if self._closed:
            return
        self.writer.write(data)
        transport = self.writer.transport
        if transport.get_write_buffer_size() > MAX_PENDING_BYTES:
            print("pi serve: a viewer stopped reading; disconnected it (it can reconnect with its cursor)",
                  file=sys.stderr)
            self._drop_viewers()
            self._closed = True
            transport.abort()

    def send(self, record: dict[str, Any]) -> None:
        """Write a response; one that cannot be encoded becomes an error response that can."""
        if self.rpc_session is not None and record.get("session") == self.rpc_session:
            record.pop("session", None)  # Pi's shape
        try:
            data = encode_record(record)
        except (ValueError, TypeError, RecursionError) as exc:
            safe_id = record.get("id") if isinstance(record.get("id"), str | int | float | bool) else None
            data = encode_record(response(str(record.get("command", "parse")), safe_id,
                                   error=f"The response could not be encoded: {type(exc).__name__}: {exc}"))
        self.send_bytes(data)

    # ------------------------------------------------------------------ reading

    async def serve(self) -> None:
        """Read commands until the client closes; its viewers are then detached (runs go on)."""
        splitter = LineSplitter(max_line_bytes())
        try:
            while not self._closed:
                try:
                    chunk = await self.reader.read(1 << 16)
                except (ConnectionError, OSError):
                    break
                if not chunk:
                    rest = splitter.rest()
                    if rest is not None:
                        await self._line(rest)
                    break
                for line in splitter.feed(chunk):
                    if isinstance(line, LineTooLong):
                        self.send(response("parse", None, error=line.error()))
                    elif line.strip():
                        await self._line(line)
        finally:
            await self._wind_down()

    async def _line(self, line: bytes) -> None:
        try:
            cmd = decode_line(line.decode("utf-8"))
        except (UnicodeDecodeError, DecodeError) as exc:
            self.send(response("parse", None, error=f"Failed to parse command: {exc}"))
            return
        if not isinstance(cmd, dict) or not isinstance(cmd.get("type"), str):
            self.send(response("parse", None, error="Failed to parse command: expected an object with a 'type'"))
            return
        name, cmd_id = cmd["type"], cmd.get("id")
        if name == "hello":
            self._hello(cmd)
            return
        if not self.greeted:
            self.send(response(name, cmd_id, error=f'Say hello first: {{"type": "hello", "protocol": {PROTOCOL_VERSION}}}'))
            return
        if name == "extension_ui_response":
            live = self._session_of(cmd)
            if live is not None:
                live.hub.ui.resolve(cmd)  # answers a dialog; no response record, as in Pi's RPC
            return
        if name == "extension_ui_component":
            live = self._session_of(cmd)
            if live is not None:
                live.hub.ui.component_input(cmd)  # a width or a key, as often as keys are typed: no response
            return
        if name in SERVER_COMMANDS:
            self._server_command(name, cmd)
            return
        live = self._session_of(cmd)
        if live is None:
            self.send(response(name, cmd_id, error=self._no_session(cmd)))
            return
        while len(self._tasks) >= MAX_IN_FLIGHT:
            await asyncio.wait(self._tasks, return_when=asyncio.FIRST_COMPLETED)
        self._spawn(self._session_command(live, cmd))

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _session_of(self, cmd: dict[str, Any]) -> LiveSession | None:
        ref = cmd.get("session", self.rpc_session)
        return self.server.sessions.find(ref)

    def _no_session(self, cmd: dict[str, Any]) -> str:
        ref = cmd.get("session")
        if ref is None:
            return "Which session? Give 'session' (list_sessions names them)"
        return f"No live session {ref!r} (list_sessions names them)"

    # ------------------------------------------------------------------ commands

    def _hello(self, cmd: dict[str, Any]) -> None:
        wanted = cmd.get("protocol", PROTOCOL_VERSION)
        versions = wanted if isinstance(wanted, list) else [wanted]
        if PROTOCOL_VERSION not in versions:
            self.send(response("hello", cmd.get("id"), error=(
                f"pi serve speaks protocol {PROTOCOL_VERSION}; this client asked for {wanted!r}")))
            return
        self.greeted = True
        self.send(response("hello", cmd.get("id"), data=self.server.hello_data()))

    def _server_command(self, name: str, cmd: dict[str, Any]) -> None:
        cmd_id = cmd.get("id")
        sessions = self.server.sessions
        if name == "list_sessions":
            self.send(response(name, cmd_id, data={"sessions": [live.summary() for live in sessions.by_handle.values()]}))
        elif name == "open_session":
            self._spawn(self._open_session(cmd))
        elif name == "close_session":
            self._spawn(self._close_session(cmd))
        elif name == "attach":
            self._attach(cmd)
        elif name == "detach":
            live = sessions.find(cmd.get("session"))
            viewer = self.viewers.pop(live.handle, None) if live is not None else None
            if live is None or viewer is None:
                self.send(response(name, cmd_id, error="Not attached to that session"))
                return
            live.hub.detach(viewer)
            if self.rpc_session == live.handle:
                self.rpc_session = None
            self.send(response(name, cmd_id, has_data=False, session=live.handle))

    def _attach(self, cmd: dict[str, Any]) -> None:
        cmd_id, cursor, rpc = cmd.get("id"), cmd.get("cursor"), cmd.get("rpc") is True
        live = self.server.sessions.find(cmd.get("session"))
        if live is None:
            self.send(response("attach", cmd_id, error=self._no_session(cmd)))
            return
        if cursor is not None and (not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 0):
            self.send(response("attach", cmd_id, error="'cursor' must be a whole number (the last one received)"))
            return
        if rpc and (self.viewers or self.rpc_session is not None):
            self.send(response("attach", cmd_id, error="An rpc connection holds one session; open another connection"))
            return
        old = self.viewers.pop(live.handle, None)
        if old is not None:
            live.hub.detach(old)
        viewer = _Viewer(self, rpc)
        # From here to the last replayed record nothing yields: no live record can slip in between.
        data, replay = live.hub.attach(viewer, cursor)
        self.viewers[live.handle] = viewer
        self.send(response("attach", cmd_id, data=data, session=live.handle))
        if rpc:
            self.rpc_session = live.handle
        for record in replay:
            self.send_bytes(record)

    async def _open_session(self, cmd: dict[str, Any]) -> None:
        from ..modes.startup import user_errors

        cmd_id = cmd.get("id")
        path, name = cmd.get("sessionPath"), cmd.get("name")
        if (path is not None and not isinstance(path, str)) or (name is not None and not isinstance(name, str)):
            self.send(response("open_session", cmd_id, error="'sessionPath' and 'name' must be strings"))
            return
        sessions = self.server.sessions
        beside = cmd.get("beside")
        editor_text = ""
        try:
            if beside is not None:
                # A session built beside another one (the app's /open new|fork|clone in a tab).
                source = sessions.find(beside)
                if source is None:
                    self.send(response("open_session", cmd_id, error=self._no_session({"session": beside})))
                    return
                entry_id = cmd.get("entryId")
                live, editor_text = await sessions.open_beside(source, str(cmd.get("kind") or "new"),
                                                               entry_id if isinstance(entry_id, str) else None)
            else:
                live = await sessions.open(session_path=path, continue_recent=cmd.get("continue") is True, name=name)
        except user_errors() + (KeyError, ValueError) as exc:
            self.send(response("open_session", cmd_id, error=exc))
            return
        data = live.summary()
        if editor_text:
            data["editorText"] = editor_text
        self.send(response("open_session", cmd_id, data=data, session=live.handle))

    async def _close_session(self, cmd: dict[str, Any]) -> None:
        live = self.server.sessions.find(cmd.get("session"))
        if live is None:
            self.send(response("close_session", cmd.get("id"), error=self._no_session(cmd)))
            return
        await self.server.sessions.close(live.handle)
        self.send(response("close_session", cmd.get("id"), has_data=False, session=live.handle))

    async def _session_command(self, live: LiveSession, cmd: dict[str, Any]) -> None:
        from .commands import run_session_command

        name, cmd_id = cmd["type"], cmd.get("id")
        try:
            data = await run_session_command(live, cmd)
        except asyncio.CancelledError:
            self.send(response(name, cmd_id, error="Cancelled: pi serve is shutting down", session=live.handle))
            raise
        except CommandError as exc:
            self.send(response(name, cmd_id, error=str(exc), session=live.handle))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a response
            self.send(response(name, cmd_id, error=exc, session=live.handle))
        else:
            self.send(response(name, cmd_id, data=data, has_data=data is not NO_DATA, session=live.handle))
        finally:
            live.hub.checkpoint()

    # ------------------------------------------------------------------ closing

    def _drop_viewers(self) -> None:
        for handle, viewer in self.viewers.items():
            live = self.server.sessions.by_handle.get(handle)
            if live is not None:
                live.hub.detach(viewer)
        self.viewers.clear()

    async def _wind_down(self) -> None:
        """The client left: stop sending it records; commands it sent get a moment to answer."""
        self._drop_viewers()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=SHUTDOWN_GRACE)
        self._closed = True
        self.writer.close()
