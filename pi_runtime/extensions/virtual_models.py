"""``pi.register_virtual_model`` / ``pi.unregister_virtual_model``: routers from extensions.

A definition is given as keywords (or a dict, in Python's or Pi's spelling): ``provider``, ``id``,
``name``, ``route``, and optionally ``thinking_levels``, ``context_window``, ``max_tokens`` and
``input``. ``route(request, ctx)`` (sync or async) gets a
:class:`~pi_runtime.ai.virtual.ModelRouteRequest` and the extension's ``ctx`` made for that request,
and returns a :class:`~pi_runtime.ai.virtual.ModelRoute` or a dict ``{"model", "thinking_level",
"state"}``. :class:`VirtualModelRegistrations` remembers which extension registered what, so
``/reload`` takes an extension's virtual models away before it registers them again;
``unregister_provider`` leaves them, as in Pi.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..ai.types import Model
from ..ai.virtual import ModelRouteRequest, RouteResult, VirtualModelDefinition

_SPELLINGS = {"thinkingLevels": "thinking_levels", "contextWindow": "context_window", "maxTokens": "max_tokens"}
_FIELDS = frozenset({"provider", "id", "name", "route", "thinking_levels", "context_window", "max_tokens", "input"})


def definition_from(fields: Mapping[str, Any], context: Callable[[], Any]) -> VirtualModelDefinition:
    """A ``VirtualModelDefinition`` from an extension's fields; ``route`` gets ``context()`` as ``ctx``.

    Raises:
        ValueError: A missing or unknown field, or a field of the wrong kind (one line naming it).
    """
    values = {_SPELLINGS.get(key, key): value for key, value in fields.items()}
    unknown = sorted(set(values) - _FIELDS)
    if unknown:
        raise ValueError(f"register_virtual_model: unknown field(s) {', '.join(unknown)}")
    for key in ("provider", "id"):
        if not isinstance(values.get(key), str) or not values[key].strip():
            raise ValueError(f"register_virtual_model: '{key}' must be a non-empty string")
    where = f"register_virtual_model({values['provider']}/{values['id']})"
    route = values.get("route")
    if not callable(route):
        raise ValueError(f"{where}: 'route' must be a function route(request, ctx)")
    for key in ("context_window", "max_tokens"):
        value = values.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{where}: '{key}' must be a whole number >= 0")
    levels = values.get("thinking_levels") or ("off",)
    inputs = values.get("input") or ("text", "image")
    if isinstance(levels, str) or isinstance(inputs, str):
        raise ValueError(f"{where}: 'thinking_levels' and 'input' are lists")

    def routed(request: ModelRouteRequest) -> RouteResult:
        return route(request, context())  # the router's own answer, checked by route_request

    return VirtualModelDefinition(
        provider=values["provider"], id=values["id"], name=str(values.get("name") or values["id"]), route=routed,
        thinking_levels=tuple(levels), context_window=values.get("context_window"),
        max_tokens=values.get("max_tokens"), input=tuple(inputs),
    )


class VirtualModelRegistrations:
    """The virtual models extensions registered in one model registry, by owner.

    Args:
        registry: Returns the session's ``ModelRegistry`` (None until known).
    """

    def __init__(self, registry: Callable[[], Any]) -> None:
        self._registry = registry
        self._owners: dict[tuple[str, str], str] = {}

    def register(self, owner: str, definition: VirtualModelDefinition) -> Model:
        """Add or replace ``definition`` for ``owner``.

        Raises:
            ValueError: No model registry, or the registry refused it (a physical model's id).
        """
        registry = self._registry()
        if registry is None:
            raise ValueError("register_virtual_model: this session has no model registry")
        model: Model = registry.register_virtual_model(definition)
        self._owners[(definition.provider, definition.id)] = owner
        return model

    def unregister(self, provider: str, model_id: str) -> bool:
        """Remove a virtual model whoever registered it (as Pi); False when there is none."""
        registry = self._registry()
        self._owners.pop((provider, model_id), None)
        return bool(registry is not None and registry.unregister_virtual_model(provider, model_id))

    def unregister_owner(self, owner: str) -> None:
        """Remove every virtual model ``owner`` registered (its extension is reloaded or failed)."""
        for provider, model_id in [key for key, who in self._owners.items() if who == owner]:
            self.unregister(provider, model_id)
