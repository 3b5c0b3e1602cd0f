"""``pi --mode rpc``: JSONL commands on stdin, responses and events on stdout.

Framing is LF only: stdin is read as bytes and split on ``b"\\n"`` (one trailing ``\\r`` is
dropped), so U+2028/U+2029 inside JSON strings are never separators. Each command runs in
its own task, so a long ``prompt`` acceptance or ``bash`` never holds up ``abort`` or
``get_state``; responses echo the command's ``id``. Stdout goes through ``JsonlWriter``,
which blocks instead of dropping when the client reads slowly.

Shutdown: end of stdin or a signal aborts the run, lets in-flight commands finish briefly,
flushes stdout and closes the session (its file stays valid: every entry is a whole line).
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
from typing import Any

from .json_mode import event_listener
from .rpc_commands import CLIENT_UI, COMMANDS, NO_DATA
from .rpc_decode import DecodeError, decode_line
from .shutdown import Shutdown
from .writer import JsonlWriter

SHUTDOWN_GRACE = 2.0
"""Seconds in-flight commands get to finish once shutdown has started."""


MAX_LINE_BYTES = 128 * 1024 * 1024
"""Longest command line accepted (``PI_RPC_MAX_LINE_BYTES`` overrides it).

Pi sets no limit; without one, ``pi --mode rpc </dev/zero`` grew by 400 MB a second. The
cap leaves room for a prompt carrying several large base64 images."""


MAX_IN_FLIGHT = 1024
"""Commands read but not yet answered; past this the reader waits (and the client's writes
block), so a client that sends without reading the answers cannot grow pi without bound."""


class LineTooLong:
    """Stands in the line queue for a line over the cap (its bytes were dropped)."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def error(self) -> str:
        return (f"Failed to parse command: the line is longer than {self.limit:,} bytes; "
                "it was discarded up to its end")


