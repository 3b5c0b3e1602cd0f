"""The httpx2 side of ``pi_runtime.http``: the per-loop client, redirects, timeouts, errors.

Parsing HTTP from a server that may be hostile or broken (a negative chunk size, a 20 MB
chunk-size line, conflicting lengths) is left to h11 under httpx2, which refuses each with an
error; pi only decides where a request may go and how long it may take.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from ._versions import loading_without_metadata

with loading_without_metadata("httpx2", "httpcore2"):
    import httpcore2  # noqa: F401 - httpx2 loads it with the first client; here its version lookup is cheap too
    import httpx2

from ..text_safety import terminal_safe
from . import Aborted, HTTPError, HTTPTimeout, MalformedResponse, Phase, ProtocolCut
from ._tls import client_context, tls_context

MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
_PROXY_VARIABLES = ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")

_clients: WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncClient] = WeakKeyDictionary()


_QUOTED = 200
"""Characters of what a server or proxy sent that an error message quotes (a proxy's 4 KB reason
phrase was quoted whole)."""


def _head(text: str) -> str:
    return text if len(text) <= _QUOTED else f"{text[:_QUOTED]}… ({len(text):,} characters)"


def _variable_name(name: str) -> str:
    """How a message names a proxy variable: pi's own from the ``httpProxy`` setting say so."""
    from . import PROXY_SETTING_VARIABLES

    return "the httpProxy setting" if name in PROXY_SETTING_VARIABLES else name


def _check_proxy_variables() -> None:
    """Refuse, by variable name, a proxy URL httpx2 would reject with a less helpful message."""
    for name in _PROXY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if not value or "://" not in value:
            continue  # httpx2 reads "host:port" as an http:// proxy
        scheme = value.split("://", 1)[0].lower()
        if scheme in ("http", "https", "socks5", "socks5h"):
            continue  # socks: httpx2 with socksio, a dependency of pi
        raise HTTPError(f"{_variable_name(name)}: only http://, https:// and socks5:// proxies are supported "
                        f"(got a {terminal_safe(scheme, multiline=True)[:40]}:// URL)")


def proxy_for(url: httpx2.URL) -> tuple[str, str] | None:
    """The proxy a request to ``url`` goes through, as ``(how it was configured, host:port)``, or
    None when it goes direct (no proxy variable for its scheme, or ``NO_PROXY`` names its host).
    For messages: httpx2 itself decides the route, from the same variables."""
    from urllib.request import getproxies_environment, proxy_bypass

    proxies = getproxies_environment()
    value = proxies.get(url.scheme) or proxies.get("all")
    port = url.port or (443 if url.scheme == "https" else 80)
    if not value or proxy_bypass(f"{url.host}:{port}"):  # NO_PROXY (the environment's, off macOS and Windows)
        return None
    wanted = {f"{url.scheme}_proxy", "all_proxy"}
    name = next((n for n in _PROXY_VARIABLES if n.lower() in wanted and os.environ.get(n) == value), "a proxy variable")
    try:
        proxy = httpx2.URL(value if "://" in value else f"http://{value}")
        where = f"{proxy.host}:{proxy.port or (443 if proxy.scheme == 'https' else 1080 if 'socks' in proxy.scheme else 80)}"
    except httpx2.InvalidURL:
        where = terminal_safe(value)[:80]
    return _variable_name(name), where


def _proxy_configured() -> bool:
    return any(os.environ.get(name) for name in _PROXY_VARIABLES)


