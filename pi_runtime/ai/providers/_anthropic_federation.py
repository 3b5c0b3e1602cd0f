"""Anthropic workload identity federation, as Pi 1.6 (through Anthropic's SDK) signs in with it.

With ``ANTHROPIC_FEDERATION_RULE_ID``, ``ANTHROPIC_ORGANIZATION_ID`` and
``ANTHROPIC_IDENTITY_TOKEN_FILE`` set (and no key or ``Authorization`` header for the
``anthropic`` provider), the identity token in the file (an OIDC JWT, re-read each time: it
rotates) is exchanged at ``<baseUrl>/v1/oauth/token`` for an access token (RFC 7523 jwt-bearer,
with ``ANTHROPIC_WORKSPACE_ID`` and ``ANTHROPIC_SERVICE_ACCOUNT_ID`` when set). Requests then
carry ``Authorization: Bearer <token>`` and the ``oauth-2025-04-20`` beta. The token is kept in
memory (never on disk) and exchanged again two minutes before it expires. A refused exchange
says so in one line with the server's error fields only (never the assertion or a token).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from ...records import record
from ..abort import AbortSignal

TOKEN_PATH = "/v1/oauth/token"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
OAUTH_BETA = "oauth-2025-04-20"
FEDERATION_BETA = "oidc-federation-2026-04-01"
REFRESH_AHEAD = 120
"""Seconds before expiry at which a new token is fetched (the SDK's advisory threshold)."""
_SAFE_ERROR_KEYS = ("error", "error_description", "error_uri")
_ASSERTION_LIMIT = 16 * 1024


class FederationError(Exception):
    """The exchange failed; ``str()`` is one line for the user (no secret in it)."""


@record(frozen=True)
class Federation:
    """The federation settings from the environment."""

    rule_id: str
    organization_id: str
    token_file: str
    workspace_id: str | None = None
    service_account_id: str | None = None


def from_environment(env: Mapping[str, str]) -> Federation | None:
    """The federation settings when all three required variables are set, else None."""
    def value(name: str) -> str | None:
        found = env.get(name)
        return found.strip() if found and found.strip() else None

    rule, org, file = (value("ANTHROPIC_FEDERATION_RULE_ID"), value("ANTHROPIC_ORGANIZATION_ID"),
                       value("ANTHROPIC_IDENTITY_TOKEN_FILE"))
    if not (rule and org and file):
        return None
    return Federation(rule_id=rule, organization_id=org, token_file=file,
                      workspace_id=value("ANTHROPIC_WORKSPACE_ID"),
                      service_account_id=value("ANTHROPIC_SERVICE_ACCOUNT_ID"))


_tokens: dict[tuple[str, Federation], tuple[str, float]] = {}


def _redacted(text: str) -> str:
    """An error body with only the OAuth error fields kept (anything else may echo the assertion)."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return text[:2000]
    if isinstance(parsed, dict):
        return json.dumps({k: parsed[k] for k in _SAFE_ERROR_KEYS if k in parsed}, separators=(",", ":"))
    return ""


def _assertion(config: Federation) -> str:
    try:
        with open(config.token_file, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as exc:
        raise FederationError(f"Failed to read identity token file at {config.token_file}: {exc.strerror}") from None
    if not token:
        raise FederationError(f"Identity token file at {config.token_file} is empty")
    if len(token) > _ASSERTION_LIMIT:
        raise FederationError(f"Identity token is {-(-len(token) // 1024)} KiB, exceeds the 16 KiB assertion limit")
    return token


async def access_token(config: Federation, base_url: str, user_agent: str, signal: AbortSignal | None = None) -> str:
    """A current access token for ``config`` at ``base_url`` (exchanged when none is fresh).

    Raises:
        FederationError: the identity token cannot be read, or the exchange failed.
    """
    base = base_url.rstrip("/")
    key = (base, config)
    cached = _tokens.get(key)
    if cached is not None and cached[1] - time.time() > REFRESH_AHEAD:
        return cached[0]
    if not base.startswith("https://") and not base.startswith(("http://localhost", "http://127.0.0.1", "http://[::1]")):
        raise FederationError(f'Refusing to send credential over non-https token endpoint "{base}"')
    body: dict[str, Any] = {"grant_type": GRANT_TYPE, "assertion": _assertion(config),
                            "federation_rule_id": config.rule_id, "organization_id": config.organization_id}
    if config.service_account_id:
        body["service_account_id"] = config.service_account_id
    if config.workspace_id:
        body["workspace_id"] = config.workspace_id
    from ... import http

    url = f"{base}{TOKEN_PATH}"
    headers = {"content-type": "application/json", "anthropic-beta": f"{OAUTH_BETA},{FEDERATION_BETA}",
               "user-agent": user_agent}
    try:
        response = await http.request("POST", url, headers=headers, json=body, signal=signal, max_bytes=1 << 20)
    except http.HTTPError as exc:
        raise FederationError(f"Failed to reach token endpoint {url}: {exc}") from None
    request_id = response.headers.get("request-id")
    where = f" (request-id {request_id})" if request_id else ""
    if response.status_code >= 400:
        hint = ""
        if response.status_code == 401:
            scope = "" if config.workspace_id else (
                "If your federation rule is scoped to multiple workspaces, set the ANTHROPIC_WORKSPACE_ID environment "
                "variable. ")
            hint = (f" Ensure your federation rule matches your identity token. {scope}View your authentication events "
                    "in the Workload identity page of Claude Console for more details.")
        raise FederationError(f"Token exchange failed with status {response.status_code}{where}: "
                              f"{_redacted(response.text)}{hint}")
    try:
        data = response.json()
    except ValueError:
        raise FederationError(f"Token endpoint returned non-JSON response (status {response.status_code})") from None
    token = data.get("access_token") if isinstance(data, dict) else None
    expires = data.get("expires_in") if isinstance(data, dict) else None
    if not isinstance(token, str) or not token:
        raise FederationError(f"Token endpoint response missing access_token: {_redacted(response.text)}")
    kind = data.get("token_type")
    if isinstance(kind, str) and kind.lower() != "bearer":
        raise FederationError(f'Token endpoint response: unsupported token_type "{kind}" (want Bearer)')
    if not isinstance(expires, int | float) or isinstance(expires, bool):
        raise FederationError(f"Token endpoint response missing required fields: {_redacted(response.text)}")
    _tokens[key] = (token, time.time() + float(expires))
    return token
