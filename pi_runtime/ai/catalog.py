"""The built-in model catalogue: providers, their endpoints and a few current models each.

Plain Python data (tuples and dicts, no pydantic) so importing it costs nothing; the
registry turns rows into ``Model`` objects on first use. Prices are US dollars per million
tokens (input, output, cache read, cache write). Figures follow the providers' published
price lists where known; where a provider publishes none (or it changes often) the
figure is a plausible current value, and ``models.json`` ``modelOverrides`` can correct it.

Each provider entry: ``name`` (display), ``api`` (wire protocol), ``baseUrl``. Each model
row: ``(id, name, reasoning, input kinds, context window, max output tokens,
(input, output, cacheRead, cacheWrite))``.
"""

from __future__ import annotations

TEXT = ("text",)
TEXT_IMAGE = ("text", "image")

PROVIDERS: dict[str, dict[str, str]] = {
    "anthropic": {
        "name": "Anthropic",
        "api": "anthropic-messages",
        "baseUrl": "https://api.anthropic.com",
    },
    "openai": {
        "name": "OpenAI",
        "api": "openai-responses",
        "baseUrl": "https://api.openai.com/v1",
    },
    "google": {
        "name": "Google Gemini",
        "api": "google-generative-ai",
        "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
    },
    "openrouter": {
        "name": "OpenRouter",
        "api": "openai-completions",
        "baseUrl": "https://openrouter.ai/api/v1",
    },
    "groq": {
        "name": "Groq",
        "api": "openai-completions",
        "baseUrl": "https://api.groq.com/openai/v1",
    },
    "deepseek": {
        "name": "DeepSeek",
        "api": "openai-completions",
        "baseUrl": "https://api.deepseek.com",
    },
    "xai": {
        "name": "xAI",
        "api": "openai-completions",
        "baseUrl": "https://api.x.ai/v1",
    },
    "mistral": {
        "name": "Mistral",
        "api": "openai-completions",
        "baseUrl": "https://api.mistral.ai/v1",
    },
    "cerebras": {
        "name": "Cerebras",
        "api": "openai-completions",
        "baseUrl": "https://api.cerebras.ai/v1",
    },
}

ModelRow = tuple[str, str, bool, tuple[str, ...], int, int, tuple[float, float, float, float]]

