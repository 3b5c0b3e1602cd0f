"""HTTP for pi and its extensions: one well-kept client (httpx2) configured the way pi needs.

Every request pi makes to a model provider goes through here, and extensions are welcome to
use it too (``docs/extensions.md``, "HTTP requests"). What it gives over a bare client:

- proxies from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY`` with ``socks5://``
  too, ``NO_PROXY``; Pi's ``httpProxy`` setting fills the first two when they are unset, see
  ``apply_proxy_setting``), a clear error for a proxy URL it cannot use, and errors that say when
  it is the proxy that cannot be reached or answers nonsense;
- the trust store Pi's users expect: the system's, ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, plus
  ``NODE_EXTRA_CA_CERTS`` (``trust_store()``);
- one keep-alive connection pool per event loop (``shared_client()``), closed with its loop;
- redirects handled safely: 307/308 on the same server (or http→https on the same host) are
  followed up to five times with the body; anything else fails naming the new address, since
  following it would hand the credentials to another server;
- three timeouts, each reported as such: connecting, waiting for the response head, and
  silence in the body.

This module does not import httpx2: ``pi --version`` and the app's first frame never pay for
it. The first request does (``_client``).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import ssl

    import httpx2

    from ..ai.abort import AbortSignal

Phase = Literal["connect", "head", "body"]
_CLIENT_MODULE = "pi_runtime.http._client"


class HTTPError(Exception):
    """The request failed below HTTP status level: refused, reset, malformed, unusable redirect or proxy."""


class HTTPTimeout(HTTPError):
    """Nothing arrived in time; ``phase`` says what was awaited, ``seconds`` for how long."""

    def __init__(self, message: str, phase: Phase = "body", seconds: float | None = None) -> None:
        super().__init__(message)
        self.phase: Phase = phase
        self.seconds = seconds


class MalformedResponse(HTTPError):
    """The server answered with something that is not valid HTTP (a bad chunk size, conflicting
    lengths, a body that does not decode). Unlike a cut connection, asking again is no cure."""


class ProtocolCut(HTTPError):
    """The server closed the connection before the body was complete."""


class Aborted(Exception):
    """The request was cancelled through its abort signal."""


PROXY_SETTING_VARIABLES: set[str] = set()
"""Proxy variables pi set from the ``httpProxy`` setting (messages name the setting, not them)."""


def apply_proxy_setting(value: str | None) -> None:
    """Pi's ``httpProxy`` setting (global settings only): the proxy for every request, applied as
    Pi applies it, by setting ``HTTP_PROXY`` and ``HTTPS_PROXY`` where they are unset. The
    environment wins; child processes (the bash tool, MCP servers) inherit the variables, as in
    Pi. Call it before the first request."""
    import os

    proxy = (value or "").strip()
    if not proxy:
        return
    for name in ("HTTP_PROXY", "HTTPS_PROXY"):
        if name not in os.environ:
            os.environ[name] = proxy
            PROXY_SETTING_VARIABLES.add(name)


_preparing: set[str] = set()
_PREPARE_JOIN_SECONDS = 10.0
"""Longest wait at exit for the background import (it takes a tenth of a second or so)."""


def prepare_in_background(*, trust_store: bool = False, modules: tuple[str, ...] = ()) -> None:
    """Import the httpx2 side (and load the TLS trust store) on a worker thread, now.

    For a run that is sure to send a request (``-p "..."``, a request about to be built, a session
    just opened in the app): the import (a tenth of a second) and the CA bundle load (which runs
    without the GIL) then overlap with opening the session and building the request body, instead
    of following them. Harmless when it loses the race: imports are locked per module and the trust
    store is loaded once. Failures are left for the request to report.

    Args:
        trust_store: load the TLS trust store too (a request to an https URL is coming).
        modules: further modules the coming request needs (its provider's), imported after the client.
    """
    work = [] if _CLIENT_MODULE in sys.modules or "client" in _preparing else ["client"]
    if trust_store and "trust" not in _preparing:
        from . import _tls

        if not _tls._loaded:
            work.append("trust")
    more = [name for name in modules if name not in sys.modules and name not in _preparing]
    if not work and not more:
        return
    _preparing.update(work + more)
    import threading

    def prepare() -> None:
        import importlib

        from ..collector_pause import collector_paused

        # The modules live as long as the process: no collections while they load, and frozen out
        # of the collector's reach afterwards (else each full collection while an answer streams
        # scans them again).
        with collector_paused():
            try:
                if "trust" in work:
                    from ._tls import tls_context

                    tls_context()
                if "client" in work:
                    importlib.import_module(_CLIENT_MODULE)
                    # What the first request imports besides: the connection pool (httpcore2), and anyio's
                    # asyncio backend, which httpcore2's first lock loads on the event loop (10-40 ms there).
                    for name in _FIRST_REQUEST_MODULES:
                        importlib.import_module(name)
                    # The client's TLS context, without its trust store (``_tls``): OpenSSL reads its
                    # configuration when the first one is made (1.5-2 ms of the first request's path).
                    from ._tls import client_context

                    client_context()
                for name in more:
                    importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the request itself reports what is wrong
                pass

    thread = threading.Thread(target=prepare, name="pi-http-prepare", daemon=True)
    thread.start()
    # A run that ends while the import is under way (a usage error found once extensions load)
    # must let it finish first: a daemon thread still importing C extensions while the
    # interpreter tears modules down crashed pi with SIGSEGV (seen once in the suite, exit -11).
    import atexit

    atexit.register(thread.join, _PREPARE_JOIN_SECONDS)


_FIRST_REQUEST_MODULES = ("httpcore2", "httpcore2._async.connection_pool", "httpcore2._async.http11",
                          "anyio._backends._asyncio", "anyio.streams.memory", "anyio.streams.stapled")
"""Imported by a first request on the event loop unless imported ahead (measured: ``-X importtime`` of one)."""


async def load_client() -> ModuleType:
    """The httpx2 side (``_client``), imported in a worker thread the first time.

    Importing httpx2 takes a tenth of a second or more on a cold start; done on the event loop
    it would freeze the app's screen just as the first prompt is sent.
    """
    module = sys.modules.get(_CLIENT_MODULE)
    # Still being imported by ``prepare_in_background``'s thread: import_module waits for it.
    if module is None or getattr(module.__spec__, "_initializing", False):
        import asyncio
        import importlib

        module = await asyncio.to_thread(importlib.import_module, _CLIENT_MODULE)
    return module


def shared_client() -> httpx2.AsyncClient:
    """This event loop's client: pi's proxies, trust store and keep-alive pool.

    Use it for anything the helpers below do not cover (``client.stream(...)``, other methods).
    It does not follow redirects; do not close it (it is closed with its event loop).

    Raises:
        HTTPError: A proxy variable holds a URL that cannot be used.
    """
    from ._client import shared_client as shared
    from ._tls import tls_context

    tls_context()  # the caller may go anywhere: the trust store must be in place
    return shared()


def trust_store() -> ssl.SSLContext:
    """The TLS context pi verifies servers with (for libraries that open their own connections)."""
    from ._tls import tls_context

    return tls_context()


async def request(
    method: str,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    json: Any = None,
    content: bytes | str | None = None,
    timeout: float | None = 60.0,
    signal: AbortSignal | None = None,
    max_bytes: int = 32 << 20,
) -> httpx2.Response:
    """Send a request and read the whole response; any status is returned, not raised.

    Args:
        method: ``"GET"``, ``"POST"``, ...
        url: An http or https URL.
        headers: Request headers.
        json: A value sent as a JSON body (instead of ``content``).
        content: The raw body.
        timeout: Seconds for each phase (connect, response head, silence in the body); None: no limit.
        signal: An abort signal (``ctx.signal`` in a tool); firing it closes the connection at once.
        max_bytes: A longer body is an error rather than memory spent.

    Returns:
        The ``httpx2.Response`` with its body read (``.status_code``, ``.headers``, ``.json()``, ``.text``).

    Raises:
        HTTPError: Connection failure, malformed response, refused redirect (``HTTPTimeout``: a phase took too long).
        Aborted: ``signal`` fired.
    """
    client = await load_client()
    return await client.read_whole(method, url, headers=headers, json=json, content=content, timeout=timeout,
                            signal=signal, max_bytes=max_bytes)


def __getattr__(name: str) -> Any:
    if name == "post_sse":  # the providers' streaming POST (pulls in the SSE decoder only when asked)
        from ..ai.providers._http import post_sse

        return post_sse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
