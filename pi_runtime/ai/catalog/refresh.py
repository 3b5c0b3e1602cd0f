"""``pi update --models``: each configured provider's live catalogue, saved where Pi saves it.

For every built-in provider with credentials, as Pi 1.6 does (``overlay.py`` says how the
saved entries are used afterwards):

- most providers: ``GET <catalog>/api/models/providers/<id>?types=chat,image,classifier`` on
  pi.dev, revalidated with the saved ``etag``; 304 keeps the saved models, 404/501 means "no
  live catalogue" (saved as ``lastModified: 0``), another failure keeps what was saved and is
  reported;
- OpenRouter: the shipped models plus pi.dev's newer ones, narrowed to what the key may use
  (``GET <baseUrl>/models/user``, the key's limits and prices);
- Radius: the gateway's ``/v1/config`` for the key.

The catalogue server is ``https://pi.dev`` unless ``PI_CATALOG_BASE_URL`` names another (a pi
addition: Pi takes it only as an SDK option, ``catalogBaseUrl``). Requests are retried twice on
408/425/429/5xx and on a connection that fails or stays silent for 4 s; the whole refresh
stops after 15 s. pi.dev chooses the catalogue by the version in the User-Agent, so pi sends
the version of Pi its shipped catalogue comes from (``pi/1.6.0 (...)``): the catalogues it
gets are the ones that version of Pi reads.
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .overlay import is_newer, source_kind
from .store import StoreEntry, read_entry, update_entry

if TYPE_CHECKING:
    import httpx2

    from ..models import ModelRegistry

DEFAULT_CATALOG_BASE_URL = "https://pi.dev"
CATALOG_URL_ENV = "PI_CATALOG_BASE_URL"
DEFAULT_RADIUS_GATEWAY = "https://radius.pi.dev"
MODEL_TYPES = ("chat", "image", "classifier")
ATTEMPT_SECONDS = 4.0
TOTAL_SECONDS = 15.0
OPENROUTER_SECONDS = 15.0
RETRIES = 2
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class CatalogError(Exception):
    """One provider's catalogue could not be refreshed (the message says why, without secrets)."""


@dataclass
class RefreshResult:
    """What ``refresh_catalogs`` did."""

    refreshed: list[str] = field(default_factory=list)
    """Providers whose entry was written."""
    errors: dict[str, str] = field(default_factory=dict)
    """Provider -> why its catalogue could not be refreshed."""
    timed_out: bool = False


def catalog_base_url(explicit: str | None = None) -> str:
    """The catalogue server: ``explicit``, else ``$PI_CATALOG_BASE_URL``, else pi.dev."""
    return (explicit or os.environ.get(CATALOG_URL_ENV, "").strip() or DEFAULT_CATALOG_BASE_URL).rstrip("/")


def user_agent() -> str:
    from . import builtin_catalog

    machine = {"x86_64": "x64", "aarch64": "arm64", "AMD64": "x64"}.get(platform.machine(), platform.machine())
    return f"pi/{builtin_catalog().source.version} ({sys.platform}; python {platform.python_version()}; {machine})"


async def refresh_catalogs(registry: ModelRegistry, store: Path, *, base_url: str | None = None,
                           providers: Iterable[str] | None = None, total_seconds: float = TOTAL_SECONDS) -> RefreshResult:
    """Refresh the live catalogue of every configured built-in provider into ``store``.

    Args:
        registry: Decides which providers are configured and gives their keys and base URLs.
        store: models-store.json.
        base_url: The catalogue server (see ``catalog_base_url``).
        providers: Only these (default: every built-in provider with credentials).
        total_seconds: The whole refresh's limit.

    Returns:
        Which providers were refreshed and why the others failed. Never raises for a
        provider's failure.
    """
    from . import builtin_catalog

    server = catalog_base_url(base_url)
    wanted = list(providers) if providers is not None else list(builtin_catalog().providers)
    result = RefreshResult()
    with registry.credential_lookups():
        configured = [pid for pid in wanted if registry.provider_has_credentials(pid)]
    jobs = {pid: asyncio.ensure_future(_refresh_one(registry, store, server, pid)) for pid in configured}
    if not jobs:
        return result
    done, pending = await asyncio.wait(jobs.values(), timeout=total_seconds)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
        result.timed_out = True
    for pid, task in jobs.items():
        if task not in done:
            continue
        error = task.exception()
        if error is None:
            result.refreshed.append(pid)
        else:
            result.errors[pid] = str(error) or type(error).__name__
    return result


