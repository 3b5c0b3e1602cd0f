"""The HTTP calls of the sign-in flows: through pi's client (proxies, trust store), cancellable.

Bodies are encoded as Pi encodes them (compact JSON, ``application/x-www-form-urlencoded`` with
``+`` for spaces, keys in the order given), so the servers see the same bytes from either program.
A request that fails below HTTP (refused, timed out) raises :class:`SignInError` naming the URL; the
abort signal firing raises :class:`~pi_runtime.ai.oauth.OAuthLoginCancelled`.
"""

from __future__ import annotations

import json as jsonlib
from dataclasses import field
from typing import Any
from urllib.parse import urlencode

from ...records import record
from ..abort import AbortSignal
from ..oauth import OAuthError, OAuthLoginCancelled

REQUEST_TIMEOUT = 30.0
"""Seconds a sign-in request may take (Pi bounds its own at 30 s)."""


class SignInError(OAuthError):
    """A sign-in step failed; the message says which and never holds a token."""


@record
class Answer:
    """A server's answer: status, text, and the body as a JSON object when it is one."""

    status: int
    text: str
    reason: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers, names in lower case."""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def json(self) -> dict[str, Any] | None:
        """The body as a JSON object; None when it is not JSON or not an object."""
        try:
            value = jsonlib.loads(self.text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


def form(fields: dict[str, str]) -> str:
    """``application/x-www-form-urlencoded`` as the WHATWG ``URLSearchParams`` writes it."""
    return urlencode(fields)


def compact_json(value: Any) -> str:
    """JSON without spaces, as ``JSON.stringify`` writes it."""
    return jsonlib.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def send(method: str, url: str, *, headers: dict[str, str] | None = None, body: str | None = None,
               signal: AbortSignal | None = None, timeout: float = REQUEST_TIMEOUT,
               cancel_message: str = "Login cancelled") -> Answer:
    """Send one request and read the answer (any status).

    Raises:
        OAuthLoginCancelled: ``signal`` fired (its message is ``cancel_message``).
        SignInError: No HTTP answer (connection refused, timed out, broken).
    """
    from ...http import Aborted, HTTPError, request

    if signal is not None and signal.aborted:
        raise OAuthLoginCancelled(cancel_message)
    try:
        response = await request(method, url, headers=headers, content=body, timeout=timeout, signal=signal)
    except Aborted:
        raise OAuthLoginCancelled(cancel_message) from None
    except HTTPError as exc:
        raise SignInError(f"{method} {url} failed: {exc}") from None
    return Answer(response.status_code, response.text, response.reason_phrase or "",
                  {k.lower(): v for k, v in response.headers.items()})


async def post_form(url: str, fields: dict[str, str], *, signal: AbortSignal | None = None,
                    headers: dict[str, str] | None = None, **kwargs: Any) -> Answer:
    """POST ``fields`` form-encoded, asking for JSON back."""
    sent = {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
    return await send("POST", url, headers=sent, body=form(fields), signal=signal, **kwargs)


async def post_json(url: str, value: Any, *, signal: AbortSignal | None = None,
                    headers: dict[str, str] | None = None, **kwargs: Any) -> Answer:
    """POST ``value`` as compact JSON."""
    sent = {"Content-Type": "application/json", **(headers or {})}
    return await send("POST", url, headers=sent, body=compact_json(value), signal=signal, **kwargs)


def describe(body: dict[str, Any] | None) -> str:
    """What a JSON answer held, without its values (an answer may carry a token): its field names."""
    if body is None:
        return "no JSON object"
    return "fields: " + (", ".join(sorted(body)) or "none")


def detail(body: dict[str, Any] | None, *keys: str) -> str:
    """``": <first of keys that is a non-empty string>"`` (an OAuth ``error_description``), else ``""``."""
    for key in keys:
        value = (body or {}).get(key)
        if isinstance(value, str) and value.strip():
            return f": {value.strip()}"
    return ""
