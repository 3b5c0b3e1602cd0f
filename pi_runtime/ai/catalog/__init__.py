"""The built-in model catalogue: Pi 1.6's 43 providers and their ~1,850 models, as data.

``builtin.json`` is generated from Pi's published catalogue (the npm package
``@earendil-works/pi-ai``) by ``scripts/generate_catalog.py`` and committed; nothing in it is
typed by hand. Importing this package reads nothing: the file is read the first time a
provider or a model is asked for (``data.py``), and ``ModelRegistry`` builds ``Model`` objects
only for the providers it needs (``build.py``).

Chat models are what the registry, ``/model`` and ``--list-models`` offer; image and classifier
models are kept for codemode's ``models`` global (``image_models``, ``classifier_models``).
A live catalogue that Pi or ``pi update --models`` saved in ``<agent dir>/models-store.json``
overlays this one (``store.py``, ``refresh.py``).
"""

from __future__ import annotations

from typing import Any

from .data import AuthWay, BuiltinCatalog, ProviderInfo, builtin_catalog

PROVIDERS: dict[str, dict[str, str]]
"""Provider id -> ``name``, ``api``, ``baseUrl`` for the providers with chat models (built on first access)."""

__all__ = [
    "AuthWay", "BuiltinCatalog", "ProviderInfo", "builtin_catalog", "classifier_models", "image_models",
    "model_dicts", "provider_info",
]


def provider_info(provider: str) -> ProviderInfo | None:
    """The catalogue's entry for ``provider`` (name, API, base URL, auth), or None."""
    return builtin_catalog().providers.get(provider)


def _with_provider(provider: str, rows: list[dict[str, Any]], kind: str | None = None) -> list[dict[str, Any]]:
    extra = {"provider": provider} if kind is None else {"type": kind, "provider": provider}
    return [{**extra, **row} for row in rows]


def model_dicts(provider: str) -> list[dict[str, Any]]:
    """The provider's built-in chat models as Pi's model objects (camelCase dicts, fresh copies)."""
    return _with_provider(provider, builtin_catalog().rows(provider))


def image_models(provider: str | None = None) -> list[dict[str, Any]]:
    """Image-generation models (Pi's ``type: "image"`` entries) of one provider, or of all."""
    catalog = builtin_catalog()
    pids = [provider] if provider is not None else list(catalog.providers)
    return [m for pid in pids for m in _with_provider(pid, catalog.rows(pid, "image"), "image")]


def classifier_models(provider: str | None = None) -> list[dict[str, Any]]:
    """Classifier models (Pi's ``type: "classifier"`` entries) of one provider, or of all."""
    catalog = builtin_catalog()
    pids = [provider] if provider is not None else list(catalog.providers)
    return [m for pid in pids for m in _with_provider(pid, catalog.rows(pid, "classifier"), "classifier")]


def __getattr__(name: str) -> Any:
    # ``PROVIDERS`` (id -> name, api, baseUrl), the shape the hand-typed catalogue had; built
    # on first access so that importing the package still reads nothing.
    if name == "PROVIDERS":
        catalog = builtin_catalog()
        return {pid: {"name": info.name, "api": info.api or "", "baseUrl": info.base_url or ""}
                for pid, info in catalog.providers.items() if pid in catalog.chat_providers()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
