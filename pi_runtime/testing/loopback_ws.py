"""WebSocket for the loopback server: a GET with ``Upgrade: websocket`` is answered on the same port.

The framing is the ``websockets`` library's own (its sans-I/O server protocol, permessage-deflate
offered as real servers do), so a client meets a conforming peer. Scripting:

- the handshake takes the next reply: ``Reply.upgrade()`` (status 101) accepts it; any other
  status refuses it with that status and body (a client then falls back, or fails);
- each message the client sends is recorded as a ``RecordedRequest`` with method ``WS`` (the
  handshake's path and headers, the message as the body) and answered by the next reply:
  ``Reply.ws([...])`` sends each piece as a text frame (pauses and gates as for HTTP), then
  closes with ``ws_close`` if set, cuts the connection with ``drop``, or stalls with ``stall``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .loopback import RecordedRequest, Reply


def _raw_head(request: RecordedRequest) -> bytes:
    lines = [f"{request.method} {request.path} HTTP/1.1", *(f"{k}: {v}" for k, v in request.headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _flush(writer: asyncio.StreamWriter, protocol: object) -> None:
    for data in protocol.data_to_send():  # type: ignore[attr-defined]
        if data:
            writer.write(data)
    await writer.drain()


async def _play(writer: asyncio.StreamWriter, protocol: object, reply: Reply) -> bool:
    """Send ``reply`` as frames; False when the connection is over."""
    for piece in reply.pieces:
        if isinstance(piece, threading.Event):
            while not piece.is_set():  # noqa: ASYNC110 - a threading.Event set from the test's thread
                await asyncio.sleep(0.01)
            continue
        if isinstance(piece, (int, float)):
            await asyncio.sleep(piece)
            continue
        protocol.send_text(piece)  # type: ignore[attr-defined]
        await _flush(writer, protocol)
    if reply.stall:
        await asyncio.Event().wait()  # until the client leaves or the server stops
    if reply.drop:
        writer.transport.abort()
        return False
    if reply.ws_close is not None:
        protocol.send_close(*reply.ws_close)  # type: ignore[attr-defined]
        await _flush(writer, protocol)
        return False
    return True


async def serve_websocket(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    handshake: RecordedRequest,
    reply: Reply,
    next_reply: Callable[[RecordedRequest], Reply],
) -> None:
    """Answer an upgrade request with ``reply`` and, once accepted, serve its messages."""
    from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
    from websockets.frames import Frame, Opcode
    from websockets.http11 import Request
    from websockets.server import ServerProtocol

    from .loopback import RecordedRequest

    protocol = ServerProtocol(extensions=[ServerPerMessageDeflateFactory()], max_size=None)
    protocol.receive_data(_raw_head(handshake))
    request = next(e for e in protocol.events_received() if isinstance(e, Request))
    if reply.status != 101:
        body = b"".join(p for p in reply.pieces if isinstance(p, bytes)).decode("utf-8", "replace")
        response = protocol.reject(reply.status, body)
    else:
        response = protocol.accept(request)
    protocol.send_response(response)
    await _flush(writer, protocol)
    if reply.status != 101:
        return
    parts: list[bytes] = []
    while True:
        data = await reader.read(1 << 16)
        if not data:
            protocol.receive_eof()
            return
        protocol.receive_data(data)
        for frame in protocol.events_received():
            if not isinstance(frame, Frame):
                continue
            if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                parts.append(bytes(frame.data))
                if not frame.fin:
                    continue
                message = RecordedRequest("WS", handshake.path, dict(handshake.headers), b"".join(parts), handshake.host)
                parts = []
                if not await _play(writer, protocol, next_reply(message)):
                    return
            elif frame.opcode is Opcode.CLOSE:
                await _flush(writer, protocol)  # the protocol's answer to the close
                return
        await _flush(writer, protocol)  # pongs
