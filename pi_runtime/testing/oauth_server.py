"""A tiny OAuth token endpoint on 127.0.0.1, for tests of extension OAuth providers.

``POST /token`` takes JSON ``{"grant_type": "authorization_code", "code": ...}`` or
``{"grant_type": "refresh_token", "refresh_token": ...}`` and answers like an OAuth server:
``{"access_token", "refresh_token", "expires_in"}``, or 400 ``{"error": "invalid_grant"}``
for a wrong code, a refresh token it did not issue last (they rotate), or while
``fail_refresh`` is set. ``grants`` records every grant type asked for, in order.

Example:
    with OAuthTokenServer(code="abc") as auth:
        ... an extension's login posts the code the user pasted to f"{auth.url}/token" ...
        assert auth.grants == ["authorization_code"]
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .loopback import LoopbackServer, RecordedRequest, Reply


class OAuthTokenServer:
    """Issues ``access-N`` / ``refresh-N`` tokens; the newest refresh token is the only valid one.

    Args:
        code: The authorization code a login must present.
        expires_in: Lifetime in seconds of each access token it issues.
    """

    def __init__(self, code: str = "the-code", expires_in: int = 3600) -> None:
        self.code = code
        self.expires_in = expires_in
        self.fail_refresh = False
        self.delay = 0.0
        """Seconds each token answer waits before it is sent (a slow server)."""
        self.grants: list[str] = []
        self.valid_refresh: str | None = None
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._server = LoopbackServer(self._respond)

    @property
    def url(self) -> str:
        return self._server.url

    def __enter__(self) -> OAuthTokenServer:
        self._server.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving; a token answer still waiting out ``delay`` is cut off at once."""
        self._server.stop()

    def _respond(self, request: RecordedRequest) -> Reply:
        if request.method != "POST" or request.path.split("?")[0] != "/token":
            return Reply.json(404, {"error": "not_found"})
        try:
            body = request.json() or {}
        except ValueError:
            return Reply.json(400, {"error": "invalid_request"})
        grant = str(body.get("grant_type"))
        with self._lock:
            self.grants.append(grant)
            if grant == "authorization_code" and body.get("code") == self.code:
                return self._issue()
            if (grant == "refresh_token" and not self.fail_refresh
                    and body.get("refresh_token") == self.valid_refresh):
                return self._issue()
        return Reply.json(400, {"error": "invalid_grant"})

    def _issue(self) -> Reply:
        n = next(self._counter)
        self.valid_refresh = f"refresh-{n}"
        reply = Reply.json(200, {"access_token": f"access-{n}", "refresh_token": self.valid_refresh,
                                 "expires_in": self.expires_in, "token_type": "Bearer"})
        if self.delay:
            reply.pieces.insert(0, self.delay)
        return reply


@contextmanager
def fixture_servers(setenv: Callable[[str, str], None]) -> Iterator[tuple[OAuthTokenServer, LoopbackServer]]:
    """A token server and a loopback model server, their URLs in ``PI_TEST_OAUTH_URL`` and
    ``PI_TEST_LLM_URL`` (where ``tests/fixtures/oauth_provider_ext.py`` reads them)."""
    with OAuthTokenServer(code="the-code") as auth, LoopbackServer() as llm:
        setenv("PI_TEST_OAUTH_URL", auth.url)
        setenv("PI_TEST_LLM_URL", llm.url)
        yield auth, llm