def _build() -> httpx2.AsyncClient:
    _check_proxy_variables()
    try:
        return httpx2.AsyncClient(
            verify=client_context(),  # its trust store is loaded before the first TLS connection
            trust_env=True,  # proxies and NO_PROXY from the environment
            follow_redirects=False,  # see follow() for which redirects pi takes
            timeout=httpx2.Timeout(None),  # phases are timed per request (open_response, read_body)
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=8, keepalive_expiry=60),
            # The encodings Pi's client asks for. httpx2 would add zstd once a zstd module is present
            # (backports.zstd comes for the Codex request bodies); servers answer as they answered before.
            headers={"user-agent": "pi", "accept-encoding": "gzip, deflate"},
        )
    except (ValueError, ImportError) as exc:
        raise HTTPError(f"the proxy settings cannot be used: {exc}") from exc


def shared_client() -> httpx2.AsyncClient:
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        client = _clients[loop] = _build()
        # A task parked until the loop shuts down: asyncio.run() cancels it, and it closes the
        # pool while the loop still runs (no "Event loop is closed" from a late transport close).
        keeper = loop.create_task(_close_at_shutdown(loop, client), name="pi-http-client-closer")
        _keepers.add(keeper)
        keeper.add_done_callback(_keepers.discard)
    return client


_keepers: set[asyncio.Task[None]] = set()


async def _close_at_shutdown(loop: asyncio.AbstractEventLoop, client: httpx2.AsyncClient) -> None:
    try:
        await loop.create_future()
    finally:
        if _clients.get(loop) is client:
            del _clients[loop]
        await client.aclose()


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    default = 443 if url.scheme == "https" else 80
    return url.scheme, url.host, url.port or default


def follow(url: httpx2.URL, status: int, location: str | None) -> httpx2.URL:
    """Where a redirect leads when pi follows it; otherwise HTTPError naming the address."""
    if not location:
        raise HTTPError(f"the server answered {status} (a redirect) without a location")
    try:
        new = url.join(location)
    except httpx2.InvalidURL as exc:
        raise HTTPError(f"the server redirected ({status}) to an invalid address {terminal_safe(location, multiline=True)[:200]!r}") from exc
    same_server = _origin(new) == _origin(url)
    upgrade = url.scheme == "http" and new.scheme == "https" and new.host == url.host
    if status in (307, 308) and (same_server or upgrade):
        return new
    raise HTTPError(
        f"the server redirected ({status}) to {terminal_safe(str(new), multiline=True)[:500]}; set the provider's baseUrl to that address"
    )


def translate(exc: Exception, url: httpx2.URL | str, phase: Phase) -> HTTPError:
    """httpx2's exception as pi's, with a message that names what failed: the server, or the
    proxy in between when there is one (a closed proxy is not an unreachable server)."""
    where = url if isinstance(url, httpx2.URL) else None
    target = f"{where.host}:{where.port or (443 if where.scheme == 'https' else 80)}" if where else str(url)
    text = _head(terminal_safe(str(exc), multiline=True) or type(exc).__name__)
    proxy = proxy_for(where) if where is not None and phase == "head" else None
    if proxy is not None and isinstance(exc, (httpx2.ConnectTimeout, httpx2.ConnectError)):
        variable, address = proxy
        if isinstance(exc, httpx2.ConnectTimeout):
            return HTTPTimeout(f"connect to the proxy {address} ({variable}) timed out; {target} was not reached",
                               "connect")
        return HTTPError(f"cannot connect to the proxy {address} ({variable}): {text}; {target} was not reached")
    if isinstance(exc, httpx2.ConnectTimeout):
        return HTTPTimeout(f"connect to {target} timed out", "connect")
    if isinstance(exc, httpx2.TimeoutException):
        return HTTPTimeout(text, phase)
    if isinstance(exc, httpx2.ProxyError):
        via = f" {proxy[1]} ({proxy[0]})" if proxy is not None else ""
        return HTTPError(f"the proxy{via} refused the connection to {target}: {text}")
    if isinstance(exc, httpx2.ConnectError):
        return HTTPError(f"cannot connect to {target}: {text}")
    if proxy is not None and isinstance(exc, httpx2.RemoteProtocolError):
        return MalformedResponse(f"malformed answer from the proxy {proxy[1]} ({proxy[0]}) for {target}: {text}")
    if isinstance(exc, httpx2.RemoteProtocolError):
        if "peer closed" in text or "incomplete" in text or "without sending" in text:
            return ProtocolCut(text)
        return MalformedResponse(f"malformed response from {target}: {text}")
    if isinstance(exc, (httpx2.ReadError, httpx2.WriteError)):
        return ProtocolCut(text) if phase == "body" else HTTPError(f"{target}: {text}")
    if isinstance(exc, httpx2.DecodingError):
        return MalformedResponse(f"the response body from {target} could not be decoded: {text}")
    if isinstance(exc, (httpx2.UnsupportedProtocol, httpx2.InvalidURL)):
        return HTTPError(f"unsupported URL {terminal_safe(str(url), multiline=True)!r}: {text}")
    if isinstance(exc, httpx2.LocalProtocolError):
        return HTTPError(f"the request could not be sent: {text}")
    return HTTPError(f"{type(exc).__name__}: {text}")


