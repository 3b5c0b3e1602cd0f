"""Kimi Code (subscription): a device-code sign-in at ``auth.kimi.com`` (``KIMI_CODE_OAUTH_HOST`` or
``KIMI_OAUTH_HOST`` points elsewhere).

A refresh is tried up to four times when the server is busy (429, 5xx, a failed connection), one,
two and four seconds apart; a 401/403 or ``invalid_grant`` means the sign-in is gone and is not
retried. The access token authenticates requests to ``api.kimi.com/coding`` as a bearer token.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

from ..abort import sleep_or_abort
from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .device import PENDING, Poll, poll_device_code, positive
from .pkce import trusted_http_url
from .web import Answer, SignInError, describe, post_form

CLIENT_ID = "17e5f671-d194-4dfb-9706-5516cb48c098"
DEFAULT_OAUTH_HOST = "https://auth.kimi.com"
DEVICE_CODE_TIMEOUT = 15 * 60.0
DEFAULT_INTERVAL = 5.0
REFRESH_MAX_RETRIES = 3
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


def oauth_host() -> str:
    override = os.environ.get("KIMI_CODE_OAUTH_HOST") or os.environ.get("KIMI_OAUTH_HOST")
    return (override or DEFAULT_OAUTH_HOST).rstrip("/")


def _tokens(body: dict[str, Any] | None, operation: str) -> dict[str, Any]:
    body = body or {}
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), positive(body.get("expires_in"))
    if not isinstance(access, str) or not access or not isinstance(refresh, str) or not refresh or expires_in is None:
        raise SignInError(f"Kimi Code token {operation} response missing fields ({describe(body)})")
    return {"type": "oauth", "access": access, "refresh": refresh, "expires": int(time.time() * 1000 + expires_in * 1000)}


async def _post(url: str, fields: dict[str, str], signal: Any, **kwargs: Any) -> Answer:
    return await post_form(url, fields, signal=signal, headers=_HEADERS, **kwargs)


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Show a device code and wait until the user approved it."""
    host, signal = oauth_host(), callbacks.signal
    answer = await _post(f"{host}/api/oauth/device_authorization", {"client_id": CLIENT_ID}, signal)
    if not answer.ok:
        raise SignInError(f"Kimi Code device authorization failed with status {answer.status}"
                          + (f": {answer.text}" if answer.text else ""))
    body = answer.json() or {}
    device_code, user_code = body.get("device_code"), body.get("user_code")
    uri, complete = trusted_http_url(body.get("verification_uri")), trusted_http_url(body.get("verification_uri_complete"))
    if not isinstance(device_code, str) or not isinstance(user_code, str) or not uri or not complete:
        raise SignInError(f"Invalid Kimi Code device authorization response ({describe(body)})")
    interval = positive(body.get("interval")) or DEFAULT_INTERVAL
    expires_in = positive(body.get("expires_in")) or DEVICE_CODE_TIMEOUT
    callbacks.on_device_code(user_code, complete, interval=interval, expires_in=expires_in)

    async def poll() -> Poll:
        reply = await _post(f"{host}/api/oauth/token", {"client_id": CLIENT_ID, "device_code": device_code,
                                                         "grant_type": DEVICE_GRANT}, signal)
        if reply.status >= 500:
            return Poll("failed", message=f"Kimi Code device token request failed with status {reply.status}"
                                          + (f": {reply.text}" if reply.text else ""))
        data = reply.json()
        if reply.ok and isinstance((data or {}).get("access_token"), str):
            try:
                return Poll("complete", _tokens(data, "poll"))
            except SignInError as exc:
                return Poll("failed", message=str(exc))
        error = (data or {}).get("error")
        if error == "authorization_pending":
            return PENDING
        if error == "slow_down":
            return Poll("slow_down", interval=positive((data or {}).get("interval")))
        if error == "expired_token":
            return Poll("failed", message="Kimi Code device authorization expired. Please restart login.")
        if error == "access_denied":
            return Poll("failed", message="Kimi Code login was denied.")
        description = (data or {}).get("error_description")
        suffix = f": {error}" + (f": {description}" if isinstance(description, str) else "") if isinstance(error, str) else ""
        return Poll("failed", message=f"Kimi Code device token request failed (status {reply.status}){suffix}")

    tokens: dict[str, Any] = await poll_device_code(poll, signal=signal, interval=interval, expires_in=expires_in,
                                                    wait_first=True)
    return tokens


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """New tokens, asking again while the server is busy; a dead sign-in fails at once."""
    host = oauth_host()
    last: Exception | None = None
    for attempt in range(REFRESH_MAX_RETRIES + 1):
        if attempt and await sleep_or_abort(2.0 ** (attempt - 1), signal):
            raise OAuthLoginCancelled("Kimi Code token refresh aborted")
        if signal is not None and signal.aborted:
            raise OAuthLoginCancelled("Kimi Code token refresh aborted")
        try:
            answer = await _post(f"{host}/api/oauth/token", {"client_id": CLIENT_ID, "grant_type": "refresh_token",
                                                              "refresh_token": str(credentials.get("refresh", ""))},
                                 signal, cancel_message="Kimi Code token refresh aborted")
        except SignInError as exc:
            last = exc
            continue
        body = answer.json()
        if answer.ok:
            return _tokens(body, "refresh")
        if answer.status in (401, 403) or (body or {}).get("error") == "invalid_grant":
            description = (body or {}).get("error_description")
            raise SignInError(f"Kimi Code token refresh unauthorized (status {answer.status})"
                              + (f": {description}" if isinstance(description, str) else ""))
        if (answer.status == 429 or answer.status >= 500) and attempt < REFRESH_MAX_RETRIES:
            last = SignInError(f"Kimi Code token refresh failed with status {answer.status}")
            continue
        raise SignInError(f"Kimi Code token refresh failed with status {answer.status}: {json.dumps(body)}")
    raise last or SignInError("Kimi Code token refresh failed")


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    # Pi passes the token as an Authorization header; as the key, the OpenAI-compatible wire sends the
    # same "Authorization: Bearer <token>".
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)
