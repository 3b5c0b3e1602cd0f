"""GitHub Copilot: GitHub's device flow, then Copilot's own short-lived token.

The user names a GitHub Enterprise domain or leaves it blank for github.com, enters a code at
GitHub, and pi polls for a GitHub token. That token is stored as ``refresh``: it is traded at
``api.<domain>/copilot_internal/v2/token`` for the Copilot token (``access``, about 30 minutes),
which is all a refresh does. The Copilot token names its API host (``proxy-ep=proxy.X`` means
``https://api.X``), so each request goes to the account's endpoint (``to_auth``'s ``base_url``).

After signing in, the account's model list is read and models whose policy is still
"unconfigured" are switched on (as Copilot's editor does on first use); the ids the account may
use are stored as ``availableModelIds`` and ``/model`` offers only those.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..abort import sleep_or_abort
from ..oauth import LoginCallbacks, OAuthLoginCancelled
from . import RequestCredentials
from .device import PENDING, Poll, poll_device_code, positive
from .pkce import trusted_http_url
from .web import Answer, SignInError, compact_json, form, send

CLIENT_ID = base64.b64decode("SXYxLmI1MDdhMDhjODdlY2ZlOTg=").decode()
USER_AGENT = "GitHubCopilotChat/0.35.0"
COPILOT_HEADERS = {
    "User-Agent": USER_AGENT,
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
API_VERSION = "2026-06-01"
DEFAULT_BASE_URL = "https://api.individual.githubcopilot.com"
ENTERPRISE_PROMPT = "GitHub Enterprise URL/domain (blank for github.com)"
REQUEST_TIMEOUT = 5.0
"""Seconds each model-list or policy request may take (Pi's bound)."""
_FORM_HEADERS = {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded",
                 "User-Agent": USER_AGENT}


def normalize_domain(text: str) -> str | None:
    """The host name in what the user typed (``company.ghe.com``, a URL), or None."""
    value = text.strip()
    if not value:
        return None
    try:
        host = urlsplit(value if "://" in value else f"https://{value}").hostname
    except ValueError:
        return None
    return host or None


def base_url_of(token: str | None, enterprise: str | None = None) -> str:
    """The API base URL a Copilot token names (``proxy-ep``), else the enterprise's or the default."""
    if token:
        found = re.search(r"proxy-ep=([^;]+)", token)
        if found:
            return "https://" + re.sub(r"^proxy\.", "api.", found.group(1))
    if enterprise:
        return f"https://copilot-api.{enterprise}"
    return DEFAULT_BASE_URL


def _failure(answer: Answer) -> SignInError:
    return SignInError(f"{answer.status} {answer.reason}: {answer.text}")


async def _json(answer_coro: Any) -> dict[str, Any]:
    answer: Answer = await answer_coro
    if not answer.ok:
        raise _failure(answer)
    body = answer.json()
    if body is None:
        raise SignInError("Invalid JSON in GitHub's answer")
    return body


async def copilot_token(github_token: str, enterprise: str | None, signal: Any) -> dict[str, Any]:
    """Trade the GitHub token for a Copilot token (what a refresh does)."""
    domain = enterprise or "github.com"
    body = await _json(send("GET", f"https://api.{domain}/copilot_internal/v2/token", signal=signal,
                            headers={"Accept": "application/json", "Authorization": f"Bearer {github_token}",
                                     **COPILOT_HEADERS}))
    token, expires_at = body.get("token"), body.get("expires_at")
    if not isinstance(token, str) or isinstance(expires_at, bool) or not isinstance(expires_at, (int, float)):
        raise SignInError("Invalid Copilot token response fields")
    credential: dict[str, Any] = {"type": "oauth", "refresh": github_token, "access": token,
                                  "expires": int(expires_at * 1000 - 5 * 60 * 1000)}
    if enterprise:
        credential["enterpriseUrl"] = enterprise
    return credential


async def _with_rate_limit_retry(method: str, url: str, headers: dict[str, str], body: str | None, signal: Any,
                                 retries: int, budget: float) -> Answer:
    """One request, asked again after a 429 (as the answer's ``retry-after`` or 0.5 s doubling) within ``budget`` s."""
    deadline = time.monotonic() + budget
    attempt = 0
    while True:
        answer = await send(method, url, headers=headers, body=body, signal=signal, timeout=REQUEST_TIMEOUT)
        if answer.status != 429 or attempt >= retries:
            return answer
        delay = 0.5 * 2 ** attempt
        asked = answer.headers.get("retry-after")
        if asked:
            try:
                delay = float(asked)
            except ValueError:
                from email.utils import parsedate_to_datetime

                try:
                    delay = parsedate_to_datetime(asked).timestamp() - time.time()
                except (TypeError, ValueError):
                    return answer
        delay = max(0.0, delay)
        if delay >= deadline - time.monotonic():
            return answer
        attempt += 1
        if await sleep_or_abort(delay, signal):
            raise OAuthLoginCancelled("Login cancelled")


def _catalog_ids() -> set[str]:
    from .. import catalog

    return {str(model["id"]) for model in catalog.model_dicts("github-copilot")}


def read_models(body: Any, policy_fallback: bool) -> tuple[list[str], list[str]]:
    """``(available ids, ids whose policy pi should switch on)`` from Copilot's ``/models`` answer."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise SignInError("Invalid Copilot models response")
    models = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        supports = (item.get("capabilities") or {}).get("supports") if isinstance(item.get("capabilities"), dict) else None
        if isinstance(supports, dict) and supports.get("tool_calls") is False:
            continue  # pi cannot work without tool calls
        policy = item.get("policy")
        models.append((item["id"], item.get("model_picker_enabled") is True,
                       policy.get("state") if isinstance(policy, dict) else None))
    picker = [mid for mid, shown, state in models if shown and state != "disabled"]
    fallback = policy_fallback and not picker
    available = picker if picker or not policy_fallback else [mid for mid, _, state in models if state == "enabled"]
    known = _catalog_ids()
    to_enable = [mid for mid, shown, state in models if state == "unconfigured" and mid in known and (shown or fallback)]
    return available, to_enable


async def account_models(token: str, enterprise: str | None, signal: Any, *, retries: int,
                         budget: float) -> tuple[list[str], list[str]]:
    base = base_url_of(token, enterprise)
    headers = {"Accept": "application/json", "Authorization": f"Bearer {token}", **COPILOT_HEADERS,
               "X-GitHub-Api-Version": API_VERSION}
    answer = await _with_rate_limit_retry("GET", f"{base}/models", headers, None, signal, retries, budget)
    if not answer.ok:
        raise _failure(answer)
    # Some individual accounts mark no model for the picker despite enabled policies.
    return read_models(answer.json(), policy_fallback=base == DEFAULT_BASE_URL)


async def enable_models(token: str, ids: list[str], enterprise: str | None, signal: Any) -> list[str]:
    """Switch each model's policy on (best effort); the ids that worked."""
    base = base_url_of(token, enterprise)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}", **COPILOT_HEADERS,
               "openai-intent": "chat-policy", "x-interaction-type": "chat-policy"}
    enabled = []
    for mid in ids:
        try:
            answer = await _with_rate_limit_retry("POST", f"{base}/models/{mid}/policy", headers,
                                                  compact_json({"state": "enabled"}), signal, 2, 5.0)
        except SignInError:
            continue
        if answer.status == 429:
            break  # still rate limited: stop the batch
        if answer.ok:
            enabled.append(mid)
    return enabled


