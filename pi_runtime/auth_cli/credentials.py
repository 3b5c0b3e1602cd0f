"""``pi auth check``, ``pi auth print-api-key`` and ``pi auth print-bearer-token`` (cli.md).

They resolve a provider's credentials as a request would: a stored credential first (an OAuth token
refreshed when it expires within five minutes, saved before it is printed), else models.json, else
the environment. ``check`` prints ``ready``, ``not_ready`` or ``invalid`` (exit 0, 1 or 2; ``--json``
for the structured result; ``--credentials`` adds the credential; ``--no-refresh`` reads without
refreshing). The print commands write the secret itself to standard output, on purpose, and nothing
else; ``print-bearer-token`` insists on an OAuth token valid for ``--min-expiry`` (30 minutes when
not given), refreshing it for that.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Literal

from ..records import record

Kind = Literal["check", "api_key", "bearer_token"]
DEFAULT_BEARER_MIN_EXPIRY_MS = 30 * 60_000


class AuthCommandError(Exception):
    """A usage or resolution problem; printed as ``Error: <message>``."""


@record
class Request:
    provider: str | None
    model: str | None


def _registry(agent_dir: Path, *, read_only: bool = False) -> Any:
    from ..ai.models import ModelRegistry
    from ..auth import AuthStorage

    auth = AuthStorage(agent_dir / "auth.json")
    return ModelRegistry(agent_dir / "models.json", _ReadOnly(auth) if read_only else auth)


class _ReadOnly:
    """auth.json for ``--no-refresh``: read, never written (no refresh is stored)."""

    def __init__(self, auth: Any) -> None:
        self._auth = auth
        self.path = auth.path
        self.errors = auth.errors

    def get(self, provider: str) -> Any:
        return self._auth.get(provider)

    def get_api_key(self, provider: str) -> str | None:
        key: str | None = self._auth.get_api_key(provider)
        return key

    def has_api_key(self, provider: str) -> bool:
        return bool(self._auth.has_api_key(provider))

    def list(self) -> list[str]:
        return list(self._auth.list())


def _model_of(registry: Any, request: Request) -> Any:
    """The model ``--model`` names (within ``--provider`` when given)."""
    assert request.model is not None
    if request.provider:
        if request.provider not in _known_providers(registry):
            raise AuthCommandError(f'Unknown provider "{request.provider}". Use --list-models to see available '
                                   "providers/models.")
        model = registry.find(request.provider, request.model.removeprefix(f"{request.provider}/"))
    else:
        model = registry.lookup(request.model)
    if model is None:
        raise AuthCommandError(f'Model "{request.model}" not found. Use --list-models to see available models.')
    return model


def _known_providers(registry: Any) -> set[str]:
    return {*registry.providers(), *registry.oauth_providers()}


def _any_model(registry: Any, provider: str) -> Any:
    """A model to resolve ``provider``'s credentials with (a placeholder for a provider with none listed)."""
    for model in registry.all():
        if model.provider == provider:
            return model
    from ..ai.types import Model

    return Model(id="-", name="-", api="openai-completions", provider=provider, base_url="https://invalid.")


async def _resolve(registry: Any, provider: str, model: Any | None, *, refresh: bool,
                   min_validity_ms: int | None = None) -> Any:
    """The request auth for ``provider`` (refreshing a stored OAuth token when due)."""
    from ..ai import oauth

    model = model or _any_model(registry, provider)
    if refresh and min_validity_ms is not None and registry._stored_oauth(provider) is not None:
        config = registry.oauth_config(provider)
        wanted = max(oauth.MIN_VALIDITY_MS, min_validity_ms)

        def due(entry: dict[str, Any]) -> bool:
            expires = entry.get("expires")
            return not isinstance(expires, (int, float)) or time.time() * 1000 + wanted >= expires

        after = await oauth.fresh_credentials(registry.auth, provider, config, needs=due)
        if after is not None and due(after):
            raise RuntimeError(f"OAuth refresh returned a token that expires too soon for {provider}")
        return await asyncio.to_thread(registry.request_auth, model)
    if refresh:
        return await registry.request_auth_async(model)
    return await asyncio.to_thread(registry.request_auth, model)


def _credential_value(auth: Any) -> str | None:
    if auth.api_key:
        return str(auth.api_key)
    for name, value in (auth.headers or {}).items():
        if name.lower() == "authorization" and isinstance(value, str) and value.lower().startswith("bearer "):
            return value[7:].strip() or None
    return None


