"""What each OpenAI-compatible server needs, as Pi 1.6 tells them apart (``compat`` switches).

``detect_compat`` guesses the switches from the provider id and the base URL exactly as Pi does;
a model's ``compat`` (the catalogue's, or models.json's) overrides them one by one. The reasoning
fields a request carries depend on the server's ``thinkingFormat`` (``reasoning_effort``,
DeepSeek's and Z.ai's ``thinking`` object, Qwen's ``enable_thinking``, OpenRouter's ``reasoning``,
chat-template arguments, ...), each reading the model's ``thinkingLevelMap`` for the value.
"""

from __future__ import annotations

from typing import Any

from ..options import StreamOptions
from ..types import Model

_NO_VALUE = object()

DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
"""Reasoning-token caps per level for servers that take a budget (``xhigh`` and ``max`` use ``high``'s)."""
MIN_ANSWER_TOKENS = 1024
"""Tokens always left for the answer when a thinking budget shares the output limit."""


def detect_compat(model: Model) -> dict[str, Any]:
    """The switches Pi guesses for ``model`` from its provider and base URL."""
    provider, url = model.provider, model.base_url
    zai = provider in ("zai", "zai-coding-cn") or "api.z.ai" in url or "open.bigmodel.cn" in url
    together = provider == "together" or "api.together.ai" in url or "api.together.xyz" in url
    moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    openrouter = provider == "openrouter" or "openrouter.ai" in url
    cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in url
    cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    nvidia = provider == "nvidia" or "integrate.api.nvidia.com" in url
    ant_ling = provider == "ant-ling" or "api.ant-ling.com" in url
    cerebras = provider == "cerebras" or "cerebras.ai" in url
    deepseek = provider == "deepseek" or "deepseek.com" in url.lower()
    grok = provider == "xai" or "api.x.ai" in url
    chutes = "chutes.ai" in url
    opencode = provider == "opencode" or "opencode.ai" in url
    non_standard = (nvidia or cerebras or grok or together or chutes or deepseek or zai or moonshot or opencode
                    or cf_workers or cf_gateway or ant_ling)
    max_tokens_field = chutes or deepseek or moonshot or cf_gateway or together or nvidia or ant_ling or zai
    if deepseek:
        thinking_format = "deepseek"
    elif zai:
        thinking_format = "zai"
    elif together:
        thinking_format = "together"
    elif ant_ling:
        thinking_format = "ant-ling"
    elif openrouter:
        thinking_format = "openrouter"
    else:
        thinking_format = "openai"
    return {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": provider == "openai" or "api.openai.com" in url,
        "supportsReasoningEffort": not (grok or zai or moonshot or together or cf_gateway or nvidia or ant_ling),
        "supportsUsageInStreaming": True,
        "supportsFinishReason": True,
        "maxTokensField": "max_tokens" if max_tokens_field else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresNonNullAssistantContent": False,
        "requiresToolsWithToolHistory": False,
        "requiresThinkingAsText": False,
        "requiresReasoningContentOnAssistantMessages": deepseek,
        "thinkingFormat": thinking_format,
        "chatTemplateKwargs": {},
        "chatTemplateArgs": {},
        "zaiToolStream": False,
        "supportsThinkingTokenBudget": False,
        "thinkingTokenBudgetField": None,
        "supportsStrictMode": False,
        "supportsOpenAIGrammarTools": False,
        "supportsMidConvoSystemMessages": False,
        "supportsMidConvoToolAdditions": False,
        "cacheControlFormat": "anthropic" if openrouter and model.id.startswith("anthropic/") else None,
        "sendSessionAffinityHeaders": openrouter,
        "sessionAffinityFormat": "openrouter" if openrouter else "openai",
        "supportsLongCacheRetention": not (together or cf_workers or cf_gateway or nvidia or ant_ling),
        "promptCacheKeyMode": "auto",
    }


def resolve_compat(model: Model) -> dict[str, Any]:
    """The detected switches, each overridden by the model's ``compat`` where it sets one."""
    compat = detect_compat(model)
    given = model.compat or {}
    compat.update({k: v for k, v in given.items() if v is not None})
    # Routing preferences are the model's own: never guessed (Pi sends ``provider`` even for ``{}``).
    compat["openRouterRouting"] = given.get("openRouterRouting")
    compat["vercelGatewayRouting"] = given.get("vercelGatewayRouting")
    return compat


# --------------------------------------------------------------------------- reasoning fields


def _level_map(model: Model) -> dict[str, Any]:
    mapping = model.thinking_level_map
    return mapping if isinstance(mapping, dict) else {}


def _mapped_or_level(model: Model, level: str) -> Any:
    """``thinkingLevelMap[level] ?? level``: the map's value, the level when the map has none (or null)."""
    value = _level_map(model).get(level)
    return level if value is None else value