async def open_response(
    method: str,
    url: str,
    headers: dict[str, str],
    content: bytes | None,
    *,
    connect_timeout: float | None,
    head_timeout: float | None,
) -> httpx2.Response:
    """Send the request and return once the response head arrived (the body is still to read).

    The caller must ``await response.aclose()``. Redirects are followed per ``follow``.

    Raises:
        HTTPTimeout: Connecting or the response head took too long.
        HTTPError: Any other failure, or a redirect pi does not follow.
    """
    client = shared_client()
    if head_timeout is not None and (connect_timeout is None or connect_timeout > head_timeout):
        connect_timeout = head_timeout  # the head's limit covers connecting too, as in Pi
    limits = httpx2.Timeout(None, connect=connect_timeout)
    try:
        target = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise HTTPError(f"unsupported URL {terminal_safe(url, multiline=True)!r}: {exc}") from exc
    for _hop in range(MAX_REDIRECTS + 1):
        if target.scheme != "http" or _proxy_configured():
            tls_context()  # TLS ahead (to the server or to a proxy): load the trust store first
        try:
            request = client.build_request(method, target, headers=headers, content=content, timeout=limits)
            async with asyncio.timeout(head_timeout):
                response = await client.send(request, stream=True)
        except TimeoutError:
            raise HTTPTimeout(f"no response head within {head_timeout:g}s", "head", head_timeout) from None
        except httpx2.HTTPError as exc:
            error = translate(exc, target, "head")
            if isinstance(error, HTTPTimeout) and error.phase == "connect":
                error.seconds = connect_timeout
            raise error from exc
        if response.status_code not in _REDIRECTS:
            problem = _undecodable(response.headers.get("content-encoding", ""))
            if problem:
                await response.aclose()
                raise MalformedResponse(f"the response from {target.host} {problem}")
            return response
        await response.aclose()
        target = follow(target, response.status_code, response.headers.get("location"))
    raise HTTPError(f"more than {MAX_REDIRECTS} redirects, the last to {terminal_safe(str(target), multiline=True)[:500]}")


_DECODERS = {"br": ("brotli", "brotlicffi"), "zstd": ("compression.zstd", "backports.zstd")}
"""Encodings httpx2 decodes only with an optional module (gzip and deflate it always does)."""


def _undecodable(header: str) -> str | None:
    """What to say when the body is compressed in a way that cannot be undone here (else None).

    Without its module httpx2 hands a ``br`` body on as it is, and the stream reader saw only
    noise ("stream ended without a finish reason"). Other unknown names are passed through, as
    Pi's fetch does (a server may label a plain body oddly).
    """
    import importlib.util

    for name in (part.strip().lower() for part in header.split(",")):
        modules = _DECODERS.get(name)
        if modules is not None and not any(_importable(importlib.util, m) for m in modules):
            return f"is compressed with {name} (Content-Encoding), and the {modules[0]} module that decodes it is not installed"
    return None


