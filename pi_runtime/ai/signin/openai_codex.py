"""OpenAI Codex (ChatGPT Plus/Pro): the Codex CLI's sign-in, by browser or device code.

The browser comes back to ``http://localhost:1455/auth/callback`` (the port the Codex CLI uses too;
when it is taken only the pasted redirect URL works). The device-code method shows a code to enter
at ``auth.openai.com/codex/device`` and polls until OpenAI hands back an authorization code and its
verifier. Either way the code is traded at ``auth.openai.com/oauth/token`` (form bodies) and the
ChatGPT account id is read from the access token's claims and stored as ``accountId``; the
``openai-codex-responses`` wire API sends the access token and that account id.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .callback import CallbackServer, callback_host, callback_or_pasted, start_callback
from .device import PENDING, Poll, poll_device_code
from .pkce import new_pkce, parse_pasted, random_hex
from .web import Answer, SignInError, describe, form, post_json, send

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
AUTH_BASE_URL = "https://auth.openai.com"
AUTHORIZE_URL = f"{AUTH_BASE_URL}/oauth/authorize"
TOKEN_URL = f"{AUTH_BASE_URL}/oauth/token"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
REDIRECT_URI = f"http://localhost:{CALLBACK_PORT}{CALLBACK_PATH}"
DEVICE_USER_CODE_URL = f"{AUTH_BASE_URL}/api/accounts/deviceauth/usercode"
DEVICE_TOKEN_URL = f"{AUTH_BASE_URL}/api/accounts/deviceauth/token"
DEVICE_VERIFICATION_URI = f"{AUTH_BASE_URL}/codex/device"
DEVICE_REDIRECT_URI = f"{AUTH_BASE_URL}/deviceauth/callback"
DEVICE_CODE_TIMEOUT = 15 * 60
SCOPE = "openid profile email offline_access"
ACCOUNT_CLAIM = "https://api.openai.com/auth"

BROWSER, DEVICE_CODE = "browser", "device_code"
METHODS = [{"id": BROWSER, "label": "Browser login (default)"},
           {"id": DEVICE_CODE, "label": "Device code login (headless)"}]
_FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def jwt_claims(token: str) -> dict[str, Any] | None:
    """The claims of a JWT (not verified: only read), or None when ``token`` is not one."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    payload = parts[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


def account_id(access: str) -> str | None:
    """The ChatGPT account id an access token carries."""
    auth = (jwt_claims(access) or {}).get(ACCOUNT_CLAIM)
    value = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
    return value if isinstance(value, str) and value else None


def _tokens(answer: Answer, operation: str) -> dict[str, Any]:
    if not answer.ok:
        raise SignInError(f"OpenAI Codex token {operation} failed ({answer.status}): {answer.text or answer.reason}")
    body = answer.json() or {}
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if not access or not refresh or isinstance(expires_in, bool) or not isinstance(expires_in, (int, float)):
        raise SignInError(f"OpenAI Codex token {operation} response missing fields ({describe(body)})")
    access_id = account_id(str(access))
    if not access_id:
        raise SignInError("Failed to extract accountId from token")
    return {"type": "oauth", "access": access, "refresh": refresh,
            "expires": int(time.time() * 1000 + expires_in * 1000), "accountId": access_id}


async def exchange(code: str, verifier: str, redirect_uri: str, signal: Any) -> dict[str, Any]:
    """Trade an authorization code for tokens and read the account id."""
    answer = await send("POST", TOKEN_URL, headers=_FORM, signal=signal, body=form({
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code,
        "code_verifier": verifier, "redirect_uri": redirect_uri,
    }))
    return _tokens(answer, "exchange")


def authorize_url(challenge: str, state: str, originator: str) -> str:
    query = {"response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI, "scope": SCOPE,
             "code_challenge": challenge, "code_challenge_method": "S256", "state": state,
             "id_token_add_organizations": "true", "codex_cli_simplified_flow": "true", "originator": originator}
    return f"{AUTHORIZE_URL}?{urlencode(query)}"


