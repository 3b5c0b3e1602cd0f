"""A real HTTP/1.1 server on 127.0.0.1 that replays scripted streaming replies.

Used by the provider tests, the end-to-end tests (a ``pi`` subprocess talks to it) and the
benchmarks. It runs its own event loop in a daemon thread, so it serves sync code, async
tests and other processes alike. Replies are sent with chunked transfer encoding, one
chunk per scripted piece, so the client sees the framing exactly as a provider sends it;
a reply can pause, drop the connection mid-stream or stall until the client gives up. A GET with
``Upgrade: websocket`` is answered on the same port (``loopback_ws``: ``Reply.upgrade()`` then one
``Reply.ws([...])`` per message the client sends), and a zstd request body is read decoded.
Replies are SSE (``Reply.sse``), JSON, raw bytes, or the AWS event-stream binary framing
Bedrock streams in (``Reply.event_stream`` with ``bedrock_event`` / ``bedrock_exception`` frames).

Example:
    with LoopbackServer() as server:
        server.push(Reply.sse([{"choices": [...]}, "[DONE]"]))
        ... point a model's baseUrl at server.url ...
        assert server.requests[0].json()["model"] == "gpt-x"
"""

from __future__ import annotations

import asyncio
import json
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import field
from typing import Any

from ..records import record

Piece = bytes | float | threading.Event
"""Bytes to send as one chunk, a pause in seconds, or a gate: the reply waits there until the
test sets the event (a stream that goes on exactly when the test says, no fixed sleep)."""


def sse_bytes(data: Any, event: str | None = None) -> bytes:
    """One SSE event: ``data`` as JSON (or verbatim if it is a str), optional ``event:`` line."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def event_stream_frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message of the AWS event-stream binary framing (what Bedrock's ConverseStream sends).

    Layout: total length and headers length (4 bytes each, big-endian), a CRC32 of those 8
    bytes, the headers (name length byte, name, type 7 = string, 2-byte value length, value),
    the payload, and a CRC32 of everything before it. Only string headers are written: the
    ones Bedrock sends (``:event-type``, ``:message-type``, ``:content-type``,
    ``:exception-type``) are all strings.
    """
    encoded = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        encoded += struct.pack(">B", len(raw_name)) + raw_name + struct.pack(">BH", 7, len(raw_value)) + raw_value
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack(">I", zlib.crc32(message))


