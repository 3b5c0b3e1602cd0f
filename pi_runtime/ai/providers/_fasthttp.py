"""A lean HTTP/1.1 client for the one thing providers do: POST and stream the response.

httpx parses every HTTP chunk through h11 as a separate event; a 20,000-token answer sent
as 20,000 tiny chunks costs it ~0.35 s of CPU before any SSE or JSON work. Here the socket
is read in 64 KB blocks and the chunked framing is undone in bulk, which is ~10x cheaper.

Scope, on purpose: HTTP/1.1 over TCP or TLS (system trust store, ``SSL_CERT_FILE``
honoured), identity encoding, chunked / content-length / read-until-close bodies,
keep-alive reuse per event loop. Anything else — a proxy in the environment, an injected
httpx client — goes through httpx instead (``post_sse`` decides).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

_READ = 65536


class HTTPError(Exception):
    """Connection-level failure (refused, reset, malformed response)."""


class HTTPTimeout(HTTPError):
    pass


class ProtocolCut(HTTPError):
    """The server closed the connection before the body was complete."""


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    _conn: _Connection
    _framing: str
    _remaining: int = 0
    _buffer: bytearray = field(default_factory=bytearray)
    _done: bool = False
    _key: tuple[str, str, int] = ("", "", 0)

    async def iter_body(self, read_timeout: float) -> AsyncIterator[bytes]:
        """Yield body bytes as they arrive, de-chunked, in large blocks."""
        if self._framing == "length":
            async for block in self._iter_length(read_timeout):
                yield block
        elif self._framing == "chunked":
            async for block in self._iter_chunked(read_timeout):
                yield block
        else:
            if self._buffer:
                yield bytes(self._buffer)
                self._buffer.clear()
            while True:
                data = await self._conn.read(read_timeout)
                if not data:
                    break
                yield data
            self._conn.reusable = False
        self._done = True

    async def read_all(self, read_timeout: float, limit: int = 1 << 20) -> bytes:
        out = bytearray()
        async for block in self.iter_body(read_timeout):
            out += block
            if len(out) > limit:
                self._conn.reusable = False
                break
        return bytes(out)

    async def _iter_length(self, read_timeout: float) -> AsyncIterator[bytes]:
        remaining = self._remaining
        if self._buffer:
            block = bytes(self._buffer[:remaining])
            del self._buffer[:remaining]
            remaining -= len(block)
            if block:
                yield block
        while remaining > 0:
            data = await self._conn.read(read_timeout)
            if not data:
                raise ProtocolCut("incomplete body")
            yield data[:remaining]
            remaining -= len(data)

    async def _iter_chunked(self, read_timeout: float) -> AsyncIterator[bytes]:
        buf = self._buffer
        pos = 0
        out = bytearray()
        while True:
            # Undo as much framing as the buffer holds, then hand it over in one block.
            while True:
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    break
                size_field = bytes(buf[pos:eol]).split(b";", 1)[0].strip()
                try:
                    size = int(size_field, 16)
                except ValueError as exc:
                    raise HTTPError(f"bad chunk size {size_field[:20]!r}") from exc
                if size == 0:
                    # Last chunk: skip optional trailers up to the blank line.
                    end = buf.find(b"\r\n\r\n", eol)
                    if end < 0 and buf[eol : eol + 4] != b"\r\n\r\n":
                        more = await self._conn.read(read_timeout)
                        if not more:
                            raise ProtocolCut("incomplete chunked read")
                        buf += more
                        continue
                    if out:
                        yield bytes(out)
                    return
                start = eol + 2
                if len(buf) < start + size + 2:
                    break
                out += buf[start : start + size]
                pos = start + size + 2
            if out:
                yield bytes(out)
                out.clear()
            del buf[:pos]
            pos = 0
            data = await self._conn.read(read_timeout)
            if not data:
                self._conn.reusable = False
                raise ProtocolCut("peer closed connection without sending complete message body (incomplete chunked read)")
            buf += data


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.reusable = True

    async def read(self, timeout: float) -> bytes:
        try:
            return await asyncio.wait_for(self.reader.read(_READ), timeout)
        except TimeoutError as exc:
            raise HTTPTimeout("read timed out") from exc

    def close(self) -> None:
        self.reusable = False
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001
            pass


_pools: WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str, int], list[_Connection]]] = (
    WeakKeyDictionary()
)
_ssl_context: ssl.SSLContext | None = None


def _tls() -> ssl.SSLContext:
    global _ssl_context
    if _ssl_context is None:
        _ssl_context = ssl.create_default_context()
    return _ssl_context


def _pool() -> dict[tuple[str, str, int], list[_Connection]]:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = {}
    return pool


async def _connect(scheme: str, host: str, port: int, timeout: float) -> _Connection:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                host, port, ssl=_tls() if scheme == "https" else None, limit=1 << 20,
                server_hostname=host if scheme == "https" else None,
            ),
            timeout,
        )
    except TimeoutError as exc:
        raise HTTPTimeout(f"connect to {host}:{port} timed out") from exc
    except (OSError, ssl.SSLError) as exc:
        raise HTTPError(f"cannot connect to {host}:{port}: {exc}") from exc
    return _Connection(reader, writer)


async def _read_head(conn: _Connection, timeout: float) -> tuple[int, dict[str, str], bytearray]:
    buf = bytearray()
    while True:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            break
        data = await conn.read(timeout)
        if not data:
            raise ProtocolCut("connection closed before the response head")
        buf += data
        if len(buf) > 1 << 16:
            raise HTTPError("response head too large")
    head = bytes(buf[:end]).decode("latin-1").split("\r\n")
    del buf[: end + 4]
    parts = head[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise HTTPError(f"malformed status line {head[0][:60]!r}")
    headers: dict[str, str] = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers, buf


async def post(
    url: str, headers: dict[str, str], payload: bytes, *, connect_timeout: float, read_timeout: float
) -> Response:
    """Send a POST and return once the response head arrived (body not yet read)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise HTTPError(f"unsupported URL {url!r}")
    host = parts.hostname
    port = parts.port or (443 if scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host_header = host if parts.port is None else f"{host}:{parts.port}"
    if ":" in host and not host.startswith("["):
        host_header = f"[{host}]" + (f":{parts.port}" if parts.port else "")
    lines = [f"POST {target} HTTP/1.1", f"host: {host_header}", f"content-length: {len(payload)}",
             "accept-encoding: identity", "connection: keep-alive"]
    lower = {k.lower() for k in headers}
    if "user-agent" not in lower:
        lines.append("user-agent: pi")
    for name, value in headers.items():
        if "\r" in name or "\n" in name or "\r" in str(value) or "\n" in str(value):
            raise HTTPError(f"header {name!r} contains a line break")
        lines.append(f"{name}: {value}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", errors="replace") + payload
    key = (scheme, host, port)
    pool = _pool().setdefault(key, [])
    # A pooled connection may have been closed by the server while idle: if it fails
    # before any response byte arrives, the request is sent again on a fresh connection.
    while True:
        reused = bool(pool)
        conn = pool.pop() if pool else await _connect(scheme, host, port, connect_timeout)
        try:
            conn.writer.write(request)
            await conn.writer.drain()
            status, resp_headers, rest = await _read_head(conn, read_timeout)
            break
        except (ProtocolCut, ConnectionError, OSError) as exc:
            conn.close()
            if reused:
                continue
            raise exc if isinstance(exc, HTTPError) else HTTPError(str(exc)) from exc
        except BaseException:
            conn.close()
            raise
    encoding = resp_headers.get("transfer-encoding", "").lower()
    if "chunked" in encoding:
        framing, remaining = "chunked", 0
    elif "content-length" in resp_headers:
        framing, remaining = "length", int(resp_headers["content-length"] or 0)
    else:
        framing, remaining = "close", 0
    if resp_headers.get("connection", "").lower() == "close":
        conn.reusable = False
    return Response(status, resp_headers, conn, framing, remaining, rest, _key=key)


def release(response: Response) -> None:
    """Return the connection to the pool if the body was read to the end, else close it."""
    conn = response._conn
    if response._done and conn.reusable and not conn.reader.at_eof():
        idle = _pool().setdefault(response._key, [])
        if len(idle) < 8:
            idle.append(conn)
            return
    conn.close()