MODELS: dict[str, tuple[ModelRow, ...]] = {
    "anthropic": (
        ("claude-opus-4-6", "Claude Opus 4.6", True, TEXT_IMAGE, 200_000, 128_000, (5, 25, 0.5, 6.25)),
        ("claude-sonnet-4-6", "Claude Sonnet 4.6", True, TEXT_IMAGE, 200_000, 64_000, (3, 15, 0.3, 3.75)),
        ("claude-opus-4-5", "Claude Opus 4.5", True, TEXT_IMAGE, 200_000, 64_000, (5, 25, 0.5, 6.25)),
        ("claude-sonnet-4-5", "Claude Sonnet 4.5", True, TEXT_IMAGE, 200_000, 64_000, (3, 15, 0.3, 3.75)),
        ("claude-haiku-4-5", "Claude Haiku 4.5", True, TEXT_IMAGE, 200_000, 64_000, (1, 5, 0.1, 1.25)),
        ("claude-opus-4-1", "Claude Opus 4.1", True, TEXT_IMAGE, 200_000, 32_000, (15, 75, 1.5, 18.75)),
        ("claude-sonnet-4-0", "Claude Sonnet 4", True, TEXT_IMAGE, 200_000, 64_000, (3, 15, 0.3, 3.75)),
    ),
    "openai": (
        ("gpt-5.2", "GPT-5.2", True, TEXT_IMAGE, 400_000, 128_000, (1.75, 14, 0.175, 0)),
        ("gpt-5.1", "GPT-5.1", True, TEXT_IMAGE, 400_000, 128_000, (1.25, 10, 0.125, 0)),
        ("gpt-5.1-codex", "GPT-5.1 Codex", True, TEXT_IMAGE, 400_000, 128_000, (1.25, 10, 0.125, 0)),
        ("gpt-5", "GPT-5", True, TEXT_IMAGE, 400_000, 128_000, (1.25, 10, 0.125, 0)),
        ("gpt-5-mini", "GPT-5 mini", True, TEXT_IMAGE, 400_000, 128_000, (0.25, 2, 0.025, 0)),
        ("gpt-5-nano", "GPT-5 nano", True, TEXT_IMAGE, 400_000, 128_000, (0.05, 0.4, 0.005, 0)),
        ("gpt-4.1", "GPT-4.1", False, TEXT_IMAGE, 1_047_576, 32_768, (2, 8, 0.5, 0)),
        ("gpt-4.1-mini", "GPT-4.1 mini", False, TEXT_IMAGE, 1_047_576, 32_768, (0.4, 1.6, 0.1, 0)),
        ("gpt-4o", "GPT-4o", False, TEXT_IMAGE, 128_000, 16_384, (2.5, 10, 1.25, 0)),
        ("o3", "o3", True, TEXT_IMAGE, 200_000, 100_000, (2, 8, 0.5, 0)),
        ("o4-mini", "o4-mini", True, TEXT_IMAGE, 200_000, 100_000, (1.1, 4.4, 0.275, 0)),
    ),
    "google": (
        ("gemini-3-pro-preview", "Gemini 3 Pro Preview", True, TEXT_IMAGE, 1_048_576, 65_536, (2, 12, 0.2, 0)),
        ("gemini-2.5-pro", "Gemini 2.5 Pro", True, TEXT_IMAGE, 1_048_576, 65_536, (1.25, 10, 0.125, 0)),
        ("gemini-2.5-flash", "Gemini 2.5 Flash", True, TEXT_IMAGE, 1_048_576, 65_536, (0.3, 2.5, 0.03, 0)),
        ("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", True, TEXT_IMAGE, 1_048_576, 65_536, (0.1, 0.4, 0.01, 0)),
    ),
    "openrouter": (
        ("anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5", True, TEXT_IMAGE, 1_000_000, 64_000, (3, 15, 0.3, 3.75)),
        ("openai/gpt-5", "OpenAI: GPT-5", True, TEXT_IMAGE, 400_000, 128_000, (1.25, 10, 0.125, 0)),
        ("google/gemini-2.5-pro", "Google: Gemini 2.5 Pro", True, TEXT_IMAGE, 1_048_576, 65_536, (1.25, 10, 0.31, 1.625)),
        ("deepseek/deepseek-chat-v3.1", "DeepSeek: DeepSeek V3.1", True, TEXT, 163_840, 32_768, (0.2, 0.8, 0, 0)),
        ("qwen/qwen3-coder", "Qwen: Qwen3 Coder 480B A35B", False, TEXT, 262_144, 65_536, (0.22, 0.95, 0, 0)),
        ("moonshotai/kimi-k2-thinking", "MoonshotAI: Kimi K2 Thinking", True, TEXT, 262_144, 65_536, (0.6, 2.5, 0.15, 0)),
        ("z-ai/glm-4.6", "Z.AI: GLM 4.6", True, TEXT, 202_752, 65_536, (0.4, 1.75, 0, 0)),
    ),
    "groq": (
        ("openai/gpt-oss-120b", "GPT OSS 120B", True, TEXT, 131_072, 65_536, (0.15, 0.6, 0, 0)),
        ("openai/gpt-oss-20b", "GPT OSS 20B", True, TEXT, 131_072, 65_536, (0.075, 0.3, 0, 0)),
        ("llama-3.3-70b-versatile", "Llama 3.3 70B Versatile", False, TEXT, 131_072, 32_768, (0.59, 0.79, 0, 0)),
        ("moonshotai/kimi-k2-instruct-0905", "Kimi K2 Instruct 0905", False, TEXT, 262_144, 16_384, (1, 3, 0.5, 0)),
        ("qwen/qwen3-32b", "Qwen3 32B", True, TEXT, 131_072, 40_960, (0.29, 0.59, 0, 0)),
    ),
    "deepseek": (
        ("deepseek-chat", "DeepSeek V3.2 (chat)", False, TEXT, 128_000, 8_192, (0.28, 0.42, 0.028, 0)),
        ("deepseek-reasoner", "DeepSeek V3.2 (reasoner)", True, TEXT, 128_000, 64_000, (0.28, 0.42, 0.028, 0)),
    ),
    "xai": (
        ("grok-4", "Grok 4", True, TEXT_IMAGE, 256_000, 64_000, (3, 15, 0.75, 0)),
        ("grok-4-fast", "Grok 4 Fast", True, TEXT_IMAGE, 2_000_000, 30_000, (0.2, 0.5, 0.05, 0)),
        ("grok-code-fast-1", "Grok Code Fast 1", True, TEXT, 256_000, 10_000, (0.2, 1.5, 0.02, 0)),
        ("grok-3-mini", "Grok 3 Mini", True, TEXT, 131_072, 8_192, (0.3, 0.5, 0.075, 0)),
    ),
    "mistral": (
        ("mistral-large-latest", "Mistral Large", False, TEXT_IMAGE, 262_144, 32_768, (0.5, 1.5, 0, 0)),
        ("mistral-medium-latest", "Mistral Medium", False, TEXT_IMAGE, 131_072, 32_768, (0.4, 2, 0, 0)),
        ("devstral-medium-latest", "Devstral Medium", False, TEXT, 262_144, 32_768, (0.4, 2, 0, 0)),
        ("codestral-latest", "Codestral", False, TEXT, 256_000, 32_768, (0.3, 0.9, 0, 0)),
        ("magistral-medium-latest", "Magistral Medium", True, TEXT, 131_072, 40_000, (2, 5, 0, 0)),
        ("mistral-small-latest", "Mistral Small", False, TEXT_IMAGE, 131_072, 32_768, (0.1, 0.3, 0, 0)),
    ),
    "cerebras": (
        ("gpt-oss-120b", "GPT OSS 120B", True, TEXT, 131_072, 40_960, (0.35, 0.75, 0, 0)),
        ("zai-glm-4.6", "Z.AI GLM 4.6", True, TEXT, 131_072, 40_960, (2.25, 2.75, 0, 0)),
        ("qwen-3-235b-a22b-instruct-2507", "Qwen 3 235B Instruct", False, TEXT, 131_072, 32_768, (0.6, 1.2, 0, 0)),
        ("llama3.1-8b", "Llama 3.1 8B", False, TEXT, 32_768, 8_192, (0.1, 0.1, 0, 0)),
    ),
}


def model_dicts(provider: str) -> list[dict[str, object]]:
    """The provider's built-in models as wire-shaped dicts (camelCase), ready for ``Model``.

    Args:
        provider: A key of ``PROVIDERS``.

    Returns:
        One dict per model; an empty list for an unknown provider.
    """
    info = PROVIDERS.get(provider)
    if info is None:
        return []
    out: list[dict[str, object]] = []
    for mid, name, reasoning, kinds, window, max_tokens, price in MODELS.get(provider, ()):
        out.append({
            "id": mid,
            "name": name,
            "api": info["api"],
            "provider": provider,
            "baseUrl": info["baseUrl"],
            "reasoning": reasoning,
            "input": list(kinds),
            "contextWindow": window,
            "maxTokens": max_tokens,
            "cost": {
                "input": price[0], "output": price[1],
                "cacheRead": price[2], "cacheWrite": price[3],
            },
        })
    return out
