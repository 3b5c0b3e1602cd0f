"""Jev router: a virtual model that plans on a strong model and implements on a cheap one
(Pi's ``jev-router.ts``, in Python).

Registers ``jev/auto``, which routes between three OpenAI Codex models:

- Planning: GPT-5.6 Terra (Pi's example rates the first user message with the Jev classifier and
  plans the complex ones on GPT-5.6 Sol; pi has no classifier calls yet, so planning starts on
  Terra, as Pi's example does when the classifier is unavailable). A session that already answers
  on Sol or Terra keeps that model, so switching to ``jev/auto`` costs no prompt-cache miss.
- Implementation: GPT-5.6 Luna.

The planning model explores, plans and makes the first edit. After the first successful ``edit``
or ``write`` tool call, the next request of the same turn goes to Luna, and the session stays
there: it switches models once and accepts a single prompt-cache miss.

The phase is router state: pi stores it on the session branch (a ``pi.virtual-model-state``
entry), so it follows the session tree and survives compaction. The selected thinking level
passes through as the reasoning effort of the chosen model. Requests outside the agent loop, such
as compaction summaries, go to Luna.

Needs an OpenAI Codex login (``/login openai-codex``).

    pi -e docs/examples/extensions/jev_router.py --model jev/auto
"""

from __future__ import annotations

from typing import Any

from pi_runtime.ai.virtual import ModelRoute, ModelRouteRequest

PROVIDER = "openai-codex"
SOL = "gpt-5.6-sol"
TERRA = "gpt-5.6-terra"
LUNA = "gpt-5.6-luna"

EDIT_TOOLS = frozenset({"edit", "write"})
"""Tools whose successful result means implementation has started."""


def route_to(request: ModelRouteRequest, ctx: Any, model_id: str, state: dict[str, str] | None = None) -> ModelRoute:
    model = ctx.model_registry.find(PROVIDER, model_id)
    if model is None:
        raise LookupError(f"Model {PROVIDER}/{model_id} is not in the catalog")
    return ModelRoute(model, request.thinking_level, state)


def edited_this_turn(messages: list[Any]) -> bool:
    """Whether a tool call since the last user message edited a file successfully."""
    last_user = max((i for i, m in enumerate(messages) if getattr(m, "role", None) == "user"), default=-1)
    return any(getattr(m, "role", None) == "toolResult" and m.tool_name in EDIT_TOOLS and not m.is_error
               for m in messages[last_user + 1:])


def planning_model(request: ModelRouteRequest) -> str:
    """The planning model of a new session: one the session already answers on, else Terra."""
    previous = request.previous.model if request.previous is not None else None
    if previous is not None and previous.provider == PROVIDER and previous.id in (SOL, TERRA):
        return previous.id
    return TERRA


def extension(pi: Any) -> None:
    def route(request: ModelRouteRequest, ctx: Any) -> ModelRoute:
        if request.reason == "direct":
            return route_to(request, ctx, LUNA)
        state = request.state
        if not state:
            model = planning_model(request)
            return route_to(request, ctx, model, {"phase": "planning", "model": model})
        # The planning model made the first edit: hand the rest of the work to Luna.
        if state.get("phase") == "planning" and edited_this_turn(request.messages):
            return route_to(request, ctx, LUNA, {"phase": "implementation", "model": LUNA})
        return route_to(request, ctx, state.get("model", TERRA))

    pi.register_virtual_model(
        provider="jev", id="auto", name="Auto (Jev)",
        thinking_levels=["low", "medium", "high", "xhigh"],
        # Shared by all three models; shown before the first response.
        context_window=272_000, max_tokens=128_000,
        route=route,
    )