def bedrock_event(event_type: str, body: Any) -> bytes:
    """A Bedrock ConverseStream event frame: ``:event-type`` plus a JSON payload."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return event_stream_frame(headers, json.dumps(body, separators=(",", ":")).encode())


def bedrock_exception(exception_type: str, message: str) -> bytes:
    """A modeled exception sent inside the stream (``:message-type`` exception)."""
    headers = {":exception-type": exception_type, ":content-type": "application/json", ":message-type": "exception"}
    return event_stream_frame(headers, json.dumps({"message": message}).encode())


@record
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    pieces: list[Piece] = field(default_factory=list)
    drop: bool = False
    """Close the connection after the pieces without ending the body (a cut stream)."""
    stall: bool = False
    """After the pieces, send nothing more until the client disconnects or the server stops."""
    ws_close: tuple[int, str] | None = None
    """WebSocket replies: close the connection with this code and reason after the pieces."""

    @classmethod
    def sse(
        cls,
        events: list[Any],
        *,
        event_names: list[str | None] | None = None,
        delay: float = 0.0,
        gate_at: int | None = None,
        gate: threading.Event | None = None,
        **kwargs: Any,
    ) -> Reply:
        """An SSE reply, one chunk per event (``delay`` seconds between chunks); with ``gate``, the
        events from index ``gate_at`` on wait until the test sets it."""
        pieces: list[Piece] = []
        for i, data in enumerate(events):
            if gate is not None and i == gate_at:
                pieces.append(gate)
            if delay and i:
                pieces.append(delay)
            name = event_names[i] if event_names else None
            pieces.append(sse_bytes(data, name))
        return cls(pieces=pieces, **kwargs)

    @classmethod
    def upgrade(cls) -> Reply:
        """Accept a WebSocket handshake (``loopback_ws``); the messages get replies of their own."""
        return cls(status=101, headers={})

    @classmethod
    def ws(cls, events: list[Any], *, gate_at: int | None = None, gate: threading.Event | None = None,
           **kwargs: Any) -> Reply:
        """A WebSocket answer to one message: each event a text frame (JSON unless a str); with
        ``gate``, the events from index ``gate_at`` on wait until the test sets it."""
        pieces: list[Piece] = []
        for i, data in enumerate(events):
            if gate is not None and i == gate_at:
                pieces.append(gate)
            pieces.append((data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))).encode())
        return cls(status=101, headers={}, pieces=pieces, **kwargs)

    @classmethod
    def json(cls, status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
        h = {"content-type": "application/json"}
        h.update(headers or {})
        return cls(status=status, headers=h, pieces=[json.dumps(body).encode()])

    @classmethod
    def raw(cls, data: bytes, **kwargs: Any) -> Reply:
        return cls(pieces=[data], **kwargs)

    @classmethod
    def event_stream(cls, frames: list[bytes], *, split: int | None = None, **kwargs: Any) -> Reply:
        """A binary ``application/vnd.amazon.eventstream`` reply, one chunk per frame (see
        ``event_stream_frame``); ``split`` cuts the whole body into chunks of that many bytes
        instead, so frames straddle network reads."""
        headers = {"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-loopback-1"}
        headers.update(kwargs.pop("headers", {}))
        pieces: list[Piece]
        if split:
            body = b"".join(frames)
            pieces = [body[i:i + split] for i in range(0, len(body), split)]
        else:
            pieces = list(frames)
        return cls(headers=headers, pieces=pieces, **kwargs)


@record
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    host: str = ""
    """The host the request was meant for (its ``Host`` header, without the port)."""

    def json(self) -> Any:
        body = self.decoded_body()
        return json.loads(body) if body else None

    def decoded_body(self) -> bytes:
        """The body as sent before its ``content-encoding`` (zstd, as the Codex endpoint takes it)."""
        if self.headers.get("content-encoding") == "zstd" and self.method != "WS":
            from ..ai.providers._zstd import decompress

            return decompress(self.body)
        return self.body


Responder = Callable[[RecordedRequest], Reply]


class LoopbackServer:
    def __init__(self, responder: Responder | None = None) -> None:
        self.replies: list[Reply] = []
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._stop: asyncio.Event | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def push(self, *replies: Reply) -> LoopbackServer:
        with self._lock:
            self.replies.extend(replies)
        return self

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> LoopbackServer:
        self._thread = threading.Thread(target=self._run, name="loopback-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        """Close the server and cut every connection (a reply still waiting is cancelled); a
        second call does nothing."""
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop.wait()
        self._server.close()
        # Connections that stall are closed by cancelling their handlers.
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()

    # ------------------------------------------------------------------ protocol

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.replies:
                return self.replies.pop(0)
        if self.responder is not None:
            return self.responder(request)
        return Reply.json(500, {"error": {"message": "loopback server has no reply scripted"}})

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                reply = self._next_reply(request)
                if request.headers.get("upgrade", "").lower() == "websocket":
                    from .loopback_ws import serve_websocket

                    await serve_websocket(reader, writer, request, reply, self._next_reply)
                    break
                keep_open = await self._send(writer, reply)
                if not keep_open:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            try:
                writer.close()
            except Exception:  # noqa: BLE001
                pass

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        line = await reader.readline()
        if not line:
            return None
        method, path, _ = line.decode("latin-1").split(" ", 2)
        if path.startswith(("http://", "https://")):  # sent through a proxy: an absolute URL
            path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"
        headers: dict[str, str] = {}
        while True:
            h = await reader.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            name, _, value = h.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = b""
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)
                if size == 0:
                    await reader.readline()
                    break
                body += await reader.readexactly(size)
                await reader.readline()
        host = headers.get("host", "")
        host = host.rpartition(":")[0] if host.rpartition(":")[2].isdigit() else host
        return RecordedRequest(method, path, headers, body, host.strip("[]"))

    async def _send(self, writer: asyncio.StreamWriter, reply: Reply) -> bool:
        reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests",
                  500: "Internal Server Error", 503: "Service Unavailable"}.get(reply.status, "Status")
        head = [f"HTTP/1.1 {reply.status} {reason}"]
        for k, v in reply.headers.items():
            head.append(f"{k}: {v}")
        head.append("transfer-encoding: chunked")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        for piece in reply.pieces:
            if isinstance(piece, threading.Event):
                await writer.drain()
                # Polled: it is set from the test's thread, and a thread blocked in wait() could not
                # be cancelled when the server stops.
                while not piece.is_set():  # noqa: ASYNC110 - a threading.Event, see above
                    await asyncio.sleep(0.01)
                continue
            if isinstance(piece, (int, float)):
                await writer.drain()
                await asyncio.sleep(piece)
                continue
            if piece:
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        await writer.drain()
        if reply.stall:
            await asyncio.Event().wait()  # until cancelled by stop() or the client leaving
        if reply.drop:
            writer.transport.abort()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True
