"""A streamable-HTTP MCP server on 127.0.0.1 that misbehaves on purpose, for pi and the real Pi.

It speaks just enough of the protocol by hand (initialize, tools/list, tools/call) for a client to
reach its tools, each of which answers badly:

- ``not_json``: ``Content-Type: application/json`` with a body that is not JSON;
- ``flood``: an event stream of ``FLOOD`` progress notifications, then the result;
- ``big``: a result of ``BIG`` characters (more than a client keeps in memory).

Runs its own event loop in a daemon thread, like ``LoopbackServer``; ``url`` is the endpoint.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

FLOOD = 100_000
BIG = 60_000
TOOLS = [{"name": name, "description": f"answers {name}", "inputSchema": {"type": "object"}}
         for name in ("not_json", "flood", "big")]


class HostileHttpMcp:
    """The server; use as a context manager."""

    def __init__(self) -> None:
        self.port = 0
        self.calls: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def __enter__(self) -> HostileHttpMcp:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method = lines[0].split(" ", 1)[0]
                headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if method != "POST":
                    await self._send(writer, 405, "text/plain", b"")
                    continue
                await self._answer(writer, json.loads(body))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, kind: str, body: bytes) -> None:
        head = (f"HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {len(body)}\r\n"
                "mcp-session-id: hostile-1\r\n\r\n")
        writer.write(head.encode() + body)
        await writer.drain()

    async def _answer(self, writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            await self._send(writer, 202, "text/plain", b"")
            return

        def result(value: Any) -> bytes:
            return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": value}).encode()

        if method == "initialize":
            info = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile-http", "version": "1"}}
            await self._send(writer, 200, "application/json", result(info))
        elif method == "tools/list":
            await self._send(writer, 200, "application/json", result({"tools": TOOLS}))
        elif method == "tools/call":
            name = message["params"]["name"]
            self.calls.append(name)
            if name == "not_json":
                await self._send(writer, 200, "application/json", b"<html>Gateway says hello</html>")
            elif name == "flood":
                await self._flood(writer, message, result)
            else:
                await self._send(writer, 200, "application/json",
                                 result({"content": [{"type": "text", "text": "y" * BIG}]}))
        else:
            await self._send(writer, 200, "application/json",
                             json.dumps({"jsonrpc": "2.0", "id": request_id,
                                         "error": {"code": -32601, "message": "no such method"}}).encode())

    @staticmethod
    async def _flood(writer: asyncio.StreamWriter, message: dict[str, Any], result: Any) -> None:
        token = ((message["params"].get("_meta") or {}).get("progressToken")) or message["id"]
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nmcp-session-id: hostile-1\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        batch: list[bytes] = []
        for i in range(FLOOD):
            note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": i}}
            batch.append(b"event: message\ndata: " + json.dumps(note).encode() + b"\n\n")
            if len(batch) == 1000:
                data = b"".join(batch)
                writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                batch = []
                await writer.drain()
        final = b"event: message\ndata: " + result({"content": [{"type": "text", "text": "flooded"}]}) + b"\n\n"
        writer.write(f"{len(final):x}\r\n".encode() + final + b"\r\n0\r\n\r\n")
        await writer.drain()
