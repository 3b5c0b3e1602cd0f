"""Who may open the page: a one-time pairing token turns into a browser cookie.

``pi serve --web`` prints a URL carrying a random token. The first request that brings it gets a
cookie (HttpOnly, SameSite=Strict: the page's scripts cannot read it and no other site's page
can make the browser send it) and the token is spent. Every page, static file and websocket then
needs that cookie. Both live in memory only, so a restarted server pairs again. Comparisons are
constant-time so timing tells an attacker nothing about a guess.

The cookie's name carries the server's port: browsers keep cookies per host, not per port, so
two servers on 127.0.0.1 (two folders) would otherwise overwrite each other's cookie.
"""

from __future__ import annotations

import hmac
import secrets
from http.cookies import CookieError, SimpleCookie

COOKIE_PREFIX = "pi_web_"
TOKEN_BYTES = 24  # 192 bits: unguessable at any request rate a loopback server can take


def cookie_name(port: int) -> str:
    """The cookie of the server listening on ``port``."""
    return f"{COOKIE_PREFIX}{port}"


class Pairing:
    """The pairing token that is still open and the cookies already given.

    Args:
        name: The cookie's name (:func:`cookie_name`).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._token: str | None = None
        self._cookies: list[str] = []

    def new_token(self) -> str:
        """A fresh one-time token (the previous one, if still unused, stops working)."""
        self._token = secrets.token_urlsafe(TOKEN_BYTES)
        return self._token

    def redeem(self, token: str) -> str | None:
        """Spend ``token``; the new cookie's value when it was the open token, else None."""
        expected = self._token
        if expected is None or not hmac.compare_digest(token.encode(), expected.encode()):
            return None
        self._token = None
        cookie = secrets.token_urlsafe(TOKEN_BYTES)
        self._cookies.append(cookie)
        return cookie

    def admits(self, cookie_header: str | None) -> bool:
        """Whether a request's ``Cookie`` header carries a cookie this server gave."""
        value = cookie_value(cookie_header, self.name)
        if value is None:
            return False
        # Every candidate is compared (no early exit) so the time does not depend on which matched.
        found = False
        for cookie in self._cookies:
            found |= hmac.compare_digest(value.encode(), cookie.encode())
        return found

    def set_cookie_header(self, cookie: str, secure: bool) -> str:
        """The ``Set-Cookie`` value: a session cookie (gone when the browser closes), whole site."""
        return f"{self.name}={cookie}; Path=/; HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")


def cookie_value(header: str | None, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` request header (a malformed header counts as none)."""
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None
