"""The model registry: built-in catalogue + models.json, lookup, and credential resolution.

``ModelRegistry`` is what the CLI, the kernel and ``/model`` ask for models. It merges the
built-in catalogue (``catalog/``: Pi's 43 providers, generated data) and the live catalogues
saved in ``<agent dir>/models-store.json`` with ``<agent dir>/models.json``
(``models_json.py``), one provider at a time as they are needed (``model_table.py``), finds
models by ``provider/id``, bare id or name, suggests close matches, and resolves the
credentials for a request in Pi's order:

1. a runtime key (``--api-key``, ``set_runtime_api_key``),
2. a stored credential (auth.json, through any ``CredentialSource`` such as ``AuthStorage``),
3. ``apiKey`` from models.json,
4. the provider's environment variables, in Pi's ways (``env_keys.py``).

A model whose base URL is on this machine (localhost) needs no key at all. Problems in
models.json end up in ``errors`` / ``warnings`` and never cost the built-in models.

Headers configured in models.json may hold secrets or ``$VAR`` / ``!command`` templates, so
they are kept off ``Model.headers``; ``request_auth(model).headers`` gives them resolved.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from .env_keys import AMBIENT, EnvAuth, credential_hint, describe_env, env_var_names, resolve_env_auth
from .model_table import ModelTable
from .models_json import ProviderConfig
from .oauth_logins import OAuthLogins
from .provider_endpoints import credential_endpoint
from .types import VIRTUAL_MODEL_API, Model

if TYPE_CHECKING:
    from .virtual import ModelRoute, ModelRouteRequest, VirtualModelDefinition


class ModelNotFoundError(LookupError):
    """No model matches a reference; ``suggestions`` holds the closest ``provider/id`` refs."""

    def __init__(self, ref: str, suggestions: list[str], config_errors: list[str] | None = None,
                 provider_problem: str | None = None):
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        # A broken models.json is the likeliest reason a configured model is unknown: say so.
        broken = f" models.json was not read in full: {'; '.join(config_errors)}" if config_errors else ""
        # A provider whose model list could not be fetched (a local server that is down) says why.
        problem = f" {provider_problem}" if provider_problem else ""
        super().__init__(f"Unknown model '{ref}'.{hint}{broken}{problem}")
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
        store_path: The saved live catalogues; ``models-store.json`` beside models.json when
            None (none when no models.json is read, as Pi keeps them in memory then).
    """

    def __init__(
        self,
        models_path: str | Path | None = None,
        auth: CredentialSource | None = None,
        *,
        read_models_json: bool = True,
        env: Mapping[str, str] | None = None,
        builtins: bool = True,
        store_path: str | Path | None = None,
    ) -> None:
        if models_path is None and read_models_json:
            from ..paths import models_path as default_models_path

            models_path = default_models_path()
        self.models_path: Path | None = Path(models_path) if read_models_json and models_path else None
        if store_path is None and self.models_path is not None:
            from .catalog.store import STORE_NAME

            store_path = self.models_path.with_name(STORE_NAME)
        self.store_path: Path | None = Path(store_path) if store_path is not None else None
        self.auth = auth
        self._env = env
        self._builtins = builtins
        self._runtime_keys: dict[str, str] = {}
        OAuthLogins.__init__(self)
        self._extra: dict[tuple[str, str], Model] = {}
        self._virtual: dict[tuple[str, str], VirtualModelDefinition] = {}
        self.errors: list[str] = []
        """Problems that dropped part of models.json (file and field named in each)."""
        self.warnings: list[str] = []
        """Things ignored in models.json (unknown fields, unknown override ids)."""
        self.login_providers: set[str] = set()
        """Providers ``/login`` offers before they have models (llama.cpp: its models come from the
        router it is told about)."""
        self.provider_problems: dict[str, str] = {}
        """Provider -> why its dynamic model list is empty now (an unreachable llama.cpp router)."""
        self.refresh()

    def __repr__(self) -> str:
        return f"<ModelRegistry {len(self.providers())} providers, {len(self.errors)} errors>"

    # ------------------------------------------------------------------ loading

    def refresh(self) -> None:
        """(Re)read models.json (and the saved live catalogues) and start the model list over. Never raises."""
        from .catalog import builtin_catalog
        from .models_json import load_models_json
        from .stream import known_apis

        self.errors, self.warnings = [], []
        store = self.store_path if self._builtins else None
        self._table = ModelTable(builtins=self._builtins, store=store, errors=self.errors, warnings=self.warnings)
        loaded = None
        if self.models_path is not None:
            # Pi's wire APIs that pi has no module for yet are still accepted: such a model is
            # listed and its requests end with a clear "no provider for api" error.
            apis = set(known_apis()) | {api for info in builtin_catalog().providers.values() for api in info.apis}
            loaded = load_models_json(self.models_path, apis)
            self.errors.extend(loaded.errors)
            self.warnings.extend(loaded.warnings)
        self._table.reset(loaded, dict(self._extra))

    @property
    def _configs(self) -> dict[str, Any]:
        return self._table.configs

    def provider_config(self, provider: str) -> ProviderConfig | None:
        """What models.json says about ``provider`` (None when it says nothing)."""
        return self._table.configs.get(provider)

    def add_model(self, model: Model) -> None:
        """Add or replace a model at run time (extensions); kept across ``refresh()``."""
        self._extra[(model.provider, model.id)] = model
        self._table.put(model)

    def remove_model(self, provider: str, model_id: str) -> None:
        """Take back a model added with :meth:`add_model`; a built-in or models.json model it replaced returns."""
        if self._extra.pop((provider, model_id), None) is not None:
            self.refresh()

    # ------------------------------------------------------------------ virtual models (virtual.py)

    def register_virtual_model(self, definition: VirtualModelDefinition) -> Model:
        """List a virtual model under ``definition.provider`` (any provider id); registering the same
        provider and id again replaces it. It hides a physical model a later catalogue adds with its id.

        Raises:
            ValueError: Empty provider or id, an id of a physical model of that provider, a bad level.
        """
        from .virtual import create_virtual_model, is_virtual  # only when a virtual model is used

        provider, model_id = definition.provider, definition.id
        if not provider.strip() or not model_id.strip():
            raise ValueError("Virtual model provider and id must not be empty.")
        existing = self._table.find(provider, model_id)
        if existing is not None and not is_virtual(existing):
            raise ValueError(f"Virtual model {provider}/{model_id} conflicts with a physical model.")
        model = create_virtual_model(definition)
        self._virtual[(provider, model_id)] = definition
        self.add_model(model)
        return model

    def unregister_virtual_model(self, provider: str, model_id: str) -> bool:
        """Remove a virtual model (a physical model it hid returns); False when none is registered so."""
        if self._virtual.pop((provider, model_id), None) is None:
            return False
        self.remove_model(provider, model_id)
        return True

    @property
    def has_virtual_models(self) -> bool:
        """Whether any virtual model is registered (a model that routes each request elsewhere)."""
        return any(model.api == VIRTUAL_MODEL_API for model in self._extra.values())

    def physical(self, provider: str, model_id: str) -> Model | None:
        """The catalogue model ``provider/model_id`` when it is a physical one (exact id), else None."""
        model = self._table.find(provider, model_id)
        return model if model is not None and model.api != VIRTUAL_MODEL_API else None

    async def route_virtual(self, model: Model, request: ModelRouteRequest) -> ModelRoute:
        """The physical model and level for one request made with the virtual ``model``.

        Raises:
            RoutingError: Not registered (any more), or the router failed or answered wrongly.
        """
        from .virtual import RoutingError, route_request

        definition = self._virtual.get((model.provider, model.id))
        if definition is None:
            raise RoutingError(f"Virtual model {model.ref} is not registered.")
        return await route_request(definition, self, model, request)

    # ------------------------------------------------------------------ lookup

    def all(self) -> list[Model]:
        """Every model, provider by provider: the catalogue's order, then models.json's providers."""
        return self._table.all()

    def models_of(self, provider: str) -> list[Model]:
        """``provider``'s models in order (an empty list for an unknown provider)."""
        return self._table.models_of(provider)

    def providers(self) -> list[str]:
        """Provider ids that have at least one model."""
        return self._table.provider_ids()

    def provider_name(self, provider: str) -> str:
        """Display name of a provider (models.json ``name``, catalogue name, else the id)."""
        cfg = self._configs.get(provider)
        if cfg is not None and cfg.fields.name:
            return cfg.fields.name
        if self._builtins:
            from .catalog import provider_info

            info = provider_info(provider)
            if info is not None:
                return info.name
        return provider

    def find(self, provider: str, model_id: str) -> Model | None:
        """The model ``model_id`` of ``provider`` (exact id, else case-insensitive), or None."""
        model = self._table.find(provider, model_id)
        if model is not None:
            return model
        wanted = model_id.lower()
        return next((m for m in self._table.models_of(provider) if m.id.lower() == wanted), None)

    def matching(self, test: Callable[[str, str, str], bool]) -> list[Model]:
        """The models for which ``test(provider, id, name)`` holds, in order.

        Only the providers with a match are built, so a search over the whole catalogue for
        ``--model sonnet`` builds a handful of models, not 1,700.
        """
        return self._table.matching(test)

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
        matches = self.matching(lambda _p, mid, _n: mid == ref)
        matches = matches or self.matching(lambda _p, mid, _n: mid.lower() == wanted)
        matches = matches or self.matching(lambda _p, _m, name: name.lower() == wanted)
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
        """The ``provider/id`` refs closest to ``ref`` (for "did you mean" messages).

        Refs containing ``ref`` come first, then close ids (an id several providers serve is
        named once, by a provider with credentials if any, else the first), then close refs.
        """
        models = self.all()
        refs = [m.ref for m in models]
        wanted = ref.strip().lower()
        by_id: dict[str, str] = {}
        with self.credential_lookups():
            ranked = sorted(models, key=lambda m: not self.provider_has_credentials(m.provider))
        for model in ranked:
            by_id.setdefault(model.id.lower(), model.ref)
        out = [r for r in refs if wanted and wanted in r.lower()][:limit]
        import difflib  # only when a model was not found (not at every start-up)

        for close in difflib.get_close_matches(wanted, list(by_id), n=limit, cutoff=0.6):
            out.append(by_id[close])
        lowered = {r.lower(): r for r in reversed(refs)}
        for close in difflib.get_close_matches(wanted, list(lowered), n=limit, cutoff=0.6):
            out.append(lowered[close])
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

    def _resolve_key(self, model: Model) -> tuple[str | None, str | None, EnvAuth | None]:
        provider, env = model.provider, self._environ()
        if provider in self._runtime_keys:
            return self._runtime_keys[provider], "runtime", None
        if self.auth is not None:
            key = self._oauth_key(provider) or self.auth.get_api_key(provider)
            if key:
                return key, "auth.json", None
        configured = self._config_key(provider)
        if configured is not None:
            key = resolve_value(configured[0], where=configured[1], env=env)
            if key:
                return key, "models.json", None
        found = resolve_env_auth(provider, env)
        if found is not None:
            # A way with neither key nor header is a cloud account's (AWS, Google): the provider
            # reads those credentials itself and gets Pi's marker for the key.
            key = found.api_key if found.api_key is not None or found.headers else AMBIENT
            return key, f"env:{found.source}", found
        if (is_local_url(model.base_url) or model.api in KEYLESS_APIS) and provider not in self._oauth:
            return None, "local", None  # an OAuth provider needs its login even on this machine
        return None, None, None

    def resolve_api_key(self, model: Model) -> str | None:
        """The key for a request to ``model``, from the first source that has one.

        Returns:
            The key; None when there is none (check ``has_credentials``: local servers, AWS's
            credential chain and Google's application default credentials have none).

        Raises:
            CredentialError: A configured ``!command`` failed (message names the file/field).
        """
        return self._resolve_key(model)[0]

    def credential_lookups(self) -> AbstractContextManager[None]:
        """A block of many credential checks (one per provider): stored credentials are checked for a
        change once in it (``AuthStorage.lookups``)."""
        lookups = getattr(self.auth, "lookups", None)
        return lookups() if lookups is not None else nullcontext()

    def provider_has_credentials(self, provider: str) -> bool:
        """Whether ``provider`` is configured (a key or a way Pi accepts), without running any command.

        Models on this machine need no credentials; ``has_credentials(model)`` adds them.
        """
        env = self._environ()
        if provider in self._runtime_keys:
            return True
        if self.auth is not None and self.auth.has_api_key(provider):
            return True
        configured = self._config_key(provider)
        if configured is not None and is_resolvable_without_running(configured[0], env):
            return True
        return resolve_env_auth(provider, env) is not None

    def has_credentials(self, model: Model) -> bool:
        """Whether a request to ``model`` can authenticate, without running any command.

        A virtual model listed under a provider with physical models is available when they are
        (the provider's credentials, or a server on this machine); under an id no physical model
        uses it needs none (as in Pi)."""
        if self.provider_has_credentials(model.provider):
            return True
        if model.api == VIRTUAL_MODEL_API:
            physical = [m for m in self._table.models_of(model.provider) if m.api != VIRTUAL_MODEL_API]
            return not physical or any(self.has_credentials(m) for m in physical)
        return (is_local_url(model.base_url) or model.api in KEYLESS_APIS) and model.provider not in self._oauth

    def available_providers(self) -> list[str]:
        """Providers with at least one model that has credentials (``available()``'s providers,
        without building the models of a catalogue provider)."""
        with self.credential_lookups():
            return [p for p in self.providers() if self.provider_has_credentials(p)
                    or (not self._table.is_catalog_only(p) and any(self.has_credentials(m) for m in self._table.models_of(p)))]

    def available(self) -> list[Model]:
        """Models whose provider has usable credentials (what ``/model`` offers); a signed-in account
        that names its models (GitHub Copilot) offers only those. A catalogue provider without
        credentials is skipped unbuilt (none of its models is local)."""
        with self.credential_lookups():
            return self._available()

    def _available(self) -> list[Model]:
        out: list[Model] = []
        for provider in self.providers():
            if self.provider_has_credentials(provider):
                models = self._table.models_of(provider)
            elif not self._table.is_catalog_only(provider):
                models = [m for m in self._table.models_of(provider) if self.has_credentials(m)]
            else:
                continue
            ids = self._signed_in_models(provider) if models else None
            out.extend(models if ids is None else [m for m in models if m.id in ids])
        return out

    def request_auth(self, model: Model) -> RequestAuth:
        """Key and resolved headers for one request to ``model``.

        Raises:
            NoCredentialsError: No key from any source and the server is not local.
            CredentialError: A ``!command`` failed or a header refers to an unset variable.
        """
        key, source, from_env = self._resolve_key(model)
        oauth = self.oauth_config(model.provider) if source is None else None
        if oauth is not None and (model.provider in self._oauth or not env_var_names(model.provider)):
            raise NoCredentialsError(f"Not logged in to {oauth.name} ({model.provider}): run /login "
                                     f"{model.provider} (outside pi: pi auth login {model.provider})")
        if source is None and credential_hint(model.provider):
            raise NoCredentialsError(
                f"No credentials for provider '{model.provider}': {credential_hint(model.provider)}, or run /login"
            )
        if source is None:
            ways = describe_env(model.provider) or "an apiKey in models.json"
            raise NoCredentialsError(
                f"No API key for provider '{model.provider}': set {ways}, run /login, "
                f"or configure it in {self.models_path or 'models.json'}"
            )
        headers: dict[str, str | None] = {}
        if from_env is not None:
            # A bearer token goes as a header (ANTHROPIC_AUTH_TOKEN); None in Pi's map drops one.
            headers.update(from_env.headers)
        cfg = self._configs.get(model.provider)
        templates: list[tuple[dict[str, str], str]] = []
        if cfg is not None and cfg.fields.headers:
            templates.append((cfg.fields.headers, f"{cfg.where}.headers"))
        if (model.provider, model.id) in self._table.model_headers:
            templates.append(self._table.model_headers[(model.provider, model.id)])
        for mapping, where in templates:
            for name, raw in mapping.items():
                value = resolve_value(raw, where=f"{where}.{name}", env=self._environ())
                if value is None:
                    unset = ", ".join(referenced_env_names(raw))
                    raise CredentialError(f"{where}.{name}: environment variable not set ({unset})")
                headers[name] = value
        if cfg is not None and cfg.fields.auth_header and key:
            headers["Authorization"] = f"Bearer {key}"
        stored = self.auth.get(model.provider) if self.auth is not None and source == "auth.json" else None
        base_url, endpoint_headers = credential_endpoint(model.provider, model.base_url, key,
                                                         stored.env if stored is not None else {}, self._environ())
        headers.update(endpoint_headers)
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
