"""xAI (SuperGrok or X Premium): a device-code sign-in at ``auth.x.ai``.

The user opens the verification page (with the code filled in when xAI gives such a link) and pi
polls the token endpoint. A refresh may come back without a new refresh token (xAI did not rotate
it): the old one is kept. The access token is the request key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..oauth import LoginCallbacks
from . import RequestCredentials
from .device import PENDING, Poll, poll_device_code, positive
from .web import Answer, SignInError, post_form

CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
SCOPE = "openid profile email offline_access grok-cli:access api:access"
DEVICE_CODE_URL = "https://auth.x.ai/oauth2/device/code"
TOKEN_URL = "https://auth.x.ai/oauth2/token"
REFRESH_SKEW_MS = 5 * 60 * 1000
DEFAULT_LIFETIME = 3600
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def _required(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise SignInError(f"Invalid xAI OAuth response field: {key}")
    return value


def _positive(body: dict[str, Any], key: str) -> float:
    value = positive(body.get(key))
    if value is None:
        raise SignInError(f"Invalid xAI OAuth response field: {key}")
    return value


def _https(url: str) -> str:
    """A verification URL xAI sent, if it is https (it is opened in a browser)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is None or parts.scheme != "https" or not parts.netloc:
        raise SignInError("Untrusted verification URI in xAI OAuth response")
    return url if parts.path else url + "/"


def _body(answer: Answer) -> dict[str, Any]:
    try:
        value = json.loads(answer.text)
    except ValueError:
        raise SignInError(f"xAI OAuth returned invalid JSON (HTTP {answer.status})") from None
    return value if isinstance(value, dict) else {}


def _failure(action: str, answer: Answer, body: dict[str, Any]) -> SignInError:
    parts = [v for v in (body.get("error"), body.get("error_description")) if isinstance(v, str) and v]
    return SignInError(f"xAI OAuth {action} failed (HTTP {answer.status})" + (f": {': '.join(parts)}" if parts else ""))


def _credentials(body: dict[str, Any], previous_refresh: str | None = None) -> dict[str, Any]:
    access = _required(body, "access_token")
    refresh = previous_refresh if body.get("refresh_token") is None and previous_refresh else _required(body, "refresh_token")
    lifetime = DEFAULT_LIFETIME if body.get("expires_in") is None else _positive(body, "expires_in")
    return {"type": "oauth", "access": access, "refresh": refresh,
            "expires": int(time.time() * 1000 + lifetime * 1000 - REFRESH_SKEW_MS)}


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Show a device code and wait until the user approved it."""
    signal = callbacks.signal
    answer = await post_form(DEVICE_CODE_URL, {"client_id": CLIENT_ID, "scope": SCOPE, "referrer": "pi"}, signal=signal)
    body = _body(answer)
    if not answer.ok:
        raise _failure("device authorization", answer, body)
    interval = positive(body.get("interval"))  # 0 (allowed by the RFC) means: the default
    complete = body.get("verification_uri_complete")
    page = _https(complete) if isinstance(complete, str) and complete else None
    device_code, user_code = _required(body, "device_code"), _required(body, "user_code")
    uri = _https(_required(body, "verification_uri"))
    expires_in = _positive(body, "expires_in")
    callbacks.on_device_code(user_code, page or uri, interval=interval, expires_in=expires_in)

    async def poll() -> Poll:
        reply = await post_form(TOKEN_URL, {"grant_type": DEVICE_GRANT, "client_id": CLIENT_ID,
                                            "device_code": device_code}, signal=signal)
        data = _body(reply)
        if reply.ok:
            return Poll("complete", _credentials(data))
        error = data.get("error")
        if error == "authorization_pending":
            return PENDING
        if error == "slow_down":
            return Poll("slow_down", interval=positive(data.get("interval")))
        if error in ("access_denied", "authorization_denied"):
            return Poll("failed", message="xAI device authorization was denied")
        if error == "expired_token":
            return Poll("failed", message="xAI device code expired")
        return Poll("failed", message=str(_failure("device token polling", reply, data)))

    result: dict[str, Any] = await poll_device_code(poll, signal=signal, interval=interval, expires_in=expires_in,
                                                    wait_first=True)
    return result


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """New tokens; the old refresh token stays when xAI sends none."""
    old = str(credentials.get("refresh", ""))
    answer = await post_form(TOKEN_URL, {"grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": old},
                             signal=signal, cancel_message="token refresh cancelled")
    body = _body(answer)
    if not answer.ok:
        raise _failure("token refresh", answer, body)
    return _credentials(body, old)


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)