async def login(callbacks: LoginCallbacks) -> dict[str, Any]:
    """Sign in with GitHub's device flow and turn the GitHub token into a Copilot token."""
    typed = await callbacks.on_prompt(ENTERPRISE_PROMPT, placeholder="company.ghe.com", allow_empty=True)
    signal = callbacks.signal
    enterprise = normalize_domain(typed)
    if typed.strip() and not enterprise:
        raise SignInError("Invalid GitHub Enterprise URL/domain")
    domain = enterprise or "github.com"
    device = await _json(send("POST", f"https://{domain}/login/device/code", headers=_FORM_HEADERS, signal=signal,
                              body=form({"client_id": CLIENT_ID, "scope": "read:user"})))
    code, user_code, uri = device.get("device_code"), device.get("user_code"), device.get("verification_uri")
    interval, expires_in = device.get("interval"), device.get("expires_in")
    if (not isinstance(code, str) or not isinstance(user_code, str) or not isinstance(uri, str)
            or (interval is not None and not isinstance(interval, (int, float)))
            or isinstance(expires_in, bool) or not isinstance(expires_in, (int, float))):
        raise SignInError("Invalid device code response fields")
    page = trusted_http_url(uri)
    if page is None:
        raise SignInError("Untrusted verification_uri in device code response")
    callbacks.on_device_code(user_code, page, interval=interval, expires_in=expires_in)

    async def poll() -> Poll:
        body = await _json(send("POST", f"https://{domain}/login/oauth/access_token", headers=_FORM_HEADERS,
                                signal=signal, body=form({"client_id": CLIENT_ID, "device_code": code,
                                                          "grant_type": "urn:ietf:params:oauth:grant-type:device_code"})))
        if isinstance(body.get("access_token"), str):
            return Poll("complete", body["access_token"])
        error = body.get("error")
        if not isinstance(error, str):
            return Poll("failed", message="Invalid device token response")
        if error == "authorization_pending":
            return PENDING
        if error == "slow_down":
            return Poll("slow_down", interval=positive(body.get("interval")))
        description = body.get("error_description")
        return Poll("failed", message=f"Device flow failed: {error}" + (f": {description}" if description else ""))

    github_token = await poll_device_code(poll, signal=signal, interval=float(interval) if interval else None,
                                          expires_in=float(expires_in), wait_first=True)
    credential = await copilot_token(github_token, enterprise, signal)
    available, to_enable = await account_models(credential["access"], enterprise, signal, retries=2, budget=5.0)
    enabled: list[str] = []
    if to_enable:
        callbacks.on_progress("Enabling models...")
        enabled = await enable_models(credential["access"], to_enable, enterprise, signal)
    credential["availableModelIds"] = list(dict.fromkeys([*available, *enabled]))
    return credential


def enterprise_of(credentials: Mapping[str, Any]) -> str | None:
    value = credentials.get("enterpriseUrl")
    return normalize_domain(value) if isinstance(value, str) and value else None


async def refresh(credentials: dict[str, Any], signal: Any) -> dict[str, Any]:
    """A new Copilot token for the stored GitHub token, and the account's model list again."""
    enterprise = enterprise_of(credentials)
    credential = await copilot_token(str(credentials.get("refresh", "")), enterprise, signal)
    available, _ = await account_models(credential["access"], enterprise, signal, retries=0, budget=0.0)
    credential["availableModelIds"] = available
    return credential


def to_auth(credentials: Mapping[str, Any]) -> RequestCredentials:
    access = str(credentials.get("access") or "")
    return RequestCredentials(api_key=access or None, base_url=base_url_of(access, enterprise_of(credentials)))


def available_model_ids(credentials: Mapping[str, Any]) -> set[str] | None:
    """The models a signed-in account may use (None: all; an old credential has no list)."""
    ids = credentials.get("availableModelIds")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return None
    return set(ids)

