"""``pi.register_provider``: models from an extension, on an existing wire protocol or its own.

Two forms:

- models on an existing api (``api="openai-completions"``, ``base_url=...``,
  ``api_key="$MY_KEY"``): the models join the registry like models.json ones;
- a custom protocol (``stream=fn``): ``fn(model, context, options)`` is an async generator
  of stream events (build them with :class:`~pi_runtime.extensions.streaming.StreamWriter`);
  :func:`~pi_runtime.extensions.streaming.text_stream` turns a plain
  ``async def reply(model, context, options) -> str`` into one.

With ``base_url`` and no ``models`` the provider's existing models are re-pointed (a proxy).
``refresh_models=fn`` makes the model list dynamic: ``await fn(RefreshContext)`` returns the
models, and replaces the provider's extension models each time ``pi.refresh_models()`` runs
(once at start-up, too). :class:`ProviderRegistrations` remembers what each extension added,
so ``unregister_provider`` and ``/reload`` take it away again (built-ins it overrode return).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import field
from typing import Any

from ..ai.types import Model
from ..records import record

IN_PROCESS_URL = "http://extension.localhost"
"""Base URL of models served by an in-process stream function. A ``.localhost`` host is
what the registry treats as needing no key, which is true of a function in this process."""
REFRESH_TIMEOUT = 15.0
"""Seconds a ``refresh_models`` callback may take at start-up (as Pi's model runtime)."""


def _model(data: Any, provider: str, api: str | None, base_url: str | None) -> Model:
    if isinstance(data, Model):
        values = data.to_wire()
    elif isinstance(data, dict):
        values = dict(data)
    else:
        raise ValueError(f"register_provider({provider!r}): a model must be a dict or Model, not {type(data).__name__}")
    if not values.get("id"):
        raise ValueError(f"register_provider({provider!r}): every model needs an 'id'")
    values["provider"] = provider
    values.setdefault("api", api)
    if not values.get("api"):
        raise ValueError(f"register_provider({provider!r}): model {values['id']!r} has no 'api' (set api= or stream=)")
    url = values.pop("base_url", None) or values.get("baseUrl") or base_url
    if not url:
        raise ValueError(f"register_provider({provider!r}): model {values['id']!r} has no base_url")
    values["baseUrl"] = url
    values.setdefault("name", values["id"])
    return Model.model_validate(values)


@record
class RefreshContext:
    """What a ``refresh_models`` callback receives."""

    provider: str
    signal: Any = None
    """An ``AbortSignal``-like object; pass it to blocking I/O (``pi.exec(..., signal=...)``)."""


@record
class Registration:
    """One provider an extension registered."""

    name: str
    owner: str
    """The extension's path."""
    api: str | None = None
    base_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    stream_api: str | None = None
    """The ``ext:<name>`` protocol its stream function was registered under."""
    refresh: Callable[..., Any] | None = None
    models: list[tuple[str, str]] = field(default_factory=list)
    """(provider, id) of every model it added or changed."""
    set_key: bool = False
    oauth: Any = None
    """Its ``OAuthConfig`` (``oauth=``), or None."""
    base_models: list[Any] = field(default_factory=list)
    """Its models before ``oauth.modify_models`` (what a new login or refresh re-applies it to)."""


class ProviderRegistrations:
    """The providers extensions registered in one model registry.

    Args:
        registry: The session's ``ModelRegistry`` (None until known).
    """

    def __init__(self, registry: Any = None) -> None:
        from .virtual_models import VirtualModelRegistrations

        self.registry = registry
        self._by_name: dict[str, Registration] = {}
        self.virtual = VirtualModelRegistrations(lambda: self.registry)
        """Extensions' virtual models (taken away with their owner, not with ``unregister``)."""

    def refreshable(self) -> list[str]:
        """Providers with a ``refresh_models`` callback."""
        return [n for n, r in self._by_name.items() if r.refresh is not None]

    def names(self, owner: str | None = None) -> list[str]:
        """Registered provider names (of one extension when ``owner`` is given)."""
        return [n for n, r in self._by_name.items() if owner is None or r.owner == owner]

    def register(
        self,
        owner: str,
        name: str,
        *,
        models: list[Any] | None = None,
        api: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: dict[str, str] | None = None,
        stream: Callable[..., Any] | None = None,
        refresh_models: Callable[..., Any] | None = None,
        oauth: Any = None,
    ) -> list[Model]:
        """Add (or re-point) a provider's models.

        Args:
            owner: The registering extension's path.
            name: Provider id (``provider/model`` refs use it).
            models: Model definitions (dicts with Pi's fields, or ``Model``); replace the provider's
                earlier extension models.
            api: Wire protocol of the models; ``ext:<name>`` with ``stream``.
            base_url: Endpoint for models that do not set their own.
            api_key: Key literal, ``$ENV`` / ``${ENV}`` reference or ``!command``.
            headers: Extra request headers for these models.
            stream: A provider stream function.
            refresh_models: ``await refresh_models(RefreshContext)`` -> model definitions.
            oauth: OAuth login for the provider (``/login``): an ``OAuthConfig``, a dict or an
                object with ``name``, ``login``, ``refresh_token``, ``get_api_key`` and
                optionally ``modify_models`` (see :mod:`pi_runtime.ai.oauth`).

        Returns:
            The models added or changed.

        Raises:
            ValueError: Missing model ids, api or base URL, or nothing to register.
        """
        from ..ai.credentials import resolve_value
        from ..ai.oauth import oauth_config
        from ..ai.stream import register_api

        registry = self._require()
        if not name or not isinstance(name, str):
            raise ValueError("register_provider: a provider needs a name")
        login = oauth_config(oauth, name) if oauth is not None else None
        previous = self._by_name.get(name)
        reg = Registration(name, owner, headers=dict(headers or {}), refresh=refresh_models)
        if stream is not None:
            api = api or f"ext:{name}"
            register_api(api, stream)
            reg.stream_api = api
            base_url = base_url or IN_PROCESS_URL
        reg.api, reg.base_url = api, base_url
        changed: list[Model] = []
        if models is not None:
            changed = [_model(m, name, api, base_url) for m in models]
        elif base_url and refresh_models is None:
            changed = [m.model_copy(update={"base_url": base_url}) for m in registry.all() if m.provider == name]
        if not changed and stream is None and api_key is None and refresh_models is None and login is None:
            raise ValueError(f"register_provider({name!r}): give models, a base_url for existing models, "
                             "a stream or refresh_models")
        if previous is not None and models is not None:
            self._remove_models(previous)
        if login is not None:
            reg.oauth, reg.base_models = login, list(changed)
            registry.set_oauth_provider(name, login, on_new_credentials=lambda: self.new_credentials(name))
            changed = self._with_credentials(reg, changed)
        self._add(reg, changed)
        if previous is not None:
            reg.models = list(dict.fromkeys(previous.models + reg.models)) if models is None else reg.models
            reg.set_key = previous.set_key
        if api_key:
            key = resolve_value(api_key, where=f"register_provider({name!r}).api_key")
            registry.set_runtime_api_key(name, key)
            reg.set_key = True
        self._by_name[name] = reg
        return changed

    def _with_credentials(self, reg: Registration, models: list[Model]) -> list[Model]:
        """``models`` through the OAuth config's ``modify_models`` while credentials are stored."""
        from ..ai.oauth import modified_models

        get = getattr(self._require().auth, "get", None)
        cred = get(reg.name) if get is not None and reg.oauth is not None else None
        if cred is None or cred.type != "oauth":
            return models
        try:
            return [_model(m, reg.name, reg.api, reg.base_url)
                    for m in modified_models(reg.oauth, models, cred.data)]
        except Exception as exc:  # noqa: BLE001 - odd stored credentials must not cost the provider
            from ..ai.redaction import redact

            text = redact(str(exc), [cred.data.get("access"), cred.data.get("refresh")])
            self._require().warnings.append(f"register_provider({reg.name!r}): oauth modify_models failed "
                                            f"({type(exc).__name__}: {text}); its models are used unchanged")
            return models

    def new_credentials(self, name: str) -> list[Model]:
        """Re-apply ``modify_models`` after ``/login`` or a token refresh stored new credentials
        for ``name``."""
        reg = self._by_name.get(name)
        if reg is None or reg.oauth is None or reg.oauth.modify_models is None:
            return []
        models = self._with_credentials(reg, reg.base_models)
        self._remove_models(reg)
        self._add(reg, models)
        return models

    def _add(self, reg: Registration, models: list[Model]) -> None:
        registry = self._require()
        if reg.headers:
            models = [m.model_copy(update={"headers": {**(m.headers or {}), **reg.headers}}) for m in models]
        for model in models:
            registry.add_model(model)
            reg.models.append((model.provider, model.id))

    def _remove_models(self, reg: Registration) -> None:
        registry = self._require()
        for provider, model_id in reg.models:
            registry.remove_model(provider, model_id)
        reg.models = []

    def unregister(self, name: str, owner: str | None = None) -> bool:
        """Remove a provider an extension registered and its models (built-ins it overrode return).

        Returns:
            False when no extension (or not ``owner``) registered ``name``.
        """
        from ..ai.stream import unregister_api

        reg = self._by_name.get(name)
        if reg is None or (owner is not None and reg.owner != owner):
            return False
        del self._by_name[name]
        self._remove_models(reg)
        if reg.stream_api is not None:
            unregister_api(reg.stream_api)
        if reg.set_key:
            self._require().set_runtime_api_key(name, None)
        if reg.oauth is not None:
            self._require().set_oauth_provider(name, None)
        return True

    def unregister_owner(self, owner: str) -> None:
        """Remove every provider and virtual model ``owner`` registered (its extension is being reloaded)."""
        for name in self.names(owner):
            self.unregister(name)
        self.virtual.unregister_owner(owner)

    async def refresh(self, name: str | None = None, *, signal: Any = None,
                      on_error: Callable[[str, str, str], Any] | None = None) -> list[Model]:
        """Run ``refresh_models`` callbacks (of ``name``, or all) and publish what they return.

        A failing callback keeps the provider's current models and is passed to ``on_error``
        as ``(owner, "refresh_models", error)``.

        Returns:
            Every model now published by the refreshed providers.
        """
        from .loader import summarize_error

        out: list[Model] = []
        for reg in list(self._by_name.values()):
            if reg.refresh is None or (name is not None and reg.name != name):
                continue
            try:
                value = reg.refresh(RefreshContext(reg.name, signal))
                if inspect.isawaitable(value):
                    value = await asyncio.wait_for(value, REFRESH_TIMEOUT) if signal is None else await value
                models = [_model(m, reg.name, reg.api, reg.base_url) for m in (value or [])]
            except Exception as exc:  # noqa: BLE001 - a failing refresh keeps the models it had
                if on_error is not None:
                    result = on_error(reg.owner, "refresh_models", summarize_error(exc, reg.owner))
                    if inspect.isawaitable(result):
                        await result
                continue
            self._remove_models(reg)
            self._add(reg, models)
            out.extend(models)
        return out

    def _require(self) -> Any:
        if self.registry is None:
            raise RuntimeError("register_provider: this session has no model registry")
        return self.registry
