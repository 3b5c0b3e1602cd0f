"""Radius: sign in to a Radius gateway (``radius.pi.dev``, or one configured in models.json).

The gateway serves its own OAuth endpoints (``/v1/oauth/token``, ``/v1/oauth/device``); only the
browser authorization page is discovered (``GET /v1/oauth``). Two methods: the browser returns to
``http://127.0.0.1:1456/oauth/callback`` and the code is exchanged right there, or a device code is
entered on another device. Tokens are refreshed at the gateway; the access token is the request key.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .callback import start_callback
from .device import PENDING, Poll, poll_device_code
from .pkce import new_pkce, trusted_http_url
from .web import Answer, SignInError, form, send

DEFAULT_GATEWAY = "https://radius.pi.dev"
CALLBACK_HOST = "127.0.0.1"
CALLBACK_PORT = 1456
CALLBACK_PATH = "/oauth/callback"
REDIRECT_URI = f"http://{CALLBACK_HOST}:{CALLBACK_PORT}{CALLBACK_PATH}"
EXPIRY_SKEW_MS = 60_000
CLIENT_ID = "pi-gateway"
SCOPE = "gateway offline_access"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
BROWSER, DEVICE_CODE = "browser", "device-code"
_HEADERS = {"accept": "application/json", "content-type": "application/x-www-form-urlencoded"}


def normalize_gateway(value: str) -> str:
    """``https://`` added when missing, trailing slashes removed."""
    with_scheme = value if re.match(r"^https?://", value, re.IGNORECASE) else f"https://{value}"
    return with_scheme.rstrip("/")


class OAuthAnswerError(SignInError):
    """The gateway answered with an OAuth error (``error``, ``error_description``)."""

    def __init__(self, answer: Answer, what: str) -> None:
        error = description = None
        if answer.text:
            try:
                data = json.loads(answer.text)
                error = data.get("error") if isinstance(data.get("error"), str) else None
                description = data.get("error_description") if isinstance(data.get("error_description"), str) else None
            except (ValueError, AttributeError):
                description = answer.text
        shown = (f"{error}: {description}" if description else error) if error else (description or str(answer.status))
        super().__init__(f"{what}: {shown}")
        self.status = answer.status
        self.oauth_error = error


