"""Which environment variable holds each built-in provider's API key (providers.md).

Amazon Bedrock and Google Vertex AI also authenticate with ambient cloud credentials (an AWS
profile or keys, Application Default Credentials): ``ambient_credentials`` says whether those
are configured, with Pi's rules, and ``AMBIENT`` stands in for the key they replace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

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
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
}

AMBIENT = "<authenticated>"
"""The key a request gets when the provider authenticates from the environment (Pi's marker):
providers treat any ``<...>`` key as no key."""
_AWS_HINTS = ("AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
              "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE")
CREDENTIAL_HINTS = {
    "amazon-bedrock": "set AWS_PROFILE (a profile in ~/.aws/credentials or ~/.aws/config), AWS_ACCESS_KEY_ID "
                      "and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK",
    "google-vertex": "set GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with Application "
                     "Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`)",
}
"""What to set, for providers whose credentials are more than one variable."""


def adc_file(env: Mapping[str, str] | None = None) -> Path:
    """Where Google's Application Default Credentials are read: ``GOOGLE_APPLICATION_CREDENTIALS``,
    else gcloud's ``~/.config/gcloud/application_default_credentials.json``."""
    env = os.environ if env is None else env
    explicit = env.get("GOOGLE_APPLICATION_CREDENTIALS")
    if explicit:
        return Path(explicit).expanduser()
    return Path.home() / ".config" / "gcloud" / "application_default_credentials.json"


def ambient_credentials(provider: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``provider`` can authenticate from the environment without a key (Pi's rules).

    Bedrock: a profile, an access key pair, a bearer token, or container / web-identity
    credentials. Vertex: an ADC file, a project (``GOOGLE_CLOUD_PROJECT`` or ``GCLOUD_PROJECT``)
    and ``GOOGLE_CLOUD_LOCATION``.
    """
    env = os.environ if env is None else env
    if provider == "amazon-bedrock":
        if env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
            return True
        return any(env.get(name) for name in _AWS_HINTS)
    if provider == "google-vertex":
        project = env.get("GOOGLE_CLOUD_PROJECT") or env.get("GCLOUD_PROJECT")
        return bool(project and env.get("GOOGLE_CLOUD_LOCATION") and adc_file(env).is_file())
    return False


def credential_hint(provider: str) -> str | None:
    """``set ...``: what to configure for a provider that needs more than one variable, else None."""
    return CREDENTIAL_HINTS.get(provider)


def env_var_names(provider: str) -> tuple[str, ...]:
    return ENV_KEYS.get(provider, ())


def env_api_key(provider: str) -> str | None:
    """The first non-empty env var for ``provider``, or None."""
    for name in ENV_KEYS.get(provider, ()):
        value = os.environ.get(name)
        if value:
            return value
    return None
