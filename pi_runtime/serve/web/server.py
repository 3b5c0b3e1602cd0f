"""The browser's HTTP and websocket server: pairing, the page, its static files, ``/ws``.

Built on the ``websockets`` library (already pi's websocket client): its HTTP/1.1 parser reads
what browsers send, ``process_request`` answers plain pages before any upgrade, and only ``/ws``
goes on to the websocket handshake. Rules, checked in this order on every request:

1. ``Host`` must name this server as the pairing URL does (a page of another site whose name was
   pointed at 127.0.0.1, "DNS rebinding", sends its own name and is refused);
2. ``/?token=…`` spends the pairing token: a cookie and a redirect to ``/`` (the token leaves the
   address bar and the history), or 403 when it was spent or never issued;
3. anything else needs the cookie: 401 without it;
4. ``/ws`` also needs ``Origin`` to be this server's own origin (a foreign or missing one: 403),
   so no other site's page can drive the app even if it could make the browser send the cookie.

Nothing here logs a request: the token is in the pairing URL and the cookie in every request.
"""

from __future__ import annotations

import http
import logging
import ssl
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .assets import Asset, load_assets, render_page
from .options import WebOptions
from .pairing import Pairing, cookie_name

BrowserHandler = Callable[[ServerConnection, int, int], Awaitable[None]]
"""Runs one browser connection: the upgraded websocket and the page's terminal size (columns, rows)."""

# A logger that says nothing: the library's own messages name rejected handshakes and paths.
_QUIET = logging.getLogger("pi.serve.web.quiet")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def _size(query: dict[str, list[str]], name: str, default: int) -> int:
    try:
        value = int(query.get(name, [str(default)])[0])
    except ValueError:
        return default
    return min(max(value, 10), 1000)


class WebServer:
    """Args:
    options: Where to listen (``port`` 0: any free port; :attr:`options` then has the real one).
    folder: The served folder (the page's title).
    on_browser: What each accepted ``/ws`` connection runs.
    on_paired: Called with no argument when a browser spends the token (a line for the terminal).
    """

    def __init__(self, options: WebOptions, folder: str, on_browser: BrowserHandler,
                 on_paired: Callable[[], None] | None = None) -> None:
        self.options = options
        self.folder = folder
        self.pairing = Pairing(cookie_name(options.port))
        self._on_browser = on_browser
        self._on_paired = on_paired
        self._assets: dict[str, Asset] = {}
        self._server: Server | None = None
        self._page = b""
        self._host_header = ""
        """What ``Host`` must say: the origin without its scheme (known once the port is)."""

    async def start(self) -> str:
        """Listen; returns the pairing URL (with a fresh one-time token).

        Raises:
            AssetsMissing: textual-serve (the terminal client) is not installed.
            OSError: The address cannot be bound.
            ssl.SSLError: The certificate or key cannot be loaded.
        """
        self._assets = load_assets()
        context = None
        if self.options.cert is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(self.options.cert, self.options.key)
        self._server = await serve(
            self._handle, self.options.host, self.options.port, process_request=self._process_request,
            server_header=None, logger=_QUIET, ssl=context, compression=None, max_size=1 << 20,
        )
        port = self._server.sockets[0].getsockname()[1]
        self.pairing = Pairing(cookie_name(port))
        self.options = WebOptions(self.options.host, port, self.options.cert, self.options.key)
        self._host_header = self.options.origin.split("://", 1)[1]
        scheme = "wss" if self.options.tls else "ws"
        self._page = render_page(self.folder, f"{scheme}://{self._host_header}/ws")
        return self.pairing_url()

    def pairing_url(self) -> str:
        """A URL with a fresh one-time token (the previous unspent one stops working)."""
        return f"{self.options.origin}/?token={self.pairing.new_token()}"

    async def close(self) -> None:
        """Stop listening and close every browser connection (their handlers finish their cleanup)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    # -- requests -------------------------------------------------------------------------------

    def _respond(self, status: http.HTTPStatus, body: bytes = b"", content_type: str = "text/plain; charset=utf-8",
                 extra: dict[str, str] | None = None) -> Response:
        headers = Headers()
        if not body and status != http.HTTPStatus.OK:
            body = f"{status.value} {status.phrase}\n".encode()
        headers["Content-Type"] = content_type
        headers["Content-Length"] = str(len(body))
        headers["Cache-Control"] = "no-store"
        headers["Referrer-Policy"] = "no-referrer"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        scheme = "wss" if self.options.tls else "ws"
        # Only this server's files and websocket; inline <style> is textual.js's own (xterm).
        headers["Content-Security-Policy"] = (
            f"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; "
            f"img-src 'self' data:; connect-src {scheme}://{self._host_header}; frame-ancestors 'none'; "
            "base-uri 'none'; form-action 'none'"
        )
        for name, value in (extra or {}).items():
            headers[name] = value
        return Response(status.value, status.phrase, headers, body)

    def _text(self, status: http.HTTPStatus, text: str) -> Response:
        return self._respond(status, text.encode() + b"\n")

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        host = request.headers.get("Host", "")
        if host.lower() != self._host_header.lower():
            return self._text(http.HTTPStatus.FORBIDDEN, f"This server answers only as {self._host_header}.")
        target = urlsplit(request.path)
        query = parse_qs(target.query)
        paired = self.pairing.admits(request.headers.get("Cookie"))
        if target.path == "/" and "token" in query:
            cookie = self.pairing.redeem(query["token"][0])
            if cookie is None and paired:
                # This browser is paired already (the link reopened from its history): just the page.
                return self._respond(http.HTTPStatus.SEE_OTHER, extra={"Location": "/"})
            if cookie is None:
                return self._text(http.HTTPStatus.FORBIDDEN,
                                  "This pairing link was already used or is not valid. Pair again with the "
                                  "link pi serve prints.")
            if self._on_paired is not None:
                self._on_paired()
            return self._respond(http.HTTPStatus.SEE_OTHER, extra={
                "Location": "/", "Set-Cookie": self.pairing.set_cookie_header(cookie, self.options.tls)})
        if not paired:
            return self._text(http.HTTPStatus.UNAUTHORIZED,
                              "Not paired: open the pairing link pi serve printed (it works once).")
        if target.path == "/ws":
            if request.headers.get("Origin") != self.options.origin:
                return self._text(http.HTTPStatus.FORBIDDEN, "Websocket refused: it must come from this server's page.")
            return None  # the websocket handshake goes on (426 when it is no upgrade request)
        if target.path == "/":
            return self._respond(http.HTTPStatus.OK, self._page, "text/html; charset=utf-8")
        asset = self._assets.get(target.path)
        if asset is None:
            return self._text(http.HTTPStatus.NOT_FOUND, "Not found.")
        return self._respond(http.HTTPStatus.OK, asset.body, asset.content_type,
                             extra={"Cache-Control": "private, max-age=3600"})

    async def _handle(self, connection: ServerConnection) -> None:
        request = connection.request
        query = parse_qs(urlsplit(request.path).query) if request is not None else {}
        await self._on_browser(connection, _size(query, "width", 80), _size(query, "height", 24))
