"""Virtual models: catalogue entries that pick a physical model for each request.

A virtual model is selected like any other (``/model``, ``--model``, ``enabledModels``, the
settings' default) and recorded as the selection (``model_change``). Before each request its
router maps the selection (virtual model, thinking level) to a physical pair; the provider only
ever sees the physical model, so every assistant message names the model that answered.

This module holds what the registry and the kernel share: the types a router sees and returns,
the catalogue entry built for a definition (api ``pi-virtual``, which no provider serves), the
routing call with its checks, and the rules for reading a session branch (which selection it
records, which router state it stores) as Pi 1.6 applies them (its ``virtual-models.md``); those rules
live in ``virtual_branch`` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..records import record
from .thinking_levels import clamp_thinking
from .types import VIRTUAL_MODEL_API, Model, ModelCost
from .types import is_virtual as is_virtual
from .virtual_branch import VIRTUAL_MODEL_STATE_ENTRY as VIRTUAL_MODEL_STATE_ENTRY
from .virtual_branch import branch_selection as branch_selection
from .virtual_branch import router_state as router_state

if TYPE_CHECKING:
    from .abort import AbortSignal

ALL_THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
"""Every level Pi's ``thinkingLevelMap`` can name."""

RouteReason = Literal["user", "continuation", "retry", "direct"]
"""Why a request is routed: the first request after a message the user wrote (``user``), any other
request of the agent loop (``continuation``), an automatic retry (``retry``), or a request made
outside the loop such as a compaction summary (``direct``)."""


class RoutingError(Exception):
    """Routing a request failed; the message is one line: the router's own words, or what the virtual
    model routed to and why that cannot be sent."""


@record(frozen=True, slots=True)
class RoutedModel:
    """A physical model and the thinking level a request to it used."""

    model: Model
    thinking_level: str | None = None


@record(frozen=True, slots=True)
class FailedRequest:
    """The failed request a ``retry`` repeats (the context no longer holds its message)."""

    model: Model
    thinking_level: str | None
    message: Any
    """The failed ``AssistantMessage``: its ``stop_reason`` and ``error_message`` say what went wrong."""


@record(slots=True)
class ModelRouteRequest:
    """What a router is asked (Pi's ``ModelRouteRequest``)."""

    model: Model
    """The selected virtual model."""
    thinking_level: str
    """The selected thinking level; its meaning is up to the router."""
    reason: RouteReason
    messages: list[Any] = field(default_factory=list)
    """The conversation for this request, system messages included."""
    previous: RoutedModel | None = None
    """Physical model and level of the latest successful response in ``messages``."""
    failed: FailedRequest | None = None
    """For ``retry``: the failed request. None when the router itself failed."""
    state: Any = None
    """Router state last returned on this branch (None before the first, and for ``direct``)."""
    signal: AbortSignal | None = None


@record(slots=True)
class ModelRoute:
    """A router's answer: the physical model and level for one request, and optionally new state."""

    model: Model
    thinking_level: str = "off"
    state: Any = None
    """New router state (JSON-serialisable); None or ``request.state`` itself keeps the current one."""


RouteResult = ModelRoute | Mapping[str, Any]
"""A ``ModelRoute`` or a dict with ``model``, ``thinking_level`` (or ``thinkingLevel``) and ``state``."""
RouteFunction = Callable[[ModelRouteRequest], RouteResult | Awaitable[RouteResult]]


@record(slots=True)
class VirtualModelDefinition:
    """A virtual model as registered (Pi's ``VirtualModelDefinition``)."""

    provider: str
    """The provider it is listed under; any id, also one with physical models."""
    id: str
    name: str
    route: RouteFunction
    thinking_levels: tuple[str, ...] = ("off",)
    """Levels offered for selection."""
    context_window: int | None = None
    """Shown before the first response; afterwards the answering model's limits apply."""
    max_tokens: int | None = None
    input: tuple[str, ...] = ("text", "image")


class ModelSource(Protocol):
    """What routing needs of the model registry."""

    def physical(self, provider: str, model_id: str) -> Model | None: ...
    def has_credentials(self, model: Model) -> bool: ...


