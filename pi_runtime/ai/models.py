"""The model registry: built-in catalogue + models.json, lookup, and credential resolution.

``ModelRegistry`` is what the CLI, the kernel and ``/model`` ask for models. It merges the
built-in catalogue (``catalog.py``) with ``<agent dir>/models.json`` (``models_json.py``),
finds models by ``provider/id``, bare id or name, suggests close matches, and resolves the
credentials for a request in Pi's order:

1. a runtime key (``--api-key``, ``set_runtime_api_key``),
2. a stored credential (auth.json, through any ``CredentialSource`` such as ``AuthStorage``),
3. ``apiKey`` from models.json,
4. the provider's environment variables (``env_keys.py``).

A model whose base URL is on this machine (localhost) needs no key at all. Problems in
models.json end up in ``errors`` / ``warnings`` and never cost the built-in models.

Headers configured in models.json may hold secrets or ``$VAR`` / ``!command`` templates, so
they are kept off ``Model.headers``; ``request_auth(model).headers`` gives them resolved.
"""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import catalog
from .abort import AbortSignal
from .credentials import (
    CredentialError,
    CredentialSource,
    NoCredentialsError,
    RequestAuth,
    is_local_url,
    is_resolvable_without_running,
    referenced_env_names,
    resolve_value,
)
from .env_keys import AMBIENT, ambient_credentials, credential_hint, env_var_names
from .models_json import ModelDef, ModelOverride, ProviderConfig, load_models_json
from .oauth_logins import OAuthLogins
from .types import Model

_MODEL_FIELDS = {
    "name", "reasoning", "thinkingLevelMap", "input", "inputLimits", "cost", "promptCache",
    "contextWindow", "maxTokens", "samplingParams", "samplingParamsByThinkingLevel", "compat",
}


class ModelNotFoundError(LookupError):
    """No model matches a reference; ``suggestions`` holds the closest ``provider/id`` refs."""

    def __init__(self, ref: str, suggestions: list[str], config_errors: list[str] | None = None):
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        # A broken models.json is the likeliest reason a configured model is unknown: say so.
        broken = f" models.json was not read in full: {'; '.join(config_errors)}" if config_errors else ""
        super().__init__(f"Unknown model '{ref}'.{hint}{broken}")
        self.ref = ref
        self.suggestions = suggestions


KEYLESS_APIS = frozenset({"scripted"})
"""Protocols that never authenticate (the in-process scripted provider)."""


