"""The cost a provider bills, when it says so: OpenRouter's usage ``cost``.

OpenRouter adds what it charged to the usage it streams (Chat Completions and its Anthropic
endpoint alike). Pi then records that total instead of the one computed from the model's
prices and marks it with ``cost.totalFromProvider: true``; the per-kind costs stay computed.
"""

from __future__ import annotations

import math
from typing import Any

from .types import Model, Usage


def is_openrouter(model: Model) -> bool:
    """Whether requests for ``model`` go to OpenRouter (by provider name or base URL)."""
    return model.provider == "openrouter" or "openrouter.ai" in (model.base_url or "")


def _valid(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def apply_reported_cost(usage: Usage, reported: Any) -> None:
    """Take OpenRouter's billed total from ``reported`` (the wire usage) when it is complete.

    Without a key of one's own (``is_byok: false``) the total is ``cost``; with one
    (``is_byok: true``) OpenRouter's fee ``cost`` is added to the upstream provider's cost from
    ``cost_details`` (``upstream_inference_cost``, or its prompt and completion parts when that
    is null, as Pi reads them). Anything missing or invalid leaves the computed cost as it is.
    """
    if not isinstance(reported, dict) or not _valid(reported.get("cost")):
        return
    fee = float(reported["cost"])
    byok = reported.get("is_byok")
    if byok is False:
        usage.cost.total = fee
        usage.cost.total_from_provider = True
        return
    if byok is not True:
        return
    details = reported.get("cost_details")
    if not isinstance(details, dict):
        return
    upstream = details.get("upstream_inference_cost", math.nan)  # missing: invalid; null: use the parts
    if upstream is None:
        prompt = details.get("upstream_inference_prompt_cost")
        completion = details.get("upstream_inference_completions_cost")
        if not (_valid(prompt) and _valid(completion)):
            return
        upstream = float(prompt) + float(completion)  # type: ignore[arg-type]  # checked by _valid
    if not _valid(upstream):
        return
    usage.cost.total = fee + float(upstream)
    usage.cost.total_from_provider = True
