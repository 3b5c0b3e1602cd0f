"""Which proxy a provider request goes through, from the environment as curl and Pi read it.

``HTTPS_PROXY`` for https URLs, ``HTTP_PROXY`` for http ones, ``ALL_PROXY`` for either (each
also in lower case, lower case first, as curl does); ``NO_PROXY`` lists hosts that go direct:
``*``, a host name (which also covers its subdomains; a leading dot is allowed), an IP address
or a CIDR block, each optionally with ``:port``. Pi's ``httpProxy`` setting reaches here as
``HTTP_PROXY``/``HTTPS_PROXY``. Only ``http://`` proxies are spoken (CONNECT for https
targets, absolute-form requests for http ones); another scheme is a clear error.
"""

from __future__ import annotations

import base64
import os
from urllib.parse import unquote, urlsplit

from ...records import record


@record(frozen=True)
class Proxy:
    host: str
    port: int
    authorization: str | None = None
    """``Proxy-Authorization`` value from ``user:password@`` in the proxy URL."""

    @property
    def key(self) -> str:
        return f"{self.host}:{self.port}"


class ProxyConfigError(ValueError):
    """The proxy named in the environment cannot be used (the message names the variable)."""


def _env(*names: str) -> tuple[str, str] | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return name, value
    return None


def _bypassed(host: str, port: int, no_proxy: str) -> bool:
    host = host.lower().strip("[]")
    for raw in no_proxy.split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        name, want_port = entry, None
        if entry.count(":") == 1 and not entry.startswith("["):  # host:port (not a bare IPv6)
            name, _, port_text = entry.partition(":")
            want_port = int(port_text) if port_text.isdigit() else None
        name = name.strip("[]").lstrip(".")
        if want_port is not None and want_port != port:
            continue
        if host == name or host.endswith("." + name):
            return True
        if "/" in name and _in_network(host, name):
            return True
    return False


def _in_network(host: str, block: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(host) in ipaddress.ip_network(block, strict=False)
    except ValueError:
        return False


def proxy_for(scheme: str, host: str, port: int) -> Proxy | None:
    """The proxy for a request to ``scheme://host:port``, or None to connect directly.

    Raises:
        ProxyConfigError: The proxy variable holds a URL pi cannot use.
    """
    names = ("https_proxy", "HTTPS_PROXY") if scheme == "https" else ("http_proxy", "HTTP_PROXY")
    found = _env(*names, "all_proxy", "ALL_PROXY")
    if found is None:
        return None
    bypass = _env("no_proxy", "NO_PROXY")
    if bypass is not None and _bypassed(host, port, bypass[1]):
        return None
    name, value = found
    parts = urlsplit(value if "://" in value else f"http://{value}")
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise ProxyConfigError(f"{name}: only http:// proxies are supported (got a {parts.scheme}:// URL)")
    try:
        proxy_port = parts.port or 80
    except ValueError as exc:
        raise ProxyConfigError(f"{name}: bad port in the proxy URL") from exc
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + base64.b64encode(pair).decode("ascii")
    return Proxy(parts.hostname, proxy_port, authorization)