async def check(request: Request, agent_dir: Path, *, refresh: bool, want_credential: bool) -> dict[str, Any]:
    """The ``auth check`` result (``status``, ``provider``, ``reason`` or ``authType``, maybe ``credentials``)."""
    registry = _registry(agent_dir, read_only=not refresh)
    provider = request.provider
    model = None
    if request.model:
        model = _model_of(registry, request)
        provider = model.provider
    assert provider is not None
    if registry.errors or registry.auth.errors:
        return {"status": "invalid", "provider": provider, "reason": "invalid_state"}
    if provider not in _known_providers(registry):
        return {"status": "not_ready", "provider": provider, "reason": "provider_not_found"}
    from ..auth_methods import status_of

    status = status_of(registry, provider)
    if status is None:
        return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    if status.type == "oauth" and registry.oauth_config(provider) is None:
        return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    auth = None
    if refresh or want_credential:
        auth = await _resolve(registry, provider, model, refresh=refresh)
        if auth.api_key is None and not auth.headers:
            return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    result: dict[str, Any] = {"status": "ready", "provider": provider, "authType": status.type}
    if want_credential:
        stored = registry.auth.get(provider)
        value = stored.data.get("access") if not refresh and stored is not None and stored.type == "oauth" else None
        value = value or (_credential_value(auth) if auth is not None else None)
        if not value:
            return {"status": "not_ready", "provider": provider, "reason": "credential_not_available"}
        result["credentials"] = value
    return result


async def print_credential(kind: Kind, request: Request, agent_dir: Path, min_expiry_ms: int | None) -> str:
    """The one credential ``print-api-key`` / ``print-bearer-token`` prints.

    Raises:
        AuthCommandError: Unknown provider or model, none or several credentials match.
    """
    registry = _registry(agent_dir)
    types = {pid: registry.auth.get(pid).type for pid in registry.auth.list() if registry.auth.get(pid)}
    targets: list[tuple[str, Any]] = []
    if request.provider:
        if request.provider not in _known_providers(registry):
            raise AuthCommandError(f'Unknown provider "{request.provider}". Use --list-models to see available providers.')
        targets.append((request.provider, _model_of(registry, request) if request.model else None))
    else:
        for pid in types:
            model = registry.find(pid, str(request.model).removeprefix(f"{pid}/")) or (
                registry.lookup(str(request.model)) if str(request.model).startswith(f"{pid}/") else None)
            if model is not None and model.provider == pid:
                targets.append((pid, model))
        if not targets:
            raise AuthCommandError(f'Model "{request.model}" not found. Use --list-models to see available models.')
    found: list[tuple[str, str]] = []
    for pid, model in targets:
        stored_type = types.get(pid)
        if (kind == "api_key" and stored_type == "oauth") or (kind == "bearer_token" and stored_type != "oauth"):
            continue
        minimum = (min_expiry_ms if min_expiry_ms is not None else DEFAULT_BEARER_MIN_EXPIRY_MS) \
            if kind == "bearer_token" else None
        try:
            auth = await _resolve(registry, pid, model, refresh=True, min_validity_ms=minimum)
        except Exception as exc:  # noqa: BLE001 - a failed refresh or command: Pi says only this
            from ..ai.credentials import NoCredentialsError

            if isinstance(exc, NoCredentialsError):
                continue
            raise AuthCommandError("Failed to resolve credential") from None
        value = _credential_value(auth)
        if value:
            found.append((pid, value))
    if len(found) == 1:
        return found[0][1]
    if not found:
        pid = targets[0][0]
        if request.provider and kind == "api_key" and types.get(pid) == "oauth":
            raise AuthCommandError(f'Provider "{pid}" is configured with OAuth, not an API key')
        if request.provider and kind == "bearer_token" and types.get(pid) != "oauth":
            raise AuthCommandError(f'Provider "{pid}" is not configured with an OAuth bearer token')
        raise AuthCommandError(f"No usable {'API key' if kind == 'api_key' else 'OAuth bearer token'} is configured")
    names = ", ".join(pid for pid, _ in found)
    raise AuthCommandError(f"Multiple configured providers matched ({names}). Specify --provider.")


def check_output(result: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(result, separators=(",", ":"))
    return str(result.get("credentials") or result["status"])
