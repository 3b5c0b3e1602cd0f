"""Sign in with ChatGPT for the ``openai`` provider: a user token for api.openai.com's Responses API.

A public client without a secret: every sign-in registers a client (``dynamic_agent_client``) for
this installation (``ext_agent_host_id``: ``urn:uuid:<settings deviceId>``), and OpenAI names the
issued client id in the callback to ``http://127.0.0.1:1455/auth/callback``. The grant must include
``chatgpt.tokens.use.direct``; the issued ``clientId`` and the ``scopes`` are stored with the tokens
(a refresh needs the client id). The access token is the request key.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from ...records import record
from ..oauth import LoginCallbacks
from . import RequestCredentials
from .callback import CallbackServer, callback_host, callback_or_pasted, start_callback
from .pkce import new_pkce, random_b64url
from .web import Answer, SignInError, form, send

DYNAMIC_CLIENT_ID = "dynamic_agent_client"
AGENT_NAME_HINT = "Pi"
AUTHORIZE_URL = "https://auth.openai.com/api/accounts/authorize"
TOKEN_URL = "https://auth.openai.com/api/accounts/oauth/token"
RESOURCE = "https://api.openai.com/v1"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
REDIRECT_URI = f"http://127.0.0.1:{CALLBACK_PORT}{CALLBACK_PATH}"
DIRECT_TOKEN_SCOPE = "chatgpt.tokens.use.direct"
SCOPE = f"openid profile email offline_access resource.invoke {DIRECT_TOKEN_SCOPE}"
EXPIRY_MARGIN_MS = 3 * 60 * 1000
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_HEADERS = {"accept": "application/json", "content-type": "application/x-www-form-urlencoded"}


@record(frozen=True)
class Authorization:
    code: str
    client_id: str


def _from_query(query: dict[str, list[str]], state: str) -> Authorization:
    def first(key: str) -> str:
        values = query.get(key)
        return values[0].strip() if values and key == "client_id" else (values[0] if values else "")

    code = first("code")
    if not code:
        raise SignInError("Missing authorization code")
    got = first("state")
    if not got:
        raise SignInError("Missing OAuth state")
    if got != state:
        raise SignInError("OAuth state mismatch")
    client_id = first("client_id")
    if not client_id:
        raise SignInError("OpenAI OAuth registration callback did not contain an issued client ID")
    return Authorization(code, client_id)


def from_pasted(text: str, state: str) -> Authorization:
    """The authorization in a pasted callback URL (it must be the full URL: it carries the client id)."""
    parts = urlsplit(text.strip())
    if not (parts.scheme and parts.netloc):
        raise SignInError("Paste the full callback URL from the browser")
    expected = urlsplit(REDIRECT_URI)
    if (parts.scheme, parts.netloc, parts.path) != (expected.scheme, expected.netloc, expected.path):
        raise SignInError(f"The pasted callback URL must start with {REDIRECT_URI}")
    query = parse_qs(parts.query, keep_blank_values=True)
    if query.get("error"):
        raise SignInError(f"ChatGPT authorization failed: {query['error'][0]}")
    return _from_query(query, state)


def host_id(device_id: str | None) -> str:
    """This installation's agent host id (``urn:uuid:...``)."""
    if not device_id or not _UUID.match(device_id):
        raise SignInError("Sign in with ChatGPT requires a device ID (UUID) for this installation")
    return f"urn:uuid:{device_id.lower()}"


