"""The HTTP/1.1 client providers use: POST and stream the response.

httpx parses every HTTP chunk through h11 as a separate event; a 20,000-token answer sent
as 20,000 tiny chunks costs it ~0.35 s of CPU before any SSE or JSON work. Here the socket
is read in 64 KB blocks and the chunked framing is undone in bulk, which is ~4x cheaper in
CPU, 14x cheaper to import and 3x faster to the first byte (``bench/http_clients.py``), so
it is the only client: there is no second code path that behaves differently.

Scope, on purpose: HTTP/1.1 over TCP or TLS (trust store: ``_tls``), through an http://
proxy from the environment (``_proxy``), identity encoding, chunked / content-length /
read-until-close bodies, keep-alive reuse per event loop. Redirects: 307 and 308 (which keep
the method and body) are followed up to five times on the same server, or from http to https
on the same host; any other redirect, or one to another server (which would receive the
credentials), fails with a message naming the new address, to be put in ``baseUrl``.

Timeouts come in three phases, each reported as such: connecting, waiting for the response
head (Pi's ``retry.provider.timeoutMs``), and silence in the body (``httpIdleTimeoutMs``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import field
from typing import Literal
from urllib.parse import urljoin, urlsplit
from weakref import WeakKeyDictionary

from ...records import record
from ._proxy import Proxy, ProxyConfigError, proxy_for
from ._tls import tls_context

_READ = 65536
_MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)

Phase = Literal["connect", "head", "body"]


class HTTPError(Exception):
    """Connection-level failure (refused, reset, malformed response, unusable redirect)."""


class HTTPTimeout(HTTPError):
    """Nothing arrived in time; ``phase`` says what was awaited, ``seconds`` for how long."""

    def __init__(self, message: str, phase: Phase = "body", seconds: float | None = None) -> None:
        super().__init__(message)
        self.phase: Phase = phase
        self.seconds = seconds


class ProtocolCut(HTTPError):
    """The server closed the connection before the body was complete."""


@record
class Response:
    status: int
    headers: dict[str, str]
    _conn: _Connection
    _framing: str
    _remaining: int = 0
    _buffer: bytearray = field(default_factory=bytearray)
    _done: bool = False
    _key: tuple[str, str, int, str] = ("", "", 0, "")

    async def iter_body(self, read_timeout: float | None) -> AsyncIterator[bytes]:
        """Yield body bytes as they arrive, de-chunked, in large blocks.

        Args:
            read_timeout: Seconds the server may stay silent (None: no limit).
        """
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

    async def read_all(self, read_timeout: float | None, limit: int = 1 << 20) -> bytes:
        out = bytearray()
        async for block in self.iter_body(read_timeout):
            out += block
            if len(out) > limit:
                self._conn.reusable = False
                break
        return bytes(out)

    async def _iter_length(self, read_timeout: float | None) -> AsyncIterator[bytes]:
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

    async def _iter_chunked(self, read_timeout: float | None) -> AsyncIterator[bytes]:
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

    async def read(self, timeout: float | None, phase: Phase = "body") -> bytes:
        try:
            return await asyncio.wait_for(self.reader.read(_READ), timeout)
        except TimeoutError as exc:
            raise HTTPTimeout(f"no data for {timeout:g}s", phase, timeout) from exc

    def close(self) -> None:
        self.reusable = False
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - closing a broken transport may fail; it is gone either way
            pass


_pools: WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str, int, str], list[_Connection]]] = (
    WeakKeyDictionary()
)


def _pool() -> dict[tuple[str, str, int, str], list[_Connection]]:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = {}
    return pool


async def _open(host: str, port: int, timeout: float | None, tls: bool) -> _Connection:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                host, port, ssl=tls_context() if tls else None, limit=1 << 20,
                server_hostname=host if tls else None,
            ),
            timeout,
        )
    except TimeoutError as exc:
        raise HTTPTimeout(f"connect to {host}:{port} timed out after {timeout:g}s", "connect", timeout) from exc
    except OSError as exc:  # ssl.SSLError is an OSError
        raise HTTPError(f"cannot connect to {host}:{port}: {exc}") from exc
    return _Connection(reader, writer)


async def _connect(scheme: str, host: str, port: int, proxy: Proxy | None, timeout: float | None) -> _Connection:
    """A connection to the server, through ``proxy`` when one is set (a CONNECT tunnel for https)."""
    if proxy is None:
        return await _open(host, port, timeout, scheme == "https")
    conn = await _open(proxy.host, proxy.port, timeout, False)
    if scheme == "http":
        return conn  # requests go to the proxy in absolute form
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {target} HTTP/1.1", f"host: {target}"]
    if proxy.authorization:
        lines.append(f"proxy-authorization: {proxy.authorization}")
    try:
        conn.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await conn.writer.drain()
        status, _, _ = await _read_head(conn, timeout)
        if status != 200:
            raise HTTPError(f"the proxy {proxy.key} refused the tunnel to {target} (status {status})")
        await asyncio.wait_for(conn.writer.start_tls(tls_context(), server_hostname=host), timeout)
    except TimeoutError as exc:
        conn.close()
        raise HTTPTimeout(f"TLS through the proxy {proxy.key} timed out", "connect", timeout) from exc
    except OSError as exc:
        conn.close()
        raise HTTPError(f"cannot connect to {target} through the proxy {proxy.key}: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


async def _read_head(conn: _Connection, timeout: float | None) -> tuple[int, dict[str, str], bytearray]:
    buf = bytearray()
    while True:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            break
        data = await conn.read(timeout, "head")
        if not data:
            raise ProtocolCut("connection closed before the response head")
        buf += data
        if len(buf) > 1 << 16:
            raise HTTPError("response head too large")
    head = bytes(buf[:end]).decode("latin-1").split("\r\n")
    del buf[: end + 4]
    parts = head[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise HTTPError(f"malformed status line {head[0][:60]!r}")
    headers: dict[str, str] = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers, buf


@record(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    path: str
    """Origin-form request target: path and query."""

    @classmethod
    def parse(cls, url: str) -> _Target:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise HTTPError(f"unsupported URL {url!r}")
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError as exc:
            raise HTTPError(f"bad port in URL {url!r}") from exc
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return cls(scheme, parts.hostname, port, path)

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host_header}{self.path}"


def _request_bytes(target: _Target, headers: dict[str, str], payload: bytes, proxy: Proxy | None) -> bytes:
    absolute = proxy is not None and target.scheme == "http"
    lines = [f"POST {target.url if absolute else target.path} HTTP/1.1", f"host: {target.host_header}",
             f"content-length: {len(payload)}", "accept-encoding: identity", "connection: keep-alive"]
    if absolute and proxy is not None and proxy.authorization:
        lines.append(f"proxy-authorization: {proxy.authorization}")
    lower = {k.lower() for k in headers}
    if "user-agent" not in lower:
        lines.append("user-agent: pi")
    for name, value in headers.items():
        if "\r" in name or "\n" in name or "\r" in str(value) or "\n" in str(value):
            raise HTTPError(f"header {name!r} contains a line break")
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", errors="replace") + payload


def _follow(target: _Target, status: int, headers: dict[str, str]) -> _Target:
    """Where a redirect leads, when pi follows it (see the module docstring); else HTTPError."""
    location = headers.get("location")
    if not location:
        raise HTTPError(f"the server answered {status} (a redirect) without a location")
    new = _Target.parse(urljoin(target.url, location))
    same_server = (new.scheme, new.host, new.port) == (target.scheme, target.host, target.port)
    upgrade = target.scheme == "http" and new.scheme == "https" and new.host == target.host
    if status in (307, 308) and (same_server or upgrade):
        return new
    raise HTTPError(f"the server redirected ({status}) to {new.url}; set the provider's baseUrl to that address")


async def post(
    url: str,
    headers: dict[str, str],
    payload: bytes,
    *,
    connect_timeout: float | None,
    read_timeout: float | None,
) -> Response:
    """Send a POST and return once the response head arrived (body not yet read).

    Args:
        url: Where to send it (http or https).
        headers: Request headers (no line breaks).
        payload: The body.
        connect_timeout: Seconds to open the connection (and tunnel), None for no limit.
        read_timeout: Seconds from sending until the response head is complete, None for no limit.

    Raises:
        HTTPTimeout: A phase took too long.
        ProtocolCut: The server closed the connection before the head.
        HTTPError: Any other connection-level failure, or a redirect pi does not follow.
    """
    target = _Target.parse(url)
    for _hop in range(_MAX_REDIRECTS + 1):
        response = await _post_once(target, headers, payload, connect_timeout, read_timeout)
        if response.status not in _REDIRECTS:
            return response
        release_unread(response)
        target = _follow(target, response.status, response.headers)
    raise HTTPError(f"more than {_MAX_REDIRECTS} redirects, the last to {target.url}")


async def _post_once(
    target: _Target, headers: dict[str, str], payload: bytes,
    connect_timeout: float | None, read_timeout: float | None,
) -> Response:
    try:
        proxy = proxy_for(target.scheme, target.host, target.port)
    except ProxyConfigError as exc:
        raise HTTPError(str(exc)) from exc
    request = _request_bytes(target, headers, payload, proxy)
    key = (target.scheme, target.host, target.port, proxy.key if proxy else "")
    pool = _pool().setdefault(key, [])
    if read_timeout is not None and (connect_timeout is None or connect_timeout > read_timeout):
        connect_timeout = read_timeout  # the head's limit covers connecting too, as in Pi
    # A pooled connection may have been closed by the server while idle: if it fails
    # before any response byte arrives, the request is sent again on a fresh connection.
    while True:
        reused = bool(pool)
        conn = pool.pop() if pool else await _connect(target.scheme, target.host, target.port, proxy, connect_timeout)
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
        try:
            framing, remaining = "length", int(resp_headers["content-length"] or 0)
        except ValueError as exc:
            conn.close()
            raise HTTPError(f"bad content-length {resp_headers['content-length'][:20]!r}") from exc
    else:
        framing, remaining = "close", 0
    if resp_headers.get("connection", "").lower() == "close":
        conn.reusable = False
    return Response(status, resp_headers, conn, framing, remaining, rest, _key=key)


def release_unread(response: Response) -> None:
    """Give up on a response whose body will not be read (a redirect): close its connection."""
    response._conn.close()


def release(response: Response) -> None:
    """Return the connection to the pool if the body was read to the end, else close it."""
    conn = response._conn
    if response._done and conn.reusable and not conn.reader.at_eof():
        idle = _pool().setdefault(response._key, [])
        if len(idle) < 8:
            idle.append(conn)
            return
    conn.close()
