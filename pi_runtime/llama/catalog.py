"""Which of a router's models can be chosen for chat, and the model entries pi lists for them.

Loaded and sleeping models are selectable (a request wakes a sleeping one). An unloaded preset
is selectable only when the router autoloads models on first use (``/props`` says
``models_autoload``); a model whose last load failed is not. Decision-only models (``decisions``
among ``architecture.output_modalities``, no ``text``) are classifiers in Pi and are left out
here: pi has no classifier models.
"""

from __future__ import annotations

from typing import Any

from .client import LlamaClient, RouterModel, inference_url, state_of

PROVIDER_ID = "llama.cpp"
DEFAULT_CONTEXT_WINDOW = 128_000
"""When the router says nothing of a model's context (Pi's fallback)."""
_CONTEXT_FLAGS = ("--ctx-size", "-c", "-ctx")


def selectable(model: RouterModel, autoload: bool) -> bool:
    """Whether ``model`` can be chosen in ``/model`` now."""
    state = state_of(model)
    if state in ("loaded", "sleeping"):
        return True
    status = model.get("status") or {}
    return autoload and state == "unloaded" and not status.get("failed") and model.get("source") == "preset"


def is_chat_model(model: RouterModel) -> bool:
    """False for a decision-only model (it answers classifier questions, never text)."""
    outputs = (model.get("architecture") or {}).get("output_modalities") or []
    return "decisions" not in outputs or "text" in outputs


def context_window(model: RouterModel) -> int:
    """The runtime context (``meta.n_ctx``), else the ``--ctx-size`` it is started with, else its training context."""
    meta = model.get("meta") or {}
    runtime = meta.get("n_ctx")
    if isinstance(runtime, int) and runtime > 0:
        return runtime
    args = (model.get("status") or {}).get("args") or []
    for flag, value in zip(args, args[1:], strict=False):
        if flag in _CONTEXT_FLAGS and str(value).isdigit() and int(value) > 0:
            return int(value)
    trained = meta.get("n_ctx_train")
    return trained if isinstance(trained, int) and trained > 0 else DEFAULT_CONTEXT_WINDOW


def model_entry(model: RouterModel, server_url: str, props: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Pi model definition of one router model (chat through openai-completions at ``<server>/v1``)."""
    window = context_window(model)
    template = (props or {}).get("chat_template")
    reasoning = isinstance(template, str) and "enable_thinking" in template
    images = "image" in ((model.get("architecture") or {}).get("input_modalities") or [])
    compat: dict[str, Any] = {"supportsStore": False, "supportsReasoningEffort": False,
                              "supportsUsageInStreaming": True, "supportsStrictMode": False,
                              "maxTokensField": "max_tokens"}
    entry: dict[str, Any] = {
        "id": model["id"], "name": model["id"], "api": "openai-completions", "provider": PROVIDER_ID,
        "baseUrl": inference_url(server_url), "reasoning": reasoning,
        "input": ["text", "image"] if images else ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": window, "maxTokens": window, "compat": compat,
    }
    if reasoning:
        compat["thinkingFormat"] = "qwen-chat-template"
        # Only on and off reach such a template: every other level is unavailable.
        entry["thinkingLevelMap"] = {"off": "off", "minimal": None, "low": None, "medium": "medium",
                                     "high": None, "xhigh": None}
    return entry


async def chat_models(client: LlamaClient) -> list[dict[str, Any]]:
    """The router's selectable chat models as model definitions.

    Only loaded models are asked for their chat template (asking a sleeping one would wake it,
    an unloaded preset would load), so thinking support shows once a model is loaded.

    Raises:
        LlamaError: The router is unreachable or not a router.
    """
    catalog = await client.list()
    autoload = False
    if any(state_of(m) == "unloaded" and m.get("source") == "preset" for m in catalog):
        try:
            autoload = (await client.props()).get("models_autoload") is True
        except Exception:  # noqa: BLE001 - an old router without /props: no autoload
            autoload = False
    out = []
    for model in catalog:
        if not (selectable(model, autoload) and is_chat_model(model)):
            continue
        props = await client.props(model["id"]) if state_of(model) == "loaded" else None
        out.append(model_entry(model, client.server_url, props))
    return out