async def _refresh_one(registry: ModelRegistry, store: Path, server: str, pid: str) -> None:
    kind = source_kind(pid)
    if kind == "gateway":
        await _refresh_gateway(registry, store, pid)
    elif kind == "personalized":
        await _refresh_personalized(registry, store, server, pid)
    else:
        await _refresh_from_pi_dev(store, server, pid)


async def _save(store: Path, pid: str, entry: StoreEntry) -> None:
    await asyncio.to_thread(update_entry, store, pid, lambda _current: entry)


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


# ---------------------------------------------------------------------------- pi.dev


async def _request_catalog(server: str, pid: str, etag: str | None = None) -> httpx2.Response:
    from urllib.parse import quote, urlencode

    headers = {"accept": "application/json", "User-Agent": user_agent()}
    if etag:
        headers["if-none-match"] = etag
    url = f"{server}/api/models/providers/{quote(pid, safe='')}?{urlencode({'types': ','.join(MODEL_TYPES)})}"
    return await _get(url, headers)


async def _get(url: str, headers: dict[str, str], attempt_seconds: float = ATTEMPT_SECONDS) -> httpx2.Response:
    """GET with Pi's bounded retry for management requests."""
    from ... import http

    for attempt in range(RETRIES + 1):
        try:
            response = await asyncio.wait_for(http.request("GET", url, headers=headers, timeout=attempt_seconds),
                                              attempt_seconds)
        except (http.HTTPError, TimeoutError) as exc:
            if attempt >= RETRIES:
                raise CatalogError(_fetch_failure(exc)) from None
            continue
        if response.status_code in _RETRY_STATUS and attempt < RETRIES:
            continue
        return response
    raise AssertionError("unreachable")


