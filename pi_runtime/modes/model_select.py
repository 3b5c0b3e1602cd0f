"""Resolving ``--model``, ``--provider``, ``--thinking`` and ``--models`` against the registry.

Pi's rules: a pattern is ``provider/id``, an exact id, or a fuzzy match on id and name, with
an optional ``:<thinking>`` suffix; ``--provider`` restricts the lookup; when several
providers match, the one with credentials wins. ``--models`` takes comma-separated patterns
(globs allowed) for the cycling scope.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Protocol

from ..ai.models import ModelNotFoundError
from ..ai.types import THINKING_LEVELS, Model

LEVELS = THINKING_LEVELS


class ThinkingLevelError(ValueError):
    """An unknown thinking level on the command line."""


def check_level(level: str) -> str:
    """Validate a thinking level name.

    Raises:
        ThinkingLevelError: Not one of Pi's levels.
    """
    if level not in LEVELS:
        raise ThinkingLevelError(f"Unknown thinking level '{level}': use {', '.join(LEVELS)}")
    return level


def split_thinking(pattern: str) -> tuple[str, str | None]:
    """``"sonnet:high"`` -> ``("sonnet", "high")``; a suffix that is no level stays in the id."""
    head, sep, tail = pattern.rpartition(":")
    if sep and head and tail in LEVELS:
        return head, tail
    return pattern, None


def _fuzzy(registry: Any, pattern: str, provider: str | None) -> Model | None:
    wanted = pattern.lower()
    hits = registry.matching(lambda p, mid, name: (provider is None or p == provider) and (
        wanted in mid.lower() or wanted in name.lower() or wanted in f"{p}/{mid}".lower()))
    if not hits:
        return None
    # Prefer credentials, then the shortest id (an alias over a dated snapshot).
    hits.sort(key=lambda m: (not registry.has_credentials(m), len(m.id), m.id))
    return hits[0]


def find_model(registry: Any, pattern: str, provider: str | None = None) -> Model:
    """Resolve one model pattern (without a thinking suffix).

    Raises:
        ModelNotFoundError: Nothing matches; the message lists the closest models.
    """
    if provider is not None:
        if provider not in registry.providers():
            raise ModelNotFoundError(f"{provider}/{pattern}", registry.suggest(f"{provider}/{pattern}"), registry.errors,
                                     _problem(registry, f"{provider}/{pattern}"))
        found = registry.find(provider, pattern.split("/", 1)[1] if pattern.startswith(provider + "/") else pattern)
        if found is None:
            found = _fuzzy(registry, pattern, provider)
        if found is None:
            raise ModelNotFoundError(f"{provider}/{pattern}", registry.suggest(pattern), registry.errors,
                                     _problem(registry, f"{provider}/{pattern}"))
        return found
    found = registry.lookup(pattern) or _fuzzy(registry, pattern, None)
    if found is None:
        raise ModelNotFoundError(pattern, registry.suggest(pattern), registry.errors, _problem(registry, pattern))
    return found


def _problem(registry: Any, ref: str) -> str | None:
    """Why the provider ``ref`` names has no models now (its server is down), if that is known."""
    problems: dict[str, str] = getattr(registry, "provider_problems", {})
    return next((text for name, text in problems.items() if ref.startswith(name + "/")), None)


def resolve_model_arg(registry: Any, value: str, provider: str | None = None) -> tuple[Model, str | None]:
    """``--model`` value -> (model, thinking level from its suffix or None)."""
    try:
        return find_model(registry, value, provider), None
    except ModelNotFoundError:
        pattern, level = split_thinking(value)
        if level is None:
            raise
        return find_model(registry, pattern, provider), level


class ProviderModels(Protocol):
    """What :func:`custom_model` reads of the registry (``ModelRegistry``)."""

    def providers(self) -> list[str]: ...
    def models_of(self, provider: str) -> list[Model]: ...


def custom_model(registry: ProviderModels, value: str, provider: str | None,
                 thinking_given: bool) -> tuple[Model, str | None, str] | None:
    """Pi's answer to a ``--model`` that names a provider it knows and an id it does not (a model
    newer than the catalogue): that provider's default model (else its first) under the new id,
    with Pi's warning. Returns (model, thinking level from the suffix, warning), or None when no
    known provider is named. With ``--thinking`` given, a ``:level`` suffix stays part of the id,
    as in Pi."""
    pattern, level = (value, None) if thinking_given else split_thinking(value)
    known = {name.lower(): name for name in registry.providers()}
    target = known.get(provider.lower()) if provider else None
    if target is not None:
        model_id = pattern[len(target) + 1:] if pattern.lower().startswith(target.lower() + "/") else pattern
    else:
        head, sep, model_id = pattern.partition("/")
        target = known.get(head.lower()) if sep else None
    if target is None or not model_id:
        return None
    models = registry.models_of(target)
    if not models:
        return None
    from ..ai.catalog import builtin_catalog

    info = builtin_catalog().providers.get(target)
    base = next((m for m in models if info is not None and m.id == info.default_model), models[0])
    model = base.model_copy(update={"id": model_id, "name": model_id})
    return model, level, f'Model "{model_id}" not found for provider "{target}". Using custom model id.'


def scope_with_warnings(registry: Any, patterns: list[str]) -> tuple[list[tuple[Model, str | None]], list[str]]:
    """Scope patterns (``--models``, ``enabledModels``) -> the scoped models, and a warning in Pi's
    words for each pattern that matches nothing (the others still count; nothing stops start-up)."""
    from ..ai.models import ModelNotFoundError

    out: list[tuple[Model, str | None]] = []
    warnings: list[str] = []
    for pattern in (p.strip() for p in patterns):
        if not pattern:
            continue
        try:
            found = resolve_scope(registry, pattern)
        except (ModelNotFoundError, ValueError):
            warnings.append(f'No models match pattern "{pattern}"')
            continue
        out.extend(pair for pair in found if all(pair[0].ref != m.ref for m, _ in out))
    return out, warnings


def resolve_scope(registry: Any, spec: str) -> list[tuple[Model, str | None]]:
    """``--models`` value -> the scoped models for cycling, in the given order.

    Raises:
        ModelNotFoundError: A pattern matched nothing.
    """
    out: list[tuple[Model, str | None]] = []
    seen: set[str] = set()
    for raw in (p.strip() for p in spec.split(",")):
        if not raw:
            continue
        pattern, level = split_thinking(raw)
        if any(ch in pattern for ch in "*?["):
            glob = pattern.lower()
            models = registry.matching(lambda p, mid, _name, glob=glob: fnmatch.fnmatchcase(f"{p}/{mid}".lower(), glob)
                                       or fnmatch.fnmatchcase(mid.lower(), glob))
            if not models:
                raise ModelNotFoundError(pattern, registry.suggest(pattern.replace("*", "")), registry.errors)
        else:
            models = [find_model(registry, pattern)]
        for model in models:
            if model.ref not in seen:
                seen.add(model.ref)
                out.append((model, level))
    return out
