"""Which environment variable holds each built-in provider's API key (providers.md)."""

from __future__ import annotations

import os

ENV_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "moonshot": ("MOONSHOT_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
}


def env_var_names(provider: str) -> tuple[str, ...]:
    return ENV_KEYS.get(provider, ())


def env_api_key(provider: str) -> str | None:
    """The first non-empty env var for ``provider``, or None."""
    for name in ENV_KEYS.get(provider, ()):
        value = os.environ.get(name)
        if value:
            return value
    return None