def _fetch_failure(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer in {ATTEMPT_SECONDS:.0f} s"
    return f"fetch failed ({exc})"


def _parse_catalog(pid: str, body: Any) -> list[dict[str, Any]]:
    """The model objects of a pi.dev answer: a list, ``{"models": [...]}`` or an object of models."""
    if isinstance(body, list):
        entries = body
    elif isinstance(body, dict) and isinstance(body.get("models"), list):
        entries = body["models"]
    elif isinstance(body, dict):
        entries = list(body.values())
    else:
        raise CatalogError(f'Invalid model catalog for provider "{pid}"')
    return [{**entry, "provider": pid} for entry in entries
            if isinstance(entry, dict) and "id" in entry and entry.get("type", "chat") in MODEL_TYPES]


def _last_modified(response: httpx2.Response) -> int:
    try:
        return int(parsedate_to_datetime(response.headers.get("last-modified", "")).timestamp() * 1000)
    except (TypeError, ValueError, IndexError):
        return 0


def _read_catalog(pid: str, response: httpx2.Response) -> StoreEntry:
    try:
        body = response.json()
    except ValueError:
        raise CatalogError(f'Invalid model catalog for provider "{pid}"') from None
    entry: StoreEntry = {"models": _parse_catalog(pid, body), "lastModified": _last_modified(response)}
    etag = response.headers.get("etag")
    if etag:
        entry["etag"] = etag
    return entry


async def _refresh_from_pi_dev(store: Path, server: str, pid: str) -> None:
    stored = await asyncio.to_thread(read_entry, store, pid)
    # Revalidate only with a saved body behind the etag, so a 304 never leaves nothing.
    etag = stored.get("etag") if stored and stored.get("models") else None
    response = await _request_catalog(server, pid, etag if isinstance(etag, str) else None)
    checked = _now_ms()
    if response.status_code == 304 and stored is not None:
        await _save(store, pid, {**stored, "checkedAt": checked})
        return
    if response.status_code in (404, 501):
        kept = {k: v for k, v in (stored or {"models": []}).items() if k != "etag"}
        await _save(store, pid, {**kept, "checkedAt": checked, "lastModified": 0})
        return
    if not 200 <= response.status_code < 300:
        await _save(store, pid, {**(stored or {"models": []}), "checkedAt": checked})
        raise CatalogError(f"Model catalog request failed for {pid}: {response.status_code}")
    entry = _read_catalog(pid, response)
    await _save(store, pid, {**entry, "checkedAt": checked})


# ---------------------------------------------------------------------------- OpenRouter


def _shipped_rows(pid: str) -> list[dict[str, Any]]:
    from . import builtin_catalog

    catalog = builtin_catalog()
    return [{"type": kind, **row, "provider": pid} for kind in MODEL_TYPES for row in catalog.rows(pid, kind)]


def _merge(base: list[dict[str, Any]], extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    merged = {(m.get("type", "chat"), m["id"]): m for m in base}
    for model in extra:
        merged[(model.get("type", "chat"), model["id"])] = model
    return list(merged.values())


def _per_million(value: Any, fallback: float) -> float:
    try:
        per_token = float(value)
    except (TypeError, ValueError):
        return fallback
    if per_token < 0:
        return fallback
    value = round(per_token * 1_000_000, 6)
    return int(value) if value.is_integer() else value  # 3, as Pi writes it, not 3.0


def openrouter_cost(pricing: dict[str, Any]) -> dict[str, Any]:
    """OpenRouter's $/token prices as $/1M tokens; prompt-length overrides become tiers (Pi's rule)."""
    base = {"input": _per_million(pricing.get("prompt"), 0), "output": _per_million(pricing.get("completion"), 0),
            "cacheRead": _per_million(pricing.get("input_cache_read"), 0),
            "cacheWrite": _per_million(pricing.get("input_cache_write"), 0)}
    tiers = []
    for override in pricing.get("overrides") or ():
        if not isinstance(override, dict) or override.get("min_prompt_tokens") is None:
            continue
        if any(override.get(k) is not None for k in ("utc_start", "utc_end", "utc_days")):
            continue  # time-of-day prices: a model's cost cannot say them
        tiers.append({"inputTokensAbove": override["min_prompt_tokens"],
                      "input": _per_million(override.get("prompt"), base["input"]),
                      "output": _per_million(override.get("completion"), base["output"]),
                      "cacheRead": _per_million(override.get("input_cache_read"), base["cacheRead"]),
                      "cacheWrite": _per_million(override.get("input_cache_write"), base["cacheWrite"])})
    return {**base, "tiers": tiers} if tiers else base


async def _personalize(models: list[dict[str, Any]], key: str | None, base_url: str) -> list[dict[str, Any]]:
    """``models`` narrowed to the chat models the key may use, with the key's limits and prices."""
    if not key:
        return models
    response = await _get(f"{base_url.rstrip('/')}/models/user",
                          {"accept": "application/json", "authorization": f"Bearer {key}"}, OPENROUTER_SECONDS)
    if response.status_code in (401, 403, 404):
        return models  # a proxy or a key without the endpoint: the catalogue as it is
    if not 200 <= response.status_code < 300:
        raise CatalogError(f"OpenRouter model list request failed: {response.status_code}")
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise CatalogError("Invalid OpenRouter model list response")
    allowed = {e["id"]: e for e in body["data"] if isinstance(e, dict) and isinstance(e.get("id"), str)}
    out = []
    for model in models:
        if model.get("type", "chat") != "chat":
            out.append(model)
            continue
        entry = allowed.get(model["id"])
        if entry is None:
            continue
        top_provider = entry.get("top_provider")
        top: dict[str, Any] = top_provider if isinstance(top_provider, dict) else {}
        pricing = entry.get("pricing")
        out.append({**model,
                    "contextWindow": top.get("context_length") or entry.get("context_length") or model.get("contextWindow"),
                    "maxTokens": top.get("max_completion_tokens") or model.get("maxTokens"),
                    "cost": openrouter_cost(pricing) if isinstance(pricing, dict) else model.get("cost")})
    return out


def _provider_key(registry: ModelRegistry, pid: str) -> tuple[str | None, str]:
    """The provider's key, and its base URL (models.json's, else the catalogue's provider URL)."""
    from . import provider_info

    models = registry.models_of(pid)
    key = registry.resolve_api_key(models[0]) if models else None
    config = registry.provider_config(pid)
    info = provider_info(pid)
    base_url = (config.fields.base_url if config is not None else None) or (info.base_url if info else None) or ""
    return key, base_url


async def _refresh_personalized(registry: ModelRegistry, store: Path, server: str, pid: str) -> None:
    from . import builtin_catalog

    key, base_url = await asyncio.to_thread(_provider_key, registry, pid)
    response = await _request_catalog(server, pid)
    remote: list[dict[str, Any]] = []
    if response.status_code not in (404, 501):
        if not 200 <= response.status_code < 300:
            raise CatalogError(f"Model catalog request failed for {pid}: {response.status_code}")
        catalog = _read_catalog(pid, response)
        if is_newer(catalog.get("lastModified"), builtin_catalog().generated_at_ms):
            remote = catalog["models"]
    personal = await _personalize(_merge(_shipped_rows(pid), remote), key, base_url)
    await _save(store, pid, {"models": personal, "checkedAt": _now_ms()})


# ---------------------------------------------------------------------------- Radius


def radius_gateway(registry: ModelRegistry, pid: str) -> str:
    """The gateway of a Radius provider: models.json's ``baseUrl`` (without ``/v1``) when it
    configures one with ``oauth: "radius"``, else Radius's own."""
    config = registry.provider_config(pid)
    if config is not None and config.fields.oauth == "radius" and config.fields.base_url:
        url = config.fields.base_url.rstrip("/")
        return url[:-3] if url.endswith("/v1") else url
    return DEFAULT_RADIUS_GATEWAY


async def _refresh_gateway(registry: ModelRegistry, store: Path, pid: str) -> None:
    key, _ = await asyncio.to_thread(_provider_key, registry, pid)
    gateway = radius_gateway(registry, pid)
    headers = {"accept": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    response = await _get(f"{gateway}/v1/config", headers)
    if not 200 <= response.status_code < 300:
        from ..redaction import redact

        text = redact(response.text.strip(), [key])
        text = text if len(text) <= 512 else text[:512] + "…"
        raise CatalogError(f"Could not load Radius config from {gateway}: {response.status_code}: {text}")
    try:
        config = response.json()
    except ValueError:
        config = None
    models = config.get("models") if isinstance(config, dict) else None
    if not isinstance(config, dict) or not isinstance(config.get("baseUrl"), str) or not isinstance(models, list):
        raise CatalogError(f"Invalid Radius config from {gateway}")
    rows = [{**m, "api": "pi-messages", "provider": pid, "baseUrl": config["baseUrl"]} for m in models
            if isinstance(m, dict) and isinstance(m.get("id"), str) and isinstance(m.get("name"), str)
            and isinstance(m.get("reasoning"), bool) and isinstance(m.get("input"), list)
            and isinstance(m.get("cost"), dict) and isinstance(m.get("contextWindow"), int | float)
            and isinstance(m.get("maxTokens"), int | float)]
    await _save(store, pid, {"models": rows, "checkedAt": _now_ms()})