def _importable(util: Any, module: str) -> bool:
    try:
        return util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that is missing
        return False


async def read_body(
    response: httpx2.Response, idle_timeout: float | None, on_chunk: Callable[[bytes], bool | None]
) -> None:
    """Hand each decoded body chunk (gzip and deflate undone) to ``on_chunk`` until it returns True.

    One timer watches for silence and is re-armed only when it fires, so a stream of tiny
    chunks costs a clock read per chunk, not a timer.

    Raises:
        HTTPTimeout: Nothing arrived for ``idle_timeout`` seconds.
        HTTPError: The body broke off or was malformed (``ProtocolCut`` when it broke off).
    """
    chunks = response.aiter_bytes()
    try:
        if idle_timeout is None:
            async for chunk in chunks:
                if on_chunk(chunk):
                    return
            return
        loop = asyncio.get_running_loop()
        last = loop.time()
        timer: asyncio.TimerHandle
        async with asyncio.timeout(None) as scope:

            def check() -> None:
                nonlocal timer
                now = loop.time()
                if now - last >= idle_timeout:
                    scope.reschedule(now)
                else:
                    timer = loop.call_at(last + idle_timeout, check)

            timer = loop.call_at(last + idle_timeout, check)
            try:
                async for chunk in chunks:
                    last = loop.time()
                    if on_chunk(chunk):
                        return
            finally:
                timer.cancel()
    except TimeoutError:
        raise HTTPTimeout(f"no data for {idle_timeout:g}s", "body", idle_timeout) from None
    except httpx2.HTTPError as exc:
        raise translate(exc, response.request.url, "body") from exc
    finally:
        await chunks.aclose()


async def read_whole(
    method: str,
    url: str,
    *,
    headers: dict[str, str] | None,
    json: Any,
    content: bytes | str | None,
    timeout: float | None,
    signal: Any,
    max_bytes: int,
) -> httpx2.Response:
    """``pi_runtime.http.request``: the whole exchange, cancelled at once when ``signal`` fires."""
    headers = dict(headers or {})
    if json is not None:
        from .. import deep_json

        content = deep_json.dumps(json, separators=(",", ":"), ensure_ascii=False)
        if not any(name.lower() == "content-type" for name in headers):
            headers["content-type"] = "application/json"
    body = content.encode() if isinstance(content, str) else content

    async def exchange() -> httpx2.Response:
        response = await open_response(method, url, headers, body, connect_timeout=timeout, head_timeout=timeout)
        parts: list[bytes] = []
        size = 0

        def keep(chunk: bytes) -> bool:
            nonlocal size
            size += len(chunk)
            if size > max_bytes:
                raise HTTPError(f"the response from {url} is longer than {max_bytes} bytes")
            parts.append(chunk)
            return False

        try:
            await read_body(response, timeout, keep)
        finally:
            await response.aclose()
        # The decoded body, so .content, .text and .json() work as after an ordinary read.
        return httpx2.Response(response.status_code, headers=_without_framing(response.headers),
                               content=b"".join(parts), request=response.request)

    if signal is None:
        return await exchange()
    if signal.aborted:
        raise Aborted()
    task = asyncio.ensure_future(exchange())
    remove = signal.add_listener(task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        if signal.aborted and not _cancelling():
            raise Aborted() from None
        raise
    finally:
        remove()


def _cancelling() -> bool:
    """Whether the calling task itself is being cancelled (then the cancellation is not ours to swallow)."""
    task = asyncio.current_task()
    return bool(task is not None and task.cancelling())


def _without_framing(headers: httpx2.Headers) -> list[tuple[str, str]]:
    """The headers minus those describing the wire form (the body handed on is already decoded)."""
    dropped = {"content-encoding", "content-length", "transfer-encoding"}
    return [(k, v) for k, v in headers.multi_items() if k.lower() not in dropped]