async def _browser(callbacks: LoginCallbacks) -> dict[str, Any]:
    pkce, state = new_pkce(), random_hex(16)

    async def same(code: str) -> str:
        return code

    callback: CallbackServer[str] | None
    try:
        callback = await start_callback("OpenAI", port=CALLBACK_PORT, path=CALLBACK_PATH, complete=same,
                                        state=state, host=callback_host())
    except OSError:
        callback = None  # the Codex CLI may hold the port: the pasted redirect URL still works
    callbacks.on_auth(authorize_url(pkce.challenge, state, callbacks.agent_name or "pi"),
                      "A browser window should open. Complete login to finish.")
    try:
        code, pasted = await callback_or_pasted(
            callbacks, callback,
            "Complete login in your browser, or paste the authorization code / redirect URL here:", REDIRECT_URI)
        if pasted is not None:
            parsed = parse_pasted(pasted)
            if parsed.state and parsed.state != state:
                raise SignInError("State mismatch")
            code = parsed.code
        if not code:
            raise SignInError("Missing authorization code")
        return await exchange(code, pkce.verifier, REDIRECT_URI, callbacks.signal)
    finally:
        if callback is not None:
            await callback.close()


async def _device_code(callbacks: LoginCallbacks) -> dict[str, Any]:
    signal = callbacks.signal
    answer = await post_json(DEVICE_USER_CODE_URL, {"client_id": CLIENT_ID}, signal=signal)
    if not answer.ok:
        if answer.status == 404:
            raise SignInError("OpenAI Codex device code login is not enabled for this server. "
                              "Use browser login or verify the server URL.")
        raise SignInError(f"OpenAI Codex device code request failed with status {answer.status}"
                          + (f": {answer.text}" if answer.text else ""))
    body = answer.json() or {}
    interval = body.get("interval")
    if isinstance(interval, str):
        try:
            interval = float(interval.strip())
        except ValueError:
            interval = None
    device_id, user_code = body.get("device_auth_id"), body.get("user_code")
    if (not device_id or not user_code or isinstance(interval, bool) or not isinstance(interval, (int, float))
            or interval < 0):
        raise SignInError(f"Invalid OpenAI Codex device code response ({describe(body)})")
    callbacks.on_device_code(str(user_code), DEVICE_VERIFICATION_URI, interval=interval, expires_in=DEVICE_CODE_TIMEOUT)

    async def poll() -> Poll:
        reply = await post_json(DEVICE_TOKEN_URL, {"device_auth_id": device_id, "user_code": user_code},
                                signal=signal)
        if reply.ok:
            data = reply.json() or {}
            if not data.get("authorization_code") or not data.get("code_verifier"):
                return Poll("failed", message=f"Invalid OpenAI Codex device auth token response ({describe(data)})")
            return Poll("complete", (str(data["authorization_code"]), str(data["code_verifier"])))
        if reply.status in (403, 404):
            return PENDING
        error = (reply.json() or {}).get("error")
        code = error.get("code") if isinstance(error, dict) else error
        if code == "deviceauth_authorization_pending":
            return PENDING
        if code == "slow_down":
            return Poll("slow_down")
        return Poll("failed", message=f"OpenAI Codex device auth failed with status {reply.status}"
                                      + (f": {reply.text}" if reply.text else ""))

    authorization_code, verifier = await poll_device_code(poll, signal=signal, interval=float(interval),
                                                          expires_in=DEVICE_CODE_TIMEOUT)
    return await exchange(authorization_code, verifier, DEVICE_REDIRECT_URI, signal)


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Sign in (the user picks the browser or the device-code method)."""
    method = await callbacks.on_select("Select OpenAI Codex login method:", METHODS)
    if method is None:
        raise OAuthLoginCancelled("Login cancelled")
    if method == DEVICE_CODE:
        return await _device_code(callbacks)
    if method != BROWSER:
        raise SignInError(f"Unknown OpenAI Codex login method: {method}")
    return await _browser(callbacks)


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """New tokens for the stored refresh token (the account id is read again)."""
    answer = await send("POST", TOKEN_URL, headers=_FORM, signal=signal, cancel_message="token refresh cancelled",
                        body=form({"grant_type": "refresh_token", "refresh_token": str(credentials.get("refresh", "")),
                                   "client_id": CLIENT_ID}))
    return _tokens(answer, "refresh")


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)
