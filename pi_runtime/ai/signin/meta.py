"""Meta (Muse subscription): a device-code sign-in at ``auth.meta.com``, then a minted Model API key.

The identity token the device flow yields is not accepted for inference; it is traded at
``api.meta.ai/muse-code/key`` for an API key that lives about a day. The identity token is stored
as ``refresh`` and the key as ``access``, so a "refresh" mints a new key. The identity token itself
cannot be renewed: when minting answers 401/403 the user has to sign in again.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .device import PENDING, Poll, poll_device_code, positive
from .pkce import trusted_http_url
from .web import SignInError, describe, post_form, send

CLIENT_ID = "1031625952748946"
AUTH_HOST = "https://auth.meta.com"
DEVICE_AUTHORIZATION_URL = f"{AUTH_HOST}/oidc/device/authorization/"
DEVICE_TOKEN_URL = f"{AUTH_HOST}/oidc/device/token/"
API_KEY_MINT_URL = "https://api.meta.ai/muse-code/key"
API_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


def _detail(body: dict[str, Any] | None) -> str:
    for key in ("error_description", "detail", "message", "error"):
        value = (body or {}).get(key)
        if isinstance(value, str) and value.strip():
            return f": {value.strip()}"
    return ""


async def mint_key(identity_token: str, signal: Any) -> dict[str, Any]:
    """A Model API key for the identity token."""
    answer = await send("POST", API_KEY_MINT_URL, body="{}", signal=signal, headers={
        "Accept": "application/json", "Authorization": f"Bearer {identity_token}",
        "Content-Type": "application/json", "x-api-version": "1.0.0"})
    body = answer.json()
    if answer.status in (401, 403):
        raise SignInError(f"Meta session expired (status {answer.status}). Run `/login meta` to sign in again."
                          + _detail(body))
    if not answer.ok:
        raise SignInError(f"Meta API key mint failed with status {answer.status}{_detail(body)}")
    key = (body or {}).get("api_key")
    if not isinstance(key, str) or not key:
        action = trusted_http_url((body or {}).get("action_url"))
        raise SignInError("Meta did not issue an API key." + (f" Complete setup at {action}" if action else ""))
    return {"type": "oauth", "refresh": identity_token, "access": key,
            "expires": int(time.time() * 1000 + API_KEY_LIFETIME_MS)}


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Show a device code, wait for approval, then mint the first key."""
    signal = callbacks.signal
    answer = await post_form(DEVICE_AUTHORIZATION_URL, {"client_id": CLIENT_ID}, headers=_HEADERS, signal=signal)
    body = answer.json()
    if not answer.ok:
        raise SignInError(f"Meta device authorization failed with status {answer.status}{_detail(body)}")
    body = body or {}
    device_code, user_code = body.get("device_code"), body.get("user_code")
    page = trusted_http_url(body.get("verification_uri_complete")) or trusted_http_url(body.get("verification_uri"))
    if not isinstance(device_code, str) or not device_code or not isinstance(user_code, str) or not user_code or not page:
        raise SignInError(f"Invalid Meta device authorization response ({describe(body)})")
    interval, expires_in = positive(body.get("interval")), positive(body.get("expires_in"))
    callbacks.on_device_code(user_code, page, interval=interval, expires_in=expires_in)

    async def poll() -> Poll:
        reply = await post_form(DEVICE_TOKEN_URL, {"grant_type": DEVICE_GRANT, "device_code": device_code,
                                                   "client_id": CLIENT_ID}, headers=_HEADERS, signal=signal)
        data = reply.json()
        token = (data or {}).get("access_token")
        if reply.ok and isinstance(token, str) and token:
            return Poll("complete", token)
        error = (data or {}).get("error")
        if error == "authorization_pending":
            return PENDING
        if error == "slow_down":
            return Poll("slow_down", interval=positive((data or {}).get("interval")))
        if error == "access_denied":
            return Poll("failed", message="Meta login was denied.")
        if error == "expired_token":
            return Poll("failed", message="Meta device authorization expired. Please restart login.")
        return Poll("failed", message=f"Meta device token request failed with status {reply.status}{_detail(data)}")

    identity = await poll_device_code(poll, signal=signal, interval=interval, expires_in=expires_in, wait_first=True)
    callbacks.on_progress("Enabling Meta Model API access...")
    if signal.aborted:
        raise OAuthLoginCancelled("Login cancelled")
    return await mint_key(identity, signal)


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """Mint a new key with the stored identity token."""
    return await mint_key(str(credentials.get("refresh", "")), signal)


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)
