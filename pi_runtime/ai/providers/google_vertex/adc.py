"""Google Application Default Credentials: the access token a Vertex AI request carries.

The file is ``GOOGLE_APPLICATION_CREDENTIALS`` or gcloud's
``~/.config/gcloud/application_default_credentials.json``. Two kinds are understood, the two
Pi's users have:

- ``service_account`` (a key file): a JWT signed with the account's RSA key (RS256, via
  ``cryptography``) is exchanged for a token (``grant_type=...jwt-bearer``);
- ``authorized_user`` (``gcloud auth application-default login``): the refresh token is exchanged
  for a token (``grant_type=refresh_token``).

Both post to the file's ``token_uri`` (Google's files carry it; ``https://oauth2.googleapis.com/token``
when absent), through pi's HTTP client (proxies, trust store, abort). A token is kept until five
minutes before it expires and dropped when Vertex answers 401. The file's ``quota_project_id`` is
sent as ``x-goog-user-project``, as Google's libraries do. Messages say what to set or run and
never hold a key, a refresh token or a token.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ... import redaction
from ...abort import AbortSignal
from ...env_keys import adc_file

DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_JWT_LIFETIME = 3600
_EARLY_REFRESH = 300.0
"""Seconds before expiry a cached token is replaced (Google's libraries refresh ahead too)."""
_LOGIN_AGAIN = "run `gcloud auth application-default login` again"


class AdcError(Exception):
    """Credentials could not be read or exchanged; ``str()`` says what to set or run."""


@dataclass(frozen=True)
class Token:
    """An access token and what goes with it."""

    value: str
    expires_at: float
    quota_project: str | None = None

    def __repr__(self) -> str:
        return f"Token(expires_at={self.expires_at:.0f})"


_tokens: dict[tuple[str, float], Token] = {}
"""(file path, its mtime) -> the last token it gave: a new login (a new file) is a new token."""


def forget_tokens() -> None:
    """Drop every cached token (after a 401, or in tests)."""
    _tokens.clear()


def read_credentials(env: Mapping[str, str]) -> tuple[Path, dict[str, Any]]:
    """The ADC file's path and contents.

    Raises:
        AdcError: No file, unreadable, not JSON, or a kind pi cannot use.
    """
    path = adc_file(env)
    explicit = bool(env.get("GOOGLE_APPLICATION_CREDENTIALS"))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit:
            raise AdcError(f"GOOGLE_APPLICATION_CREDENTIALS names {path}, which does not exist") from None
        raise AdcError("No Google credentials: set GOOGLE_CLOUD_API_KEY, or run `gcloud auth application-default "
                       "login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file") from None
    except OSError as exc:
        raise AdcError(f"Could not read Google credentials {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise AdcError(f"Google credentials {path} are not valid JSON (line {getattr(exc, 'lineno', '?')})") from None
    if not isinstance(data, dict):
        raise AdcError(f"Google credentials {path} are not a JSON object")
    kind = data.get("type")
    if kind not in ("service_account", "authorized_user"):
        raise AdcError(f"Google credentials {path} are of type {kind!r}; pi takes service_account and "
                       "authorized_user (`gcloud auth application-default login`)")
    return path, data


async def access_token(env: Mapping[str, str], signal: AbortSignal | None = None) -> Token:
    """A valid access token from the ADC file (cached until five minutes before it expires).

    Raises:
        AdcError: The file is missing or unusable, or the token endpoint refused it.
        pi_runtime.http.Aborted: ``signal`` fired.
    """
    path, data = read_credentials(env)
    try:
        key = (str(path), path.stat().st_mtime)
    except OSError:
        key = (str(path), 0.0)
    cached = _tokens.get(key)
    if cached is not None and cached.expires_at - _EARLY_REFRESH > time.time():
        return cached
    token = await _exchange(data, signal)
    _tokens[key] = token
    return token


def _need(data: Mapping[str, Any], *fields: str) -> list[str]:
    missing = [f for f in fields if not isinstance(data.get(f), str) or not data.get(f)]
    if missing:
        raise AdcError(f"Google credentials lack {', '.join(missing)}")
    values = [str(data[f]) for f in fields]
    redaction.remember(*values)
    return values


async def _exchange(data: Mapping[str, Any], signal: AbortSignal | None) -> Token:
    token_uri = str(data.get("token_uri") or DEFAULT_TOKEN_URI)
    if data["type"] == "service_account":
        email, private_key = _need(data, "client_email", "private_key")
        # Off the event loop: the first use imports cryptography's RSA code.
        assertion = await asyncio.to_thread(signed_jwt, email, private_key, token_uri)
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion}
        hint = "the service account key was refused; check GOOGLE_APPLICATION_CREDENTIALS"
    else:
        client_id, client_secret, refresh_token = _need(data, "client_id", "client_secret", "refresh_token")
        form = {"refresh_token": refresh_token, "client_id": client_id, "client_secret": client_secret,
                "grant_type": "refresh_token"}
        hint = _LOGIN_AGAIN
    from ....http import HTTPError, request

    try:
        response = await request("POST", token_uri, content=urlencode(form), signal=signal, timeout=60.0,
                                 headers={"content-type": "application/x-www-form-urlencoded",
                                          "accept": "application/json"})
    except HTTPError as exc:
        raise AdcError(f"Google token request to {token_uri} failed: {exc}") from None
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status_code >= 400 or not isinstance(answer, dict) or not answer.get("access_token"):
        detail = _token_error(answer, response.text)
        if response.status_code in (400, 401):
            raise AdcError(f"Google refused the credentials ({detail}): {hint}")
        raise AdcError(f"Google token request failed (HTTP {response.status_code}): {detail}")
    value = str(answer["access_token"])
    redaction.remember(value)
    lifetime = answer.get("expires_in")
    seconds = float(lifetime) if isinstance(lifetime, (int, float)) else 3600.0
    quota = data.get("quota_project_id")
    return Token(value, time.time() + seconds, quota if isinstance(quota, str) and quota else None)


def _token_error(answer: Any, text: str) -> str:
    from ....text_safety import terminal_safe

    if isinstance(answer, dict):
        code = answer.get("error")
        if isinstance(code, dict):  # Google's API error shape
            return terminal_safe(f"{code.get('status') or code.get('code')}: {code.get('message', '')}")
        description = answer.get("error_description")
        if code:
            return terminal_safe(f"{code}: {description}" if description else str(code))
    return terminal_safe(text.strip()[:300]) or "no details"


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def signed_jwt(email: str, private_key: str, audience: str, now: float | None = None) -> str:
    """The RS256 assertion a service account trades for a token (header and claims as Pi's library sends them).

    Raises:
        AdcError: The private key is not a PEM RSA key.
    """
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    issued = int(time.time() if now is None else now)
    header = {"alg": "RS256"}
    claims = {"iss": email, "scope": SCOPE, "aud": audience, "exp": issued + _JWT_LIFETIME, "iat": issued}
    signing_input = ".".join(_b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims))
    try:
        key = serialization.load_pem_private_key(private_key.encode(), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise AdcError("The service account's private_key is not a PEM private key") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise AdcError("The service account's private_key is not an RSA key")
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64url(signature)}"