class ModelRegistry(OAuthLogins):
    """Every known model, where to find it and how to authenticate to it.

    Args:
        models_path: models.json to read; ``<agent dir>/models.json`` when None.
        read_models_json: False reads no models.json at all (built-ins only).
        auth: Stored credentials (auth.json); None means none are stored.
        env: Environment for key lookup; ``os.environ`` (read at call time) when None.
        builtins: Include the built-in catalogue.
    """

    def __init__(
        self,
        models_path: str | Path | None = None,
        auth: CredentialSource | None = None,
        *,
        read_models_json: bool = True,
        env: Mapping[str, str] | None = None,
        builtins: bool = True,
    ) -> None:
        if models_path is None and read_models_json:
            from ..paths import models_path as default_models_path

            models_path = default_models_path()
        self.models_path: Path | None = Path(models_path) if read_models_json and models_path else None
        self.auth = auth
        self._env = env
        self._builtins = builtins
        self._runtime_keys: dict[str, str] = {}
        OAuthLogins.__init__(self)
        self._extra: dict[tuple[str, str], Model] = {}
        self.errors: list[str] = []
        """Problems that dropped part of models.json (file and field named in each)."""
        self.warnings: list[str] = []
        """Things ignored in models.json (unknown fields, unknown override ids)."""
        self.refresh()

    def __repr__(self) -> str:
        return f"<ModelRegistry {len(self._models)} models, {len(self.errors)} errors>"

    # ------------------------------------------------------------------ loading

    def refresh(self) -> None:
        """(Re)read models.json and rebuild the model list. Never raises."""
        from .stream import known_apis

        self._models: dict[tuple[str, str], Model] = {}
        self._configs: dict[str, ProviderConfig] = {}
        # Per-model header templates and where they were configured (for messages).
        self._model_headers: dict[tuple[str, str], tuple[dict[str, str], str]] = {}
        self.errors, self.warnings = [], []
        if self._builtins:
            for pid in catalog.PROVIDERS:
                for data in catalog.model_dicts(pid):
                    model = Model.model_validate(data)
                    self._models[(pid, model.id)] = model
        for key, model in self._extra.items():
            self._models[key] = model
        if self.models_path is None:
            return
        loaded = load_models_json(self.models_path, set(known_apis()))
        self.errors.extend(loaded.errors)
        self.warnings.extend(loaded.warnings)
        for cfg in loaded.providers.values():
            self._apply_provider(cfg)

    def _apply_provider(self, cfg: ProviderConfig) -> None:
        pid, f = cfg.id, cfg.fields
        self._configs[pid] = cfg
        existing = [m for (p, _), m in self._models.items() if p == pid]
        builtin_info = catalog.PROVIDERS.get(pid, {})
        # A provider-level baseUrl or compat re-points the provider's existing models too.
        if f.base_url or f.compat:
            for model in existing:
                update: dict[str, Any] = {}
                if f.base_url:
                    update["base_url"] = f.base_url
                if f.compat:
                    update["compat"] = {**(model.compat or {}), **f.compat}
                self._models[(pid, model.id)] = model.model_copy(update=update)
        default_api = f.api or (existing[0].api if existing else builtin_info.get("api"))
        default_url = f.base_url or (existing[0].base_url if existing else builtin_info.get("baseUrl"))
        if not existing and not cfg.models:
            self.warnings.append(f"{cfg.where}: not a built-in provider and defines no models")
        for index, mdef in enumerate(cfg.models):
            built = self._build_model(pid, mdef, default_api, default_url, cfg, index)
            if built is not None:
                self._models[(pid, built.id)] = built
        for mid, override in cfg.overrides.items():
            target = self._models.get((pid, mid))
            if target is None:
                self.warnings.append(f"{cfg.where}.modelOverrides: no model '{mid}' to override; ignored")
                continue
            self._models[(pid, mid)] = self._apply_override(
                target, override, f"{cfg.where}.modelOverrides.{mid}"
            )

    def _build_model(
        self, pid: str, mdef: ModelDef, api: str | None, url: str | None,
        cfg: ProviderConfig, index: int,
    ) -> Model | None:
        where = f"{cfg.where}.models[{index}]"
        api = mdef.api or api
        url = mdef.base_url or url
        if not api or not url:
            missing = " and ".join(n for n, v in (("api", api), ("baseUrl", url)) if not v)
            self.errors.append(
                f"{where}: no {missing} for model '{mdef.id}' (set it on the provider or the model)"
            )
            return None
        data = {k: v for k, v in mdef.model_dump(by_alias=True, exclude_none=True).items()
                if k in _MODEL_FIELDS}
        data.update(id=mdef.id, provider=pid, api=api, baseUrl=url)
        data.setdefault("name", mdef.id)
        if cfg.fields.compat or mdef.compat:
            data["compat"] = {**(cfg.fields.compat or {}), **(mdef.compat or {})}
        for key in ("contextWindow", "maxTokens"):
            if key in data:
                data[key] = int(data[key])
        if mdef.headers:
            self._model_headers[(pid, mdef.id)] = (dict(mdef.headers), f"{where}.headers")
        return Model.model_validate(data)

    def _apply_override(self, model: Model, override: ModelOverride, where: str) -> Model:
        data = model.to_wire()
        patch = override.model_dump(by_alias=True, exclude_unset=True)
        for key, value in patch.items():
            if key == "headers" and value:
                headers, _ = self._model_headers.get((model.provider, model.id), ({}, ""))
                self._model_headers[(model.provider, model.id)] = ({**headers, **value}, f"{where}.headers")
            elif key not in _MODEL_FIELDS:
                continue
            elif key == "samplingParamsByThinkingLevel" and isinstance(data.get(key), dict):
                merged = dict(data[key])
                for level, params in value.items():
                    merged[level] = {**merged.get(level, {}), **params}
                data[key] = merged
            elif isinstance(value, dict) and isinstance(data.get(key), dict):
                data[key] = {**data[key], **value}
            else:
                data[key] = int(value) if key in ("contextWindow", "maxTokens") else value
        return Model.model_validate(data)

    def add_model(self, model: Model) -> None:
        """Add or replace a model at run time (extensions); kept across ``refresh()``."""
        self._extra[(model.provider, model.id)] = model
        self._models[(model.provider, model.id)] = model

    def remove_model(self, provider: str, model_id: str) -> None:
        """Take back a model added with :meth:`add_model`; a built-in or models.json model it replaced returns."""
        if self._extra.pop((provider, model_id), None) is not None:
            self.refresh()

    # ------------------------------------------------------------------ lookup

    def all(self) -> list[Model]:
        """Every model, built-ins first in catalogue order, then models.json additions."""
        return list(self._models.values())

    def providers(self) -> list[str]:
        """Provider ids that have at least one model."""
        return list(dict.fromkeys(p for p, _ in self._models))

    def provider_name(self, provider: str) -> str:
        """Display name of a provider (models.json ``name``, catalogue name, else the id)."""
        cfg = self._configs.get(provider)
        if cfg is not None and cfg.fields.name:
            return cfg.fields.name
        return catalog.PROVIDERS.get(provider, {}).get("name", provider)

    def find(self, provider: str, model_id: str) -> Model | None:
        """The model ``model_id`` of ``provider`` (exact id, else case-insensitive), or None."""
        model = self._models.get((provider, model_id))
        if model is not None:
            return model
        wanted = model_id.lower()
        for (p, mid), candidate in self._models.items():
            if p == provider and mid.lower() == wanted:
                return candidate
        return None

    def lookup(self, ref: str) -> Model | None:
        """Find a model by ``provider/id``, bare id or display name; None when nothing matches.

        A bare id served by several providers resolves to one with credentials first.
        """
        ref = ref.strip()
        if "/" in ref:
            provider, _, rest = ref.partition("/")
            if provider in self.providers():
                model = self.find(provider, rest)
                if model is not None:
                    return model
        wanted = ref.lower()
        matches = [m for m in self._models.values() if m.id == ref]
        matches = matches or [m for m in self._models.values() if m.id.lower() == wanted]
        matches = matches or [m for m in self._models.values() if m.name.lower() == wanted]
        if not matches:
            return None
        for model in matches:
            if self.has_credentials(model):
                return model
        return matches[0]

    def resolve(self, ref: str) -> Model:
        """Like ``lookup`` but raises with suggestions.

        Raises:
            ModelNotFoundError: Nothing matches; its message lists close matches.
        """
        model = self.lookup(ref)
        if model is None:
            raise ModelNotFoundError(ref, self.suggest(ref))
        return model

    def suggest(self, ref: str, limit: int = 5) -> list[str]:
        """The ``provider/id`` refs closest to ``ref`` (for "did you mean" messages)."""
        refs = [m.ref for m in self._models.values()]
        wanted = ref.strip().lower()
        by_id = {m.id.lower(): m.ref for m in self._models.values()}
        out = [r for r in refs if wanted and wanted in r.lower()][:limit]
        for close in difflib.get_close_matches(wanted, [r.lower() for r in refs], n=limit, cutoff=0.6):
            out.append(next(r for r in refs if r.lower() == close))
        for close in difflib.get_close_matches(wanted, list(by_id), n=limit, cutoff=0.6):
            out.append(by_id[close])
        return list(dict.fromkeys(out))[:limit]

    # ------------------------------------------------------------------ credentials

    def set_runtime_api_key(self, provider: str, key: str | None) -> None:
        """Use ``key`` for ``provider`` ahead of every other source (None clears it)."""
        if key:
            self._runtime_keys[provider] = key
        else:
            self._runtime_keys.pop(provider, None)

    def _environ(self) -> Mapping[str, str]:
        return os.environ if self._env is None else self._env

    def _config_key(self, provider: str) -> tuple[str, str] | None:
        cfg = self._configs.get(provider)
        if cfg is None or not cfg.fields.api_key:
            return None
        return cfg.fields.api_key, f"{cfg.where}.apiKey"

    def _resolve_key(self, model: Model) -> tuple[str | None, str | None]:
        provider, env = model.provider, self._environ()
        if provider in self._runtime_keys:
            return self._runtime_keys[provider], "runtime"
        if self.auth is not None:
            key = self._oauth_key(provider) or self.auth.get_api_key(provider)
            if key:
                return key, "auth.json"
        configured = self._config_key(provider)
        if configured is not None:
            key = resolve_value(configured[0], where=configured[1], env=env)
            if key:
                return key, "models.json"
        for name in env_var_names(provider):
            if env.get(name):
                return env[name], f"env:{name}"
        if ambient_credentials(provider, env):  # AWS or Google cloud credentials: the provider reads them
            return AMBIENT, "env"
        if (is_local_url(model.base_url) or model.api in KEYLESS_APIS) and provider not in self._oauth:
            return None, "local"  # an OAuth provider needs its login even on this machine
        return None, None

    def resolve_api_key(self, model: Model) -> str | None:
        """The key for a request to ``model``, from the first source that has one.

        Returns:
            The key; None when there is none (check ``has_credentials`` — local servers
            need none).

        Raises:
            CredentialError: A configured ``!command`` failed (message names the file/field).
        """
        return self._resolve_key(model)[0]

    def has_credentials(self, model: Model) -> bool:
        """Whether a request to ``model`` can authenticate, without running any command."""
        provider, env = model.provider, self._environ()
        if provider in self._runtime_keys:
            return True
        if self.auth is not None and self.auth.has_api_key(provider):
            return True
        configured = self._config_key(provider)
        if configured is not None and is_resolvable_without_running(configured[0], env):
            return True
        if any(env.get(name) for name in env_var_names(provider)):
            return True
        if ambient_credentials(provider, env):
            return True
        return (is_local_url(model.base_url) or model.api in KEYLESS_APIS) and provider not in self._oauth

    def available(self) -> list[Model]:
        """Models whose provider has usable credentials (what ``/model`` offers); a signed-in account
        that names its models (GitHub Copilot) offers only those."""
        allowed: dict[str, set[str] | None] = {}

        def usable(model: Model) -> bool:
            if model.provider not in allowed:
                allowed[model.provider] = self._signed_in_models(model.provider)
            ids = allowed[model.provider]
            return ids is None or model.id in ids

        return [m for m in self._models.values() if self.has_credentials(m) and usable(m)]

    def request_auth(self, model: Model) -> RequestAuth:
        """Key and resolved headers for one request to ``model``.

        Raises:
            NoCredentialsError: No key from any source and the server is not local.
            CredentialError: A ``!command`` failed or a header refers to an unset variable.
        """
        key, source = self._resolve_key(model)
        oauth = self.oauth_config(model.provider) if source is None else None
        if oauth is not None and (model.provider in self._oauth or not env_var_names(model.provider)):
            raise NoCredentialsError(f"Not logged in to {oauth.name} ({model.provider}): run /login "
                                     f"{model.provider} (outside pi: pi auth login {model.provider})")
        if source is None and credential_hint(model.provider):
            raise NoCredentialsError(
                f"No credentials for provider '{model.provider}': {credential_hint(model.provider)}, or run /login"
            )
        if source is None:
            names = " or ".join(env_var_names(model.provider)) or "an apiKey in models.json"
            raise NoCredentialsError(
                f"No API key for provider '{model.provider}': set {names}, run /login, "
                f"or configure it in {self.models_path or 'models.json'}"
            )
        headers: dict[str, str] = {}
        cfg = self._configs.get(model.provider)
        templates: list[tuple[dict[str, str], str]] = []
        if cfg is not None and cfg.fields.headers:
            templates.append((cfg.fields.headers, f"{cfg.where}.headers"))
        if (model.provider, model.id) in self._model_headers:
            templates.append(self._model_headers[(model.provider, model.id)])
        for mapping, where in templates:
            for name, raw in mapping.items():
                value = resolve_value(raw, where=f"{where}.{name}", env=self._environ())
                if value is None:
                    unset = ", ".join(referenced_env_names(raw))
                    raise CredentialError(f"{where}.{name}: environment variable not set ({unset})")
                headers[name] = value
        if cfg is not None and cfg.fields.auth_header and key:
            headers["Authorization"] = f"Bearer {key}"
        base_url = None
        signed_in = self._oauth_auth(model.provider) if source == "auth.json" else None
        if signed_in is not None:
            headers = {**signed_in.headers, **headers}
            base_url = signed_in.base_url  # as in Pi, the credential's endpoint wins over the model's
        return RequestAuth(api_key=key, headers=headers, source=source, base_url=base_url)

    async def request_auth_async(self, model: Model, signal: AbortSignal | None = None) -> RequestAuth:
        """``request_auth`` in a worker thread, so a slow ``!command`` never blocks the loop.

        An OAuth provider's stored token is refreshed first when it (nearly) expired; ``signal``
        (the request's) reaches the provider's ``refresh_token``.

        Raises:
            OAuthRefreshError: The refresh failed (the message says to ``/login`` again).
            AbortError: ``signal`` fired during the refresh.
        """
        if self.auth is not None and model.provider not in self._runtime_keys:
            await self._refresh_oauth(model.provider, signal)
        return await asyncio.to_thread(self.request_auth, model)


def models_by_provider(models: Iterable[Model]) -> dict[str, list[Model]]:
    """Group models by provider id, keeping order."""
    out: dict[str, list[Model]] = {}
    for model in models:
        out.setdefault(model.provider, []).append(model)
    return out


__all__ = [
    "CredentialError", "CredentialSource", "ModelNotFoundError", "ModelRegistry",
    "NoCredentialsError", "RequestAuth", "is_local_url", "models_by_provider",
]
