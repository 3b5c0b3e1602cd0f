"""Sign in with OpenRouter: PKCE that ends in a lasting API key rather than expiring tokens.

The browser returns to a one-off path on a free loopback port (OpenRouter sends no ``state``: the
random path is what keeps a stray request from completing the sign-in), or the user pastes the
redirect URL or the code. The code is traded at ``openrouter.ai/api/v1/auth/keys`` for a key the
user controls in OpenRouter's settings; it is stored as ``access`` with an empty ``refresh`` and an
expiry that never comes, so it is never refreshed.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from ..abort import AbortController
from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .callback import callback_host, callback_or_pasted, start_callback
from .pkce import new_pkce, parse_pasted
from .web import SignInError, detail, post_json

AUTHORIZE_URL = "https://openrouter.ai/auth"
TOKEN_URL = "https://openrouter.ai/api/v1/auth/keys"
LOGIN_TIMEOUT = 5 * 60.0
EXCHANGE_TIMEOUT = 30.0
NEVER = 2 ** 53 - 1
"""The expiry stored with the key (JavaScript's largest safe integer, as Pi stores it)."""


async def exchange(code: str, verifier: str, signal: Any) -> dict[str, Any]:
    """Trade the code for an API key."""
    if signal.aborted:
        raise OAuthLoginCancelled("Login cancelled")
    try:
        answer = await post_json(TOKEN_URL, {"code": code, "code_verifier": verifier, "code_challenge_method": "S256"},
                                 headers={"accept": "application/json", "content-type": "application/json"},
                                 signal=signal, timeout=EXCHANGE_TIMEOUT)
    except SignInError as exc:
        if "timed out" in str(exc).lower() or "timeout" in str(exc).lower():
            raise SignInError("OpenRouter OAuth token exchange timed out") from None
        raise
    body = answer.json()
    if body is None and answer.ok:
        raise SignInError("OpenRouter OAuth returned invalid JSON")
    if not answer.ok:
        error = (body or {}).get("error")
        why = detail(body, "error_description", "message", "error") or (detail(error, "message")
                                                                           if isinstance(error, dict) else "")
        raise SignInError(f"OpenRouter OAuth key exchange failed (HTTP {answer.status}){why}")
    key = (body or {}).get("key")
    if not isinstance(key, str) or not key:
        raise SignInError('OpenRouter OAuth response carries no "key"')
    return {"type": "oauth", "access": key, "refresh": "", "expires": NEVER}


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Sign in in the browser (or paste the redirect URL); returns the key as the credential."""
    pkce = new_pkce()
    signal = callbacks.signal
    callback = await start_callback("OpenRouter", port=0, path=f"/oauth/callback/{uuid.uuid4()}", host=callback_host(),
                                    complete=lambda code: exchange(code, pkce.verifier, signal))
    timer = AbortController()
    expiry = asyncio.get_running_loop().call_later(LOGIN_TIMEOUT, timer.abort, "timeout")
    try:
        url = f"{AUTHORIZE_URL}?" + urlencode({"callback_url": callback.redirect_uri, "code_challenge": pkce.challenge,
                                               "code_challenge_method": "S256"})
        callbacks.on_progress(f"Listening for OpenRouter OAuth callback on {callback.redirect_uri}")
        callbacks.on_auth(url, "Complete sign-in in your browser. If the browser is on another machine, "
                               "paste the final redirect URL here.")
        waiting = asyncio.ensure_future(callback_or_pasted(
            callbacks, callback,
            "Complete sign-in in your browser, or paste the authorization code / redirect URL here:",
            callback.redirect_uri))
        timed_out = asyncio.ensure_future(timer.signal.wait())
        try:
            await asyncio.wait({waiting, timed_out}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timed_out.cancel()
            if not waiting.done():
                waiting.cancel()
                await asyncio.wait({waiting})  # its question is taken down before the flow ends
        if waiting.cancelled():
            raise SignInError("OpenRouter sign-in timed out")
        value, pasted = waiting.result()
        if value is not None:
            return value
        code = parse_pasted(pasted or "", hash_state=False).code
        if not code:
            raise SignInError("Missing authorization code")
        callbacks.on_progress("Exchanging authorization code for an API key...")
        return await exchange(code, pkce.verifier, signal)
    finally:
        expiry.cancel()
        await callback.close()


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """The key does not expire: nothing to refresh."""
    return dict(credentials)


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)
