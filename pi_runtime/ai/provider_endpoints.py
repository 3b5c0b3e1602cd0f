"""Endpoints and headers that a provider's credentials decide, as Pi 1.6 resolves them.

Cloudflare's base URLs hold the account (and AI Gateway) ids as placeholders,
``https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1``; Pi fills them
from the credential (a stored key's ``env`` object first, then the environment) before the
request. The AI Gateway takes its key as ``cf-aig-authorization: Bearer <key>`` and no
``Authorization`` or ``x-api-key`` header at all, whether the key came from the environment or
from ``auth.json``.
"""

from __future__ import annotations

from collections.abc import Mapping

CLOUDFLARE_IDS = ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID")
_CLOUDFLARE = ("cloudflare-workers-ai", "cloudflare-ai-gateway")


def fill_placeholders(base_url: str, values: Mapping[str, str]) -> str:
    """``base_url`` with each ``{CLOUDFLARE_...}`` placeholder that ``values`` names filled in."""
    for name in CLOUDFLARE_IDS:
        value = values.get(name)
        if value:
            base_url = base_url.replace("{" + name + "}", value)
    return base_url


def credential_endpoint(provider: str, base_url: str, key: str | None, stored_env: Mapping[str, str],
                        environ: Mapping[str, str]) -> tuple[str | None, dict[str, str | None]]:
    """``(base URL, headers)`` a provider's credential decides: a new base URL (None: the model's
    stays) and headers to add (None values remove a header the wire API would send).

    Args:
        provider: The provider id.
        base_url: The model's base URL.
        key: The resolved key (for the AI Gateway's own header), if any.
        stored_env: The stored credential's ``env`` object (wins over ``environ``).
        environ: The process environment.
    """
    if provider not in _CLOUDFLARE:
        return None, {}
    values = {name: stored_env.get(name) or environ.get(name) or "" for name in CLOUDFLARE_IDS}
    filled = fill_placeholders(base_url, values)
    headers: dict[str, str | None] = {}
    if provider == "cloudflare-ai-gateway" and key:
        headers = {"cf-aig-authorization": f"Bearer {key}", "Authorization": None, "x-api-key": None}
    return (filled if filled != base_url else None), headers
