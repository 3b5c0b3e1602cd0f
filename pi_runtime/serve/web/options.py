"""The ``--web*`` flags of ``pi serve``: where the browser's HTTP server listens, and with what TLS.

Loopback (127.0.0.1, ::1, localhost) is the default and needs nothing more. Any other address
means other machines can reach the page and its websocket, so it is refused unless a certificate
and key are given: the cookie and every keystroke would otherwise cross the network in clear.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

DEFAULT_HOST = "127.0.0.1"


class WebOptionsError(ValueError):
    """A ``--web*`` flag is missing a value or the combination is unsafe (one line for the user)."""


@dataclass(frozen=True, slots=True)
class WebOptions:
    host: str = DEFAULT_HOST
    """The address to listen on; also the host name the browser must use (the page's origin)."""
    port: int = 0
    """0: any free port (the pairing URL says which)."""
    cert: str | None = None
    key: str | None = None

    @property
    def tls(self) -> bool:
        return self.cert is not None

    @property
    def origin(self) -> str:
        """The page's own origin once ``port`` is known: the only Origin ``/ws`` accepts."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class WebSetup:
    """What ``pi serve --web`` was asked for."""

    options: WebOptions
    page_flags: list[str]
    """``pi serve``'s session flags, for a page that runs its own session (``child.py``)."""


FLAGS = ("--web", "--web-host", "--web-port", "--web-cert", "--web-key")
"""Every flag this module reads (``--web`` takes no value, the others one)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_web_flags(values: dict[str, str]) -> WebOptions:
    """Build the options from ``{flag: value}`` (``--web`` itself carries no value).

    Raises:
        WebOptionsError: A bad port, half a TLS pair, a missing file, or a non-loopback address
            without TLS, or an address that names no single host (0.0.0.0, ::).
    """
    host = values.get("--web-host", DEFAULT_HOST)
    port_text = values.get("--web-port", "0")
    try:
        port = int(port_text)
    except ValueError:
        raise WebOptionsError(f"--web-port must be a number, not {port_text!r}") from None
    if not 0 <= port <= 65535:
        raise WebOptionsError(f"--web-port must be between 0 and 65535, not {port}")
    cert, key = values.get("--web-cert"), values.get("--web-key")
    if (cert is None) != (key is None):
        raise WebOptionsError("--web-cert and --web-key go together (the certificate and its private key)")
    for path in (cert, key):
        if path is not None and not os.path.isfile(path):
            raise WebOptionsError(f"no such file: {path}")
    try:
        unspecified = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        unspecified = False
    if unspecified:
        # The page's origin must name the host the browser uses; "every interface" names none.
        raise WebOptionsError(f"--web-host {host} names no single address; give the one browsers will use")
    if not is_loopback(host) and cert is None:
        raise WebOptionsError(
            f"--web-host {host} would let other machines reach the page; that needs TLS "
            "(--web-cert FILE --web-key FILE), or keep the default 127.0.0.1 and use your own tunnel"
        )
    return WebOptions(host=host, port=port, cert=cert, key=key)