def _credential(answer: Answer, client_id: str, *, need_id_token: bool) -> dict[str, Any]:
    if not answer.ok:
        raise SignInError(f"OpenAI OAuth token request failed ({answer.status}): {answer.text or answer.reason}")
    body = answer.json()
    if body is None:
        raise SignInError("OpenAI OAuth token response must be an object")
    if need_id_token and (not isinstance(body.get("id_token"), str) or not body["id_token"].strip()):
        raise SignInError("OpenAI OAuth token response did not contain an ID token")
    values = {}
    for key in ("access_token", "refresh_token", "scope"):
        value = body.get(key)
        if not isinstance(value, str) or not value.strip():
            raise SignInError(f"OpenAI OAuth token response has invalid {key}")
        values[key] = value
    expires_in = body.get("expires_in")
    if isinstance(expires_in, bool) or not isinstance(expires_in, (int, float)) or not 0 < expires_in < float("inf"):
        raise SignInError("OpenAI OAuth token response has invalid expires_in")
    scopes = values["scope"].split()
    if DIRECT_TOKEN_SCOPE not in scopes:
        raise SignInError(f"OpenAI OAuth grant did not include {DIRECT_TOKEN_SCOPE}")
    return {"type": "oauth", "access": values["access_token"], "refresh": values["refresh_token"],
            "expires": int(time.time() * 1000 + expires_in * 1000 - EXPIRY_MARGIN_MS),
            "clientId": client_id, "scopes": scopes}


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Sign in with ChatGPT in the browser (or by pasting the final redirect URL)."""
    agent_host = host_id(callbacks.device_id() if callbacks.device_id is not None else None)
    pkce, state, nonce = new_pkce(), random_b64url(), random_b64url()

    async def unused(code: str) -> Authorization:
        raise AssertionError("the whole redirect is read")

    try:
        callback: CallbackServer[Authorization] = await start_callback(
            "ChatGPT", port=CALLBACK_PORT, path=CALLBACK_PATH, complete=unused, host=callback_host(),
            read_query=lambda query: _from_query(query, state))
    except OSError as exc:
        raise SignInError(f"Port {CALLBACK_PORT} is in use, probably by an unfinished login in another pi session "
                          "or by the Codex CLI. Cancel that login and try again.") from exc
    url = f"{AUTHORIZE_URL}?" + urlencode({
        "client_id": DYNAMIC_CLIENT_ID, "agent_name_hint": callbacks.agent_name or AGENT_NAME_HINT,
        "ext_agent_host_id": agent_host, "response_type": "code", "redirect_uri": REDIRECT_URI,
        "resource": RESOURCE, "scope": SCOPE, "state": state, "code_challenge": pkce.challenge,
        "code_challenge_method": "S256", "nonce": nonce,
    })
    callbacks.on_auth(url, "Complete sign-in in your browser. If the callback does not complete, "
                           "paste the final redirect URL here.")
    try:
        called, pasted = await callback_or_pasted(
            callbacks, callback, "Complete login in your browser, or paste the final redirect URL here:", REDIRECT_URI)
        result = called if called is not None else from_pasted(pasted or "", state)
        callbacks.on_progress("Exchanging authorization code for tokens...")
        answer = await send("POST", TOKEN_URL, headers=_HEADERS, signal=callbacks.signal, body=form({
            "grant_type": "authorization_code", "client_id": result.client_id, "code": result.code,
            "code_verifier": pkce.verifier, "redirect_uri": REDIRECT_URI, "resource": RESOURCE,
        }))
        return _credential(answer, result.client_id, need_id_token=True)
    finally:
        await callback.close()


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """New tokens for the stored refresh token, with the client id issued at sign-in."""
    client_id = credentials.get("clientId")
    if not isinstance(client_id, str) or not client_id.strip():
        raise SignInError("Stored OpenAI OAuth credential does not contain an issued client ID; reconnect ChatGPT")
    answer = await send("POST", TOKEN_URL, headers=_HEADERS, signal=signal, cancel_message="token refresh cancelled",
                        body=form({"grant_type": "refresh_token", "client_id": client_id,
                                   "refresh_token": str(credentials.get("refresh", "")), "resource": RESOURCE}))
    return _credential(answer, client_id, need_id_token=False)


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    return RequestCredentials(api_key=str(credentials.get("access") or "") or None)

