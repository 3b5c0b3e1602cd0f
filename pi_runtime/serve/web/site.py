"""``pi serve --web`` put together: the web server, and what each browser connection runs.

Kept apart from ``server.py`` (HTTP rules) and ``bridge.py`` (one page's app) so that the choice
of what a page shows (``child.py``) and the lines printed for the user sit in one place.
"""

from __future__ import annotations

import os
import ssl
import sys
from typing import TYPE_CHECKING

from .assets import AssetsMissing
from .bridge import BrowserBridge
from .child import BrowserTarget, browser_command
from .options import WebSetup, is_loopback
from .server import WebServer

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from ..server import ServeServer

__all__ = ["WebSetup", "WebStartError", "print_new_link", "start_site"]


class WebStartError(RuntimeError):
    """The browser's server cannot start (one line for the user)."""


def _say(line: str) -> None:
    print(f"pi serve: {line}", flush=True)


def _show_link(url: str, phone_can_reach: bool) -> None:
    """The pairing link, and a QR code of it for a phone's camera when a phone could open it
    (not on loopback: 127.0.0.1 on a phone is the phone) and a person is looking (a terminal,
    not a log file)."""
    print(f"  {url}", flush=True)
    if phone_can_reach and sys.stdout.isatty():
        import segno  # 33 ms, only here

        segno.make(url, error="l").terminal(out=sys.stdout, compact=True)
        sys.stdout.flush()


async def start_site(server: ServeServer, setup: WebSetup) -> WebServer:
    """Listen for browsers and print the pairing URL.

    Raises:
        WebStartError: The port is taken, TLS files do not load, or textual-serve is missing.
    """

    async def on_browser(websocket: ServerConnection, width: int, height: int) -> None:
        target = BrowserTarget(server.socket_path, setup.page_flags)
        await BrowserBridge(websocket, browser_command(target, width), server.folder, width, height).run()

    def on_paired() -> None:
        # The link just used is spent. A fresh one for the next device is printed at once only
        # on a terminal: on a log file an unused link would wait for whoever reads the log.
        if sys.stdout.isatty():
            _say("a browser paired; another device can pair with this link (once):")
            _show_link(site.pairing_url(), not is_loopback(options.host))
        else:
            _say(f"a browser paired; for another device's link: kill -USR1 {os.getpid()}")

    site = WebServer(setup.options, server.folder, on_browser, on_paired)
    options = setup.options
    try:
        url = await site.start()
    except AssetsMissing as exc:
        raise WebStartError(str(exc)) from None
    except ssl.SSLError as exc:
        raise WebStartError(f"--web-cert/--web-key cannot be loaded: {exc.reason or exc}") from None
    except OSError as exc:
        # asyncio words a failed bind its own way, with the address again; the errno's text is enough.
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise WebStartError(f"cannot listen on {options.host}:{options.port}: {reason}") from None
    where = "this machine only" if is_loopback(options.host) else "other machines too, over TLS"
    _say(f"browser page on {site.options.origin} ({where}); open this link once to pair a browser:")
    _show_link(url, not is_loopback(options.host))
    return site


def print_new_link(site: WebServer) -> None:
    """A fresh pairing link on stdout (``pi serve`` runs this on SIGUSR1); the previous unspent one stops working."""
    _say("a link to pair another browser (once):")
    _show_link(site.pairing_url(), not is_loopback(site.options.host))
