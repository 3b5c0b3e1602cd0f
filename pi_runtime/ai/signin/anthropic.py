"""Anthropic (Claude Pro/Max): authorization code with PKCE, a loopback callback or a pasted code.

Two methods, as in Pi: the browser comes back to ``http://localhost:53692/callback`` (another free
port when that one is taken; the redirect can also be pasted), or, headless, Anthropic shows a
``code#state`` to copy back. Tokens are exchanged and refreshed at ``platform.claude.com`` with JSON
bodies. The access token (``sk-ant-oat...``) is the request key; ``anthropic_messages`` sends it as a
bearer token with Claude Code's identity (see ``providers/claude_code.py``).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping
from typing import Any

from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .callback import CallbackServer, callback_host, callback_or_pasted, start_callback
from .pkce import new_pkce, parse_pasted
from .web import Answer, SignInError, describe, detail, post_json

CLIENT_ID = base64.b64decode("OWQxYzI1MGEtZTYxYi00NGQ5LTg4ZWQtNTk0NGQxOTYyZjVl").decode()
AUTHORIZE_URL = "https://claude.ai/oauth/authorize"
TOKEN_URL = "https://platform.claude.com/v1/oauth/token"
CALLBACK_PORT = 53692
CALLBACK_PATH = "/callback"
REDIRECT_URI = f"http://localhost:{CALLBACK_PORT}{CALLBACK_PATH}"
COPY_CODE_REDIRECT_URI = "https://platform.claude.com/oauth/code/callback"
SCOPES = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
EXPIRY_MARGIN_MS = 5 * 60 * 1000
"""Stored expiry is this much before the real one."""

BROWSER, COPY_CODE = "browser", "copy_code"
METHODS = [{"id": BROWSER, "label": "Browser login (default)"},
           {"id": COPY_CODE, "label": "Copy code login (headless)"}]
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def authorize_url(challenge: str, state: str, redirect_uri: str) -> str:
    from urllib.parse import urlencode

    query = {"code": "true", "client_id": CLIENT_ID, "response_type": "code", "redirect_uri": redirect_uri,
             "scope": SCOPES, "code_challenge": challenge, "code_challenge_method": "S256", "state": state}
    return f"{AUTHORIZE_URL}?{urlencode(query)}"


def _credentials(answer: Answer, what: str) -> dict[str, Any]:
    body = answer.json()
    if not answer.ok:
        raise SignInError(f"{what} failed (HTTP {answer.status}){_error_of(body)}")
    if body is None:
        raise SignInError(f"{what} returned invalid JSON")
    access, refresh, expires_in = body.get("access_token"), body.get("refresh_token"), body.get("expires_in")
    if not isinstance(access, str) or not isinstance(refresh, str) or not isinstance(expires_in, (int, float)):
        raise SignInError(f"{what} returned an unusable answer ({describe(body)})")
    expires = int(time.time() * 1000 + expires_in * 1000 - EXPIRY_MARGIN_MS)
    return {"type": "oauth", "refresh": refresh, "access": access, "expires": expires}


def _error_of(body: dict[str, Any] | None) -> str:
    error = (body or {}).get("error")
    if isinstance(error, dict):
        return detail(error, "message", "type")
    return detail(body, "error_description", "error")


async def exchange(code: str, state: str, verifier: str, redirect_uri: str, signal: Any) -> dict[str, Any]:
    """Trade an authorization code for tokens."""
    answer = await post_json(TOKEN_URL, {
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code, "state": state,
        "redirect_uri": redirect_uri, "code_verifier": verifier,
    }, headers=_HEADERS, signal=signal)
    return _credentials(answer, "Anthropic token exchange")


async def _browser(callbacks: LoginCallbacks) -> dict[str, Any]:
    pkce = new_pkce()

    async def listen(port: int) -> CallbackServer[str]:
        async def same(code: str) -> str:
            return code

        return await start_callback("Anthropic", port=port, path=CALLBACK_PATH, complete=same, state=pkce.verifier,
                                    host=callback_host(), redirect_host="localhost")

    callback: CallbackServer[str] | None = None
    for port in (CALLBACK_PORT, 0):  # any loopback port is accepted; the fixed one can be forwarded over SSH
        try:
            callback = await listen(port)
            break
        except OSError:
            continue
    redirect_uri = callback.redirect_uri if callback is not None else REDIRECT_URI
    try:
        callbacks.on_auth(authorize_url(pkce.challenge, pkce.verifier, redirect_uri),
                          "Complete login in your browser. If the browser is on another machine, "
                          "paste the final redirect URL here.")
        code, pasted = await callback_or_pasted(
            callbacks, callback,
            "Complete login in your browser, or paste the authorization code / redirect URL here:", redirect_uri)
        state = pkce.verifier
        if pasted is not None:
            parsed = parse_pasted(pasted)
            if parsed.state and parsed.state != pkce.verifier:
                raise SignInError("OAuth state mismatch")
            code, state = parsed.code, parsed.state or pkce.verifier
        if not code:
            raise SignInError("Missing authorization code")
        callbacks.on_progress("Exchanging authorization code for tokens...")
        return await exchange(code, state, pkce.verifier, redirect_uri, callbacks.signal)
    finally:
        if callback is not None:
            await callback.close()


async def _copy_code(callbacks: LoginCallbacks) -> dict[str, Any]:
    pkce = new_pkce()
    callbacks.on_auth(authorize_url(pkce.challenge, pkce.verifier, COPY_CODE_REDIRECT_URI),
                      "Complete login in your browser, then copy the code Anthropic shows and paste it here.")
    pasted = await callbacks.on_manual_code("Paste the code Anthropic shows after you sign in:", placeholder="code#state")
    parsed = parse_pasted(pasted)
    if parsed.state and parsed.state != pkce.verifier:
        raise SignInError("OAuth state mismatch")
    if not parsed.code:
        raise SignInError("Missing authorization code")
    callbacks.on_progress("Exchanging authorization code for tokens...")
    return await exchange(parsed.code, parsed.state or pkce.verifier, pkce.verifier, COPY_CODE_REDIRECT_URI,
                          callbacks.signal)


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Sign in (the user picks the browser or the copy-code method)."""
    method = await callbacks.on_select("Select Anthropic login method:", METHODS)
    if method is None:
        raise OAuthLoginCancelled("Login cancelled")
    if method == COPY_CODE:
        return await _copy_code(callbacks)
    if method != BROWSER:
        raise SignInError(f"Unknown Anthropic login method: {method}")
    return await _browser(callbacks)


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """New tokens for the stored refresh token."""
    answer = await post_json(TOKEN_URL, {
        "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": credentials.get("refresh", ""),
    }, headers=_HEADERS, signal=signal, cancel_message="Anthropic token refresh cancelled")
    return _credentials(answer, "Anthropic token refresh")


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)
