"""One side-by-side case per provider of the catalogue: its default model, a placeholder credential.

A case says which model to run (the provider's default model, as Pi picks it), at which thinking
level, and how the provider is signed in: an environment variable of the kind the provider reads
(``<PROVIDER>_API_KEY``, Cloudflare's key and account, AWS's bearer token, Vertex's API key), or a
stored ``auth.json`` entry for the account sign-ins (ChatGPT for Codex, GitHub Copilot, Claude
Pro/Max). Everything comes from the catalogue (``builtin.json``), so a provider Pi adds shows up
here when the catalogue is regenerated.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pi_runtime.ai.catalog import builtin_catalog

KEY = "sk-side-by-side-0123456789"
"""The placeholder every key-taking variable is set to."""


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


CODEX_TOKEN = (_b64({"alg": "RS256", "typ": "JWT"}) + "." +
               _b64({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_side"}, "exp": 9999999999}) + ".sig")
"""A ChatGPT access token as the Codex endpoint reads it (the account id is in its claims)."""
COPILOT_TOKEN = "tid=t1;exp=9999999999;sku=copilot_individual;proxy-ep=proxy.individual.githubcopilot.com;8kp=1"
"""A Copilot API token as GitHub's token exchange returns it (names the account's API endpoint)."""
_FAR = 4_102_444_800_000  # 2100-01-01 in ms: a stored sign-in that needs no refresh


def _oauth(access: str, **extra: Any) -> dict[str, Any]:
    return {"type": "oauth", "refresh": "refresh-side-by-side", "access": access, "expires": _FAR, **extra}


SPECIAL_ENV: dict[str, dict[str, str]] = {
    "amazon-bedrock": {"AWS_BEARER_TOKEN_BEDROCK": "ABSKside-by-side-bearer-0123456789"},
    "azure": {"AZURE_OPENAI_API_KEY": KEY, "AZURE_OPENAI_RESOURCE_NAME": "pi-side"},
    "google-vertex": {"GOOGLE_CLOUD_API_KEY": "AIzaSideBySideKey-0123456789"},
    "cloudflare-workers-ai": {"CLOUDFLARE_API_KEY": KEY, "CLOUDFLARE_ACCOUNT_ID": "acc0123"},
    "cloudflare-ai-gateway": {"CLOUDFLARE_API_KEY": KEY, "CLOUDFLARE_ACCOUNT_ID": "acc0123",
                              "CLOUDFLARE_GATEWAY_ID": "gw-side"},
}
"""Providers whose credentials are more than one key variable (the values are placeholders)."""

IDENTITY_TOKEN = (_b64({"alg": "RS256", "typ": "JWT"}) + "." + _b64({"iss": "https://ci.example", "sub": "job"})
                  + ".sig")
"""An OIDC identity token as a CI system projects it into a file."""
FEDERATION_ENV = {"ANTHROPIC_FEDERATION_RULE_ID": "fdrl_side", "ANTHROPIC_ORGANIZATION_ID": "org-side",
                  "ANTHROPIC_IDENTITY_TOKEN_FILE": "@HOME@/identity.jwt"}
"""Anthropic workload identity federation (the identity token is exchanged for an access token)."""

SIGNED_IN: dict[str, dict[str, Any]] = {
    "openai-codex": _oauth(CODEX_TOKEN, accountId="acct_side"),
    "github-copilot": _oauth(COPILOT_TOKEN),
}
"""Providers run signed in to an account (a stored ``auth.json`` entry) rather than with a key."""

ALSO_SIGNED_IN: dict[str, dict[str, Any]] = {
    "openai": _oauth(CODEX_TOKEN, clientId="app_side", scopes=["openid"]),  # ChatGPT: not an sk- key
    "xai": _oauth("xai-access-side-by-side"),
    "kimi-coding": _oauth("kimi-access-side-by-side"),
    "meta": _oauth("meta-access-side-by-side"),
    "radius": _oauth("radius-access-side-by-side"),
    "openrouter": {"type": "oauth", "access": "sk-or-v1-side-by-side", "refresh": "", "expires": _FAR},
}
"""Providers that take a key and an account sign-in: run a second time signed in."""


@dataclass(frozen=True)
class ProviderCase:
    """One run: a provider's model, a thinking level and the credential it is given."""

    provider: str
    model: str
    api: str
    thinking: str | None = None
    """``--thinking`` (None: the settings' default)."""
    env: dict[str, str] = field(default_factory=dict)
    auth: dict[str, Any] | None = None
    """The provider's ``auth.json`` entry, when signed in to an account."""
    home_files: dict[str, str] = field(default_factory=dict)
    """Files to write under the run's home folder (``@HOME@`` in ``env`` values stands for it)."""
    label: str = ""

    @property
    def id(self) -> str:
        """The pytest id: the provider, and what sets this case apart from the provider's first."""
        return "-".join(p for p in (self.provider, self.label) if p)