class Radius:
    """The Radius sign-in for one gateway."""

    def __init__(self, gateway: str = DEFAULT_GATEWAY, name: str = "Radius") -> None:
        self.gateway = normalize_gateway(gateway)
        self.name = name

    async def _token(self, fields: dict[str, str], signal: Any, cancel_message: str = "Login cancelled") -> dict[str, Any]:
        answer = await send("POST", f"{self.gateway}/v1/oauth/token", headers=_HEADERS, body=form(fields),
                            signal=signal, cancel_message=cancel_message)
        if not answer.ok:
            raise OAuthAnswerError(answer, "Radius OAuth token request failed")
        data = answer.json() or {}
        expires_in = data.get("expires_in")
        if (not isinstance(data.get("access_token"), str) or not isinstance(data.get("refresh_token"), str)
                or isinstance(expires_in, bool) or not isinstance(expires_in, (int, float))):
            raise SignInError("Radius OAuth token response is missing required fields")
        credential: dict[str, Any] = {"type": "oauth", "access": data["access_token"], "refresh": data["refresh_token"],
                                      "expires": int(time.time() * 1000 + expires_in * 1000 - EXPIRY_SKEW_MS)}
        if "scope" in data:
            credential["scope"] = data["scope"]
        return credential

    async def _browser(self, callbacks: LoginCallbacks) -> dict[str, Any]:
        signal = callbacks.signal
        found = await send("GET", f"{self.gateway}/v1/oauth", headers={"accept": "application/json"}, signal=signal)
        if not found.ok:
            raise SignInError(f"Could not load Radius OAuth config from {self.gateway}: {found.status} {found.text}")
        endpoint = trusted_http_url((found.json() or {}).get("authorizationEndpoint"))
        if endpoint is None:
            raise SignInError(f"Invalid Radius OAuth config from {self.gateway}")
        pkce, state = new_pkce(), str(uuid.uuid4())
        url = endpoint.split("?", 1)[0] + "?" + urlencode({
            "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI, "scope": SCOPE,
            "code_challenge": pkce.challenge, "code_challenge_method": "S256", "handoff": "url", "state": state})
        callback = await start_callback("Radius", port=CALLBACK_PORT, path=CALLBACK_PATH, state=state, host=CALLBACK_HOST,
                                        complete=lambda code: self._token({
                                            "grant_type": "authorization_code", "client_id": CLIENT_ID,
                                            "redirect_uri": REDIRECT_URI, "code": code,
                                            "code_verifier": pkce.verifier}, signal))
        callbacks.on_progress(f"Listening for OAuth callback on {REDIRECT_URI}")
        callbacks.on_auth(url, "Continue in your browser.")
        try:
            waiting = asyncio.ensure_future(callback.wait())
            cancelled = asyncio.ensure_future(signal.wait())
            try:
                done, _ = await asyncio.wait({waiting, cancelled}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                cancelled.cancel()
                if not waiting.done():
                    waiting.cancel()
            if waiting not in done:
                raise OAuthLoginCancelled("Login cancelled")
            credential = waiting.result()
            if not credential:
                raise SignInError("OAuth callback did not complete.")
            return credential
        finally:
            await callback.close()

    async def _device(self, callbacks: LoginCallbacks) -> dict[str, Any]:
        signal = callbacks.signal
        answer = await send("POST", f"{self.gateway}/v1/oauth/device", headers=_HEADERS, signal=signal,
                            body=form({"client_id": CLIENT_ID, "scope": SCOPE}))
        if not answer.ok:
            raise OAuthAnswerError(answer, "Radius OAuth device authorization failed")
        data = answer.json() or {}
        if not (data.get("device_code") and data.get("user_code") and data.get("verification_uri") and data.get("expires_in")):
            raise SignInError("Radius OAuth device authorization response is missing required fields")
        page = trusted_http_url(data["verification_uri"])
        if page is None:
            raise SignInError("Untrusted verification_uri in Radius OAuth device authorization response")
        interval = data.get("interval") if isinstance(data.get("interval"), (int, float)) else None
        callbacks.on_device_code(str(data["user_code"]), page, interval=interval, expires_in=data["expires_in"])

        async def poll() -> Poll:
            try:
                return Poll("complete", await self._token({"grant_type": DEVICE_GRANT, "client_id": CLIENT_ID,
                                                           "device_code": str(data["device_code"])}, signal))
            except OAuthAnswerError as exc:
                if exc.oauth_error == "authorization_pending":
                    return PENDING
                if exc.oauth_error == "slow_down":
                    return Poll("slow_down")
                if exc.oauth_error == "expired_token":
                    return Poll("failed", message="Device authorization expired.")
                if exc.oauth_error == "access_denied":
                    return Poll("failed", message="Device authorization was denied.")
                raise

        result: dict[str, Any] = await poll_device_code(poll, signal=signal, interval=interval,
                                                        expires_in=float(data["expires_in"]))
        return result

    async def login(self, callbacks: LoginCallbacks) -> dict[str, Any]:
        """Sign in (the user picks the browser or a device code)."""
        method = await callbacks.on_select(f"Sign in to {self.name}:", [
            {"id": BROWSER, "label": "Sign in with browser (recommended)"},
            {"id": DEVICE_CODE, "label": "Sign in with device code (when signing in from another device)"},
        ])
        if method is None:
            raise OAuthLoginCancelled("Login cancelled")
        if method == DEVICE_CODE:
            return await self._device(callbacks)
        if method == BROWSER:
            return await self._browser(callbacks)
        raise SignInError(f"Unknown {self.name} sign-in method: {method}")

    async def refresh(self, credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
        """New tokens for the stored refresh token."""
        return await self._token({"grant_type": "refresh_token", "client_id": CLIENT_ID,
                                  "refresh_token": str(credentials.get("refresh", ""))}, signal,
                                 cancel_message="token refresh cancelled")

    def to_auth(self, credentials: Mapping[str, Any]) -> RequestCredentials:
        return RequestCredentials(api_key=str(credentials.get("access") or "") or None)


def configured(gateway: str | None = None, name: str = "Radius") -> Radius:
    """The flow for ``gateway`` (the public one when None)."""
    return Radius(gateway or DEFAULT_GATEWAY, name)
