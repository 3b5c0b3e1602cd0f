"""A loopback server that writes exactly the bytes a test scripts, for malformed-HTTP cases (tests).

Each request (read by its content-length) is answered with the next script: a list of
bytes to write, pauses (float seconds), ``CLOSE`` (close the connection), ``RESET`` (close
with a TCP reset) or a callable ``(reader, writer) -> awaitable`` for replies too big to hold.
After a script the connection stays open for the next request, as a keep-alive server's.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Awaitable, Callable
from typing import Any

CLOSE = "close"
RESET = "reset"
Script = list[Any]


class RawServer:
    def __init__(self, *scripts: Script, tls: Any = None) -> None:
        self.scripts = list(scripts)
        self.requests: list[bytes] = []
        self.connections = 0
        self.tls = tls

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, ssl=self.tls)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.scripts:
                head = await reader.readuntil(b"\r\n\r\n")
                lengths = [line.split(b":", 1)[1] for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")]
                body = await reader.readexactly(int(lengths[0])) if lengths else b""
                self.requests.append(head + body)
                if await self.play(self.scripts.pop(0), reader, writer):
                    return
            await reader.read()  # hold the connection until the client lets go
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:
            pass  # the test ended mid-script; asyncio would log a cancelled handler as an error
        finally:
            writer.close()

    @staticmethod
    async def play(script: Script, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Send one scripted reply; True when the connection was closed."""
        for piece in script:
            if piece == CLOSE:
                await writer.drain()
                writer.close()
                return True
            if piece == RESET:
                await writer.drain()
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return True
            if isinstance(piece, float):
                await writer.drain()
                await asyncio.sleep(piece)
            elif callable(piece):
                send: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]] = piece
                await send(reader, writer)
            else:
                writer.write(piece)
        await writer.drain()
        return False