def _model(provider: str, model_id: str) -> dict[str, Any]:
    catalog = builtin_catalog()
    return next(m for m in catalog.rows(provider) if m["id"] == model_id)


def _key_env(provider: str) -> dict[str, str]:
    if provider in SPECIAL_ENV:
        return dict(SPECIAL_ENV[provider])
    info = builtin_catalog().providers[provider]
    ways = info.auth.api_key.ways if info.auth.api_key else []
    keyed = [w for w in ways if w.key]
    way = keyed[-1] if provider == "anthropic" else (keyed or ways)[0]  # Anthropic: its API key, not a bearer
    return dict.fromkeys(way.env, KEY)


@cache
def provider_cases() -> list[ProviderCase]:
    """A case for each provider with chat models: its default model with a key (or its sign-in);
    more for Anthropic (a Claude Pro/Max sign-in, ``ANTHROPIC_AUTH_TOKEN``) and, where the default
    model reasons, the highest thinking level (Pi's clamping and ``thinkingLevelMap``)."""
    catalog = builtin_catalog()
    cases: list[ProviderCase] = []
    for provider, info in catalog.providers.items():
        if not info.default_model:
            continue  # no chat models (typesafe: classifiers only)
        model = _model(provider, info.default_model)
        api = model.get("api") or info.api or ""
        if provider in SIGNED_IN:
            base = ProviderCase(provider, info.default_model, api,
                                auth={provider: {**SIGNED_IN[provider],
                                                 **({"availableModelIds": [info.default_model]}
                                                    if provider == "github-copilot" else {})}})
        else:
            base = ProviderCase(provider, info.default_model, api, env=_key_env(provider))
        cases.append(base)
        if model.get("reasoning"):
            cases.append(ProviderCase(provider, base.model, api, thinking="xhigh", env=base.env, auth=base.auth,
                                      label="xhigh"))
    cases.append(ProviderCase("anthropic", catalog.providers["anthropic"].default_model or "", "anthropic-messages",
                              auth={"anthropic": _oauth("sk-ant-oat01-side-by-side")}, label="claude-pro"))
    for provider, entry in ALSO_SIGNED_IN.items():
        model_id = catalog.providers[provider].default_model or ""
        cases.append(ProviderCase(provider, model_id, _model(provider, model_id).get("api") or "",
                                  auth={provider: entry}, label="signed-in"))
    cases.append(ProviderCase("anthropic", catalog.providers["anthropic"].default_model or "", "anthropic-messages",
                              env={"ANTHROPIC_AUTH_TOKEN": "side-by-side-bearer"}, label="auth-token"))
    cases.append(ProviderCase("anthropic", catalog.providers["anthropic"].default_model or "", "anthropic-messages",
                              env=FEDERATION_ENV, home_files={"identity.jwt": IDENTITY_TOKEN + "\n"},
                              label="workload-identity"))
    return cases


def stamp() -> int:
    """Now in ms (for entries that must not look expired)."""
    return int(time.time() * 1000)
