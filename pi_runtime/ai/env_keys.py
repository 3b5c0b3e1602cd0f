"""Which environment variables configure each built-in provider, as Pi resolves them.

The facts come from the catalogue (``catalog/builtin.json``: each provider's ``auth.apiKey.ways``,
learnt from Pi's provider definitions by the generator). A *way* is a set of variables that,
all set to something non-blank, configures the provider: one key variable for most
(``OPENAI_API_KEY``), a key and an account id for Cloudflare, AWS's credential chain for
Amazon Bedrock, a project and location plus an existing credentials file for Google Vertex.
Ways are tried in Pi's order; the first satisfied one wins (``resolve_env_auth``).

Amazon Bedrock and Google Vertex AI authenticate with ambient cloud credentials (an AWS
profile or keys, Application Default Credentials) rather than a key: ``ambient_credentials``
says whether such a way is configured, and ``AMBIENT`` stands in for the key it replaces.

Nothing is read until a provider is asked about (``--version`` and ``--help`` read nothing).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from ..records import record

ENV_KEYS: dict[str, tuple[str, ...]]
"""Provider -> ``env_var_names(provider)`` for every catalogue provider (built on first access)."""

FEATURED = ("anthropic", "openai", "google", "deepseek", "mistral", "groq", "cerebras", "xai", "openrouter")
"""Providers shown first where pi lists a few (the welcome guide); the rest follow in catalogue order."""


AMBIENT = "<authenticated>"
"""The key a request gets when the provider authenticates from the environment without one
(Pi's marker): providers treat any ``<...>`` key as no key."""

CREDENTIAL_HINTS = {
    "amazon-bedrock": "set AWS_PROFILE (a profile in ~/.aws/credentials or ~/.aws/config), AWS_ACCESS_KEY_ID "
                      "and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK",
    "google-vertex": "set GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with Application "
                     "Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`)",
}
"""What to set, in words, for the providers whose credentials are a cloud account's."""


@record(frozen=True)
class EnvAuth:
    """Credentials found in the environment for one provider. Never printed with its secrets."""

    api_key: str | None = field(repr=False)
    """The key, when this way has one (AWS's chain and Google's ADC have none)."""
    headers: dict[str, str | None] = field(default_factory=dict, repr=False)
    """Headers to send (``None``: drop that header), e.g. ``Authorization: Bearer …``."""
    settings: dict[str, str] = field(default_factory=dict, repr=False)
    """Variables handed to the provider as settings (an account id in its base URL)."""
    source: str = ""
    """The variable (or Pi's name for the source) the credentials came from."""


def _ways(provider: str) -> list[Any]:
    from .catalog import provider_info

    info = provider_info(provider)
    if info is None or info.auth.api_key is None:
        return []
    return list(info.auth.api_key.ways)


@functools.cache
def env_var_names(provider: str) -> tuple[str, ...]:
    """Every variable that takes part in configuring ``provider`` from the environment, in Pi's order.

    Returns:
        The variables Pi reports the key under first, then the others its ways read; empty for
        a provider the catalogue does not know (a models.json provider).
    """
    from .catalog import provider_info

    info = provider_info(provider)
    if info is None:
        return ()
    names = list(info.env_keys)
    for way in _ways(provider):
        names.extend(way.env)
        if way.file is not None and way.file.env:
            names.append(way.file.env)
    return tuple(dict.fromkeys(names))


def suggested_env_var(provider: str) -> str | None:
    """The variable to suggest first for ``provider``'s key (the one Pi's docs name: ``…_API_KEY``)."""
    from .catalog import provider_info

    info = provider_info(provider)
    names = list(info.env_keys) if info is not None else []
    preferred = [n for n in names if n.endswith("_API_KEY")]
    if preferred or names:
        return (preferred or names)[0]
    ways = _ways(provider)
    return ways[0].env[0] if ways and ways[0].env else None


def describe_env(provider: str) -> str:
    """How to configure ``provider`` from the environment, for messages: ``A or B + C``."""
    phrases = []
    for way in _ways(provider):
        parts = list(way.env)
        if way.file is not None:
            where = f"${way.file.env} or {way.file.default}" if way.file.env else way.file.default
            parts.append(f"a credentials file ({where})")
        phrase = " + ".join(parts)
        if phrase and phrase not in phrases:
            phrases.append(phrase)
    return " or ".join(phrases)


def _value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return value if value and value.strip() else None


def _file_exists(path: str) -> bool:
    return os.path.exists(os.path.expanduser(path))


def resolve_env_auth(provider: str, env: Mapping[str, str] | None = None) -> EnvAuth | None:
    """The first of Pi's ways to configure ``provider`` that the environment satisfies, resolved.

    Args:
        provider: A provider id.
        env: The environment; ``os.environ`` when None.

    Returns:
        The key, headers and settings that way gives, or None when no way is satisfied.
    """
    env = os.environ if env is None else env
    for way in _ways(provider):
        values = {name: _value(env, name) for name in way.env}
        if not all(values.values()):
            continue
        if way.file is not None:
            path = (_value(env, way.file.env) if way.file.env else None) or way.file.default
            if not _file_exists(path):
                continue
        headers: dict[str, str | None] = {}
        for header, template in (way.headers or {}).items():
            if template is not None:
                for name, value in values.items():
                    template = template.replace("{" + name + "}", value or "")
            headers[header] = template
        return EnvAuth(
            api_key=values.get(way.key) if way.key else None,
            headers=headers,
            settings={name: values[name] or "" for name in way.passes or () if values.get(name)},
            source=way.source or (way.env[0] if way.env else ""),
        )
    return None


def ambient_credentials(provider: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``provider`` can authenticate from the environment without a key (Pi's rules):
    a satisfied way that gives neither a key nor a header (AWS's chain, Google's ADC)."""
    found = resolve_env_auth(provider, env)
    return found is not None and found.api_key is None and not found.headers


def credential_hint(provider: str) -> str | None:
    """``set ...``: what to configure for a provider whose credentials are a cloud account's, else None."""
    return CREDENTIAL_HINTS.get(provider)


def adc_file(env: Mapping[str, str] | None = None) -> Path:
    """Where Google's Application Default Credentials are read: ``GOOGLE_APPLICATION_CREDENTIALS``,
    else gcloud's ``~/.config/gcloud/application_default_credentials.json``."""
    env = os.environ if env is None else env
    explicit = env.get("GOOGLE_APPLICATION_CREDENTIALS")
    if explicit:
        return Path(explicit).expanduser()
    return Path.home() / ".config" / "gcloud" / "application_default_credentials.json"


def env_api_key(provider: str, env: Mapping[str, str] | None = None) -> str | None:
    """The key the environment gives ``provider`` (Pi's ``getEnvApiKey``), or None.

    Ways without a key of their own (a bearer header, AWS's chain) give None here.
    """
    env = os.environ if env is None else env
    for way in _ways(provider):
        if way.key and all(_value(env, name) for name in way.env):
            return _value(env, way.key)
    return None


def __getattr__(name: str) -> Any:
    # ``ENV_KEYS`` (provider -> its variables), built from the catalogue on first access: the
    # featured providers first, then every other provider of the catalogue.
    if name == "ENV_KEYS":
        from .catalog import builtin_catalog

        order = [*FEATURED, *(p for p in builtin_catalog().providers if p not in FEATURED)]
        return {p: names for p in order if (names := env_var_names(p))}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