def create_virtual_model(definition: VirtualModelDefinition) -> Model:
    """The catalogue entry of ``definition``: no price, unknown limits unless declared."""
    levels = tuple(definition.thinking_levels or ("off",))
    for level in levels:
        if level not in ALL_THINKING_LEVELS:
            raise ValueError(f"Virtual model {definition.provider}/{definition.id}: unknown thinking level {level!r}")
    inputs = list(definition.input or ("text", "image"))
    for kind in inputs:
        if kind not in ("text", "image"):
            raise ValueError(f"Virtual model {definition.provider}/{definition.id}: unknown input type {kind!r}")
    return Model(
        id=definition.id, name=definition.name or definition.id, api=VIRTUAL_MODEL_API, provider=definition.provider,
        base_url="", reasoning=any(level != "off" for level in levels),
        thinking_level_map={level: (level if level in levels else None) for level in ALL_THINKING_LEVELS},
        input=inputs,  # type: ignore[arg-type]  # checked above
        cost=ModelCost(), context_window=definition.context_window or 0, max_tokens=definition.max_tokens or 0,
    )


def latest_response(messages: Iterable[Any]) -> Any:
    """The latest successful assistant message (failed, aborted and unrouted ones skipped), or None."""
    for message in reversed(list(messages) if not isinstance(messages, list) else messages):
        if getattr(message, "role", None) == "assistant" and message.stop_reason not in ("error", "aborted"):
            return message
    return None


def _route_fields(value: Any, name: str) -> tuple[Any, Any, Any]:
    if isinstance(value, ModelRoute):
        return value.model, value.thinking_level, value.state
    if isinstance(value, Mapping):
        level = value.get("thinking_level", value.get("thinkingLevel", "off"))
        return value.get("model"), level, value.get("state")
    raise RoutingError(f"{name} returned {type(value).__name__}, not a ModelRoute or a dict with 'model'")


async def route_request(
    definition: VirtualModelDefinition, source: ModelSource, model: Model, request: ModelRouteRequest,
) -> ModelRoute:
    """Ask ``definition``'s router for one request and check its answer, as Pi does.

    The answer must name a physical catalogue model whose provider has credentials; its thinking
    level is clamped to that model; returned state must be JSON-serialisable.

    Raises:
        RoutingError: The router raised or gave an answer that cannot be sent (one line).
    """
    import inspect
    import json

    name = f"Virtual model {model.provider}/{model.id}"
    try:
        value = definition.route(request)
        if inspect.isawaitable(value):
            value = await value
    except RoutingError:
        raise
    except Exception as exc:  # a router's failure ends the request with an error response
        # The router's own words, as Pi records them (on one line; its type when it gave none).
        raise RoutingError(" ".join(str(exc).split()) or f"{name}: {type(exc).__name__}") from exc
    target, level, state = _route_fields(value, name)
    if target is None:
        raise RoutingError(f"{name} returned no model.")
    if isinstance(target, str):
        provider, _, model_id = target.partition("/")
    else:
        provider, model_id = getattr(target, "provider", ""), getattr(target, "id", "")
    routed = f"{name} routed to {provider}/{model_id}"
    physical = source.physical(provider, model_id) if provider and model_id else None
    if physical is None:
        raise RoutingError(f"{routed}, which is not a physical model.")
    if not source.has_credentials(physical):
        raise RoutingError(f"{routed}, which has no credentials.")
    if level is None:
        level = "off"  # none given: the lowest the routed model offers (clamped below), as Pi does
    if not isinstance(level, str) or level not in ALL_THINKING_LEVELS:
        raise RoutingError(f"{routed} with an unknown thinking level {level!r}.")
    if state is not None and state is not request.state:
        try:
            json.dumps(state)
        except (TypeError, ValueError) as exc:
            raise RoutingError(f"{name} returned router state that is not JSON-serialisable: {exc}") from exc
    return ModelRoute(physical, clamp_thinking(level, physical), state)