def _off_value(model: Model) -> Any:
    """``thinkingLevelMap.off``: ``_NO_VALUE`` when the map does not say, None when it says null."""
    mapping = _level_map(model)
    return mapping.get("off", _NO_VALUE)


def thinking_budget(level: str | None, options: StreamOptions, ceiling: int) -> int | None:
    """The reasoning-token cap for ``level`` under an output limit of ``ceiling`` (None: none)."""
    if level is None:
        return None
    budgets = {**DEFAULT_THINKING_BUDGETS, **(options.extra.get("thinking_budgets") or {})}
    budget = budgets.get("high" if level in ("xhigh", "max") else level)
    if budget is None:
        return None
    budget = min(int(budget), max(0, ceiling - MIN_ANSWER_TOKENS))
    return budget if budget > 0 else None


def _template_value(model: Model, level: str | None, value: Any, budget: int | None) -> Any:
    if not isinstance(value, dict):
        return value
    if level is None and value.get("omitWhenOff"):
        return _NO_VALUE
    var = value.get("$var")
    if var == "thinking.enabled":
        return level is not None
    if var == "thinking.budget":
        return _NO_VALUE if budget is None else budget
    mapping = _level_map(model)
    key = level if level is not None else "off"
    if key not in mapping:
        return _NO_VALUE if level is None else level
    mapped = mapping[key]
    return mapped if isinstance(mapped, str) else _NO_VALUE


def _template(model: Model, level: str | None, template: dict[str, Any], budget: int | None) -> dict[str, Any] | None:
    values = {k: _template_value(model, level, v, budget) for k, v in template.items()}
    kept = {k: v for k, v in values.items() if v is not _NO_VALUE}
    return kept or None


def reasoning_fields(model: Model, compat: dict[str, Any], level: str | None, budget: int | None) -> dict[str, Any]:
    """The fields that turn thinking on or off, in the server's ``thinkingFormat`` (Pi's order)."""
    if not model.reasoning:
        return {}
    fmt = compat.get("thinkingFormat") or "openai"
    effort_ok = bool(compat.get("supportsReasoningEffort"))
    out: dict[str, Any] = {}
    off = _off_value(model)
    if fmt == "zai":
        out["thinking"] = {"type": "enabled", "clear_thinking": False} if level else {"type": "disabled"}
        if level and effort_ok:
            mapping = _level_map(model)
            if isinstance(value := mapping.get(level, level), str):
                out["reasoning_effort"] = value
    elif fmt == "qwen":
        out["enable_thinking"] = level is not None
        if level and effort_ok and isinstance(value := _mapped_or_level(model, level), str):
            out["reasoning_effort"] = value
    elif fmt == "qwen-chat-template":
        out["chat_template_kwargs"] = {"enable_thinking": level is not None, "preserve_thinking": True}
    elif fmt == "chat-template":
        kwargs = _template(model, level, compat.get("chatTemplateKwargs") or {}, budget)
        if kwargs:
            out["chat_template_kwargs"] = kwargs
    elif fmt == "baseten":
        args = _template(model, level, compat.get("chatTemplateArgs") or {}, budget)
        if args:
            out["chat_template_args"] = args
        if effort_ok:
            key = level or "off"
            value = _level_map(model).get(key, level)
            if isinstance(value, str):
                out["reasoning_effort"] = value
    elif fmt == "deepseek":
        if level:
            out["thinking"] = {"type": "enabled"}
        elif off is not None:
            out["thinking"] = {"type": "disabled"}
        if level and effort_ok:
            out["reasoning_effort"] = _mapped_or_level(model, level)
    elif fmt == "openrouter":
        if level:
            out["reasoning"] = {"effort": _mapped_or_level(model, level)}
        elif off is not None:
            out["reasoning"] = {"effort": "none" if off is _NO_VALUE else off}
    elif fmt == "ant-ling" and level:  # thinking off falls through to the plain effort rule below
        if isinstance(value := _level_map(model).get(level), str):
            out["reasoning"] = {"effort": value}
    elif fmt == "together":
        out["reasoning"] = {"enabled": level is not None}
        if level and effort_ok:
            out["reasoning_effort"] = _mapped_or_level(model, level)
    elif fmt == "string-thinking":
        if level:
            out["thinking"] = _mapped_or_level(model, level)
        elif off is not None:
            out["thinking"] = "none" if off is _NO_VALUE else off
    elif level and effort_ok:
        out["reasoning_effort"] = _mapped_or_level(model, level)
    elif not level and effort_ok and isinstance(off, str):
        out["reasoning_effort"] = off
    return out


def budget_field(compat: dict[str, Any]) -> str | None:
    """The top-level field that caps reasoning tokens, when the server takes one."""
    field = compat.get("thinkingTokenBudgetField")
    if field:
        return str(field)
    return "thinking_token_budget" if compat.get("supportsThinkingTokenBudget") else None