def max_line_bytes() -> int:
    """The line cap: ``PI_RPC_MAX_LINE_BYTES`` when it is a positive integer, else the default."""
    raw = os.environ.get("PI_RPC_MAX_LINE_BYTES", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_LINE_BYTES


class LineSplitter:
    """LF framing in linear time: a long line is kept as chunks and joined once, at its LF.

    (Appending each chunk to one growing buffer and splitting it again copies the line once
    per chunk: a 50 MB line took 20 s.) A line that grows past ``limit`` bytes yields one
    :class:`LineTooLong` at once (so the client hears about it before the line ends, if ever)
    and the rest of it is dropped as it arrives, up to the next LF: memory stays bounded.
    """

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self._limit = limit
        self._discarding = False

    def feed(self, chunk: bytes) -> list[bytes | LineTooLong]:
        """The lines completed by ``chunk`` (without LF, one trailing CR dropped)."""
        lines: list[bytes | LineTooLong] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if self._discarding:
                self._discarding = False  # the LF ends the line being dropped
            elif self._size + end - start > self._limit:
                lines.append(LineTooLong(self._limit))
                self._drop()
            else:
                piece = chunk[start:end]
                if self._parts:
                    self._parts.append(piece)
                    piece = b"".join(self._parts)
                    self._drop()
                lines.append(piece[:-1] if piece.endswith(b"\r") else piece)
            start = end + 1
        if start < len(chunk) and not self._discarding:
            self._parts.append(chunk[start:])
            self._size += len(chunk) - start
            if self._size > self._limit:
                lines.append(LineTooLong(self._limit))
                self._drop()
                self._discarding = True
        return lines

    def _drop(self) -> None:
        self._parts = []
        self._size = 0

    def rest(self) -> bytes | None:
        """What is left after the last LF (a last line without one), or None."""
        rest = b"".join(self._parts)
        self._drop()
        return rest or None


def start_stdin_reader(
    loop: asyncio.AbstractEventLoop, fd: int = 0, slots: threading.Semaphore | None = None,
) -> asyncio.Queue[bytes | LineTooLong | None]:
    """Read ``fd`` in a thread and queue one ``bytes`` per LF-terminated line; None at EOF.

    Each queued line takes one of ``slots`` (the consumer gives it back once the line is
    answered): when none is left the thread stops reading until one is.
    """
    queue: asyncio.Queue[bytes | LineTooLong | None] = asyncio.Queue()

    def put(item: bytes | LineTooLong | None) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # loop already closed
            pass

    def run() -> None:
        splitter = LineSplitter(max_line_bytes())
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                rest = splitter.rest()
                if rest is not None:
                    put(rest)
                put(None)
                return
            for line in splitter.feed(chunk):
                if slots is not None and isinstance(line, bytes):
                    slots.acquire()
                put(line)

    threading.Thread(target=run, name="pi-stdin", daemon=True).start()
    return queue


def response(command: str, cmd_id: Any, *, data: Any = NO_DATA, error: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(cmd_id, float) and not math.isfinite(cmd_id):
        cmd_id = None  # a huge number: JSON has no Infinity (JavaScript writes null)
    if cmd_id is not None:
        out["id"] = cmd_id
    out.update({"type": "response", "command": command, "success": error is None})
    if error is not None:
        out["error"] = error
    elif data is not NO_DATA:
        # Commands return typed results; the wire shape is made here, at the edge.
        out["data"] = data.to_wire() if hasattr(data, "to_wire") else data
    return out


async def _send(writer: JsonlWriter, record: dict[str, Any]) -> None:
    """Write a response; one that cannot be encoded becomes an error response that can."""
    try:
        await writer.send(record)
        return
    except (ValueError, TypeError, RecursionError) as exc:
        problem = f"The response could not be encoded: {type(exc).__name__}: {exc}"
    cmd_id = record.get("id")
    safe_id = cmd_id if isinstance(cmd_id, str | int | float | bool) else None
    try:
        await writer.send(response(str(record.get("command", "parse")), safe_id, error=problem))
    except (ValueError, TypeError, RecursionError):
        await writer.send(response("parse", None, error=problem))


async def handle_line(session: Any, writer: JsonlWriter, line: bytes, ui: Any = None) -> None:
    """Parse one record, run its command, write the response: every line gets one."""
    try:
        await _handle_line(session, writer, line, ui)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - the client must never wait for an answer that is not coming
        await _send(writer, response("parse", None, error=f"Failed to handle command: {type(exc).__name__}: {exc}"))


async def _handle_line(session: Any, writer: JsonlWriter, line: bytes, ui: Any) -> None:
    try:
        cmd = decode_line(line.decode("utf-8"))
    except (UnicodeDecodeError, DecodeError) as exc:
        await _send(writer, response("parse", None, error=f"Failed to parse command: {exc}"))
        return
    if not isinstance(cmd, dict) or not isinstance(cmd.get("type"), str):
        await _send(writer, response("parse", None, error="Failed to parse command: expected an object with a 'type'"))
        return
    name, cmd_id = cmd["type"], cmd.get("id")
    if name == "extension_ui_response":
        # Answers a dialog an extension opened; it gets no response record of its own.
        if ui is not None:
            ui.resolve(cmd)
        return
    handler = COMMANDS.get(name)
    if handler is None:
        await _send(writer, response(name, cmd_id, error=f"Unknown command: {name}"))
        return
    CLIENT_UI.set(ui)  # this command's task only (each line runs in a task of its own)
    try:
        data = await handler(session, cmd)
    except asyncio.CancelledError:
        await _send(writer, response(name, cmd_id, error="Cancelled: pi is shutting down"))
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes a response
        message = (exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)) or type(exc).__name__
        await _send(writer, response(name, cmd_id, error=str(message)))
        return
    await _send(writer, response(name, cmd_id, data=data))


async def run_rpc(session: Any, writer: JsonlWriter, shutdown: Shutdown, stdin_fd: int = 0) -> int:
    """Serve commands until stdin ends or ``shutdown`` is requested.

    Returns:
        The exit status: 0 after end of stdin, ``128 + signal`` after a signal.
    """
    loop = asyncio.get_running_loop()
    slots = threading.Semaphore(MAX_IN_FLIGHT)
    lines = start_stdin_reader(loop, stdin_fd, slots)
    unsubscribe = session.subscribe(event_listener(writer))
    from .rpc_ui import RpcExtensionUI

    ui = RpcExtensionUI(writer)
    runner = getattr(session, "extension_runner", None)
    if runner is not None:
        runner.set_ui(ui, "rpc")
        await runner.start()
    tasks: set[asyncio.Task[None]] = set()
    stop = asyncio.ensure_future(shutdown.event.wait())
    try:
        while True:
            get = asyncio.ensure_future(lines.get())
            done, _ = await asyncio.wait({get, stop}, return_when=asyncio.FIRST_COMPLETED)
            if stop in done:
                get.cancel()
                break
            line = get.result()
            if line is None:
                shutdown.request(0)
                break
            if isinstance(line, LineTooLong):
                await _send(writer, response("parse", None, error=line.error()))
                continue
            if not line.strip():
                slots.release()
                continue
            task = asyncio.ensure_future(handle_line(session, writer, line, ui))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            task.add_done_callback(lambda _task: slots.release())
    finally:
        stop.cancel()
        ui.cancel_all()
        await _wind_down(session, tasks)
        unsubscribe()
        await writer.flush()
    return shutdown.code


async def _wind_down(session: Any, tasks: set[asyncio.Task[None]]) -> None:
    # Commands already sent (a ``bash``, an ``abort``) get a moment to answer first.
    if tasks:
        await asyncio.wait(set(tasks), timeout=SHUTDOWN_GRACE)
    session.abort_bash()
    try:
        await asyncio.wait_for(session.abort(), SHUTDOWN_GRACE)
    except (TimeoutError, Exception):  # noqa: BLE001 - shutting down regardless
        pass
    pending = [t for t in tasks if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=0.5)
