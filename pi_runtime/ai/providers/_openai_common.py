"""Helpers shared by the two OpenAI wire protocols (Chat Completions and Responses).

Credentials and headers, keyless local servers, thinking-level mapping (``thinkingLevelMap``),
sampling parameters from models.json, image data URLs, and turning a request failure into
the terminal event of a stream. Nothing here talks to the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..env_keys import describe_env, env_api_key
from ..options import StreamOptions
from ..thinking_levels import mapped_value, request_level
from ..types import (
    ImageContent,
    Model,
    TextContent,
    ToolResultMessage,
)

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}

class MissingApiKey(Exception):
    """No credential for a provider that needs one; ``str()`` tells the user what to set."""


def model_extra(model: Model, camel: str) -> Any:
    """A model field by its wire name: declared on ``Model`` or kept as an unknown key (camelCase)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    declared = getattr(model, snake, None) if snake in type(model).model_fields else None
    if declared is not None:
        return declared
    extra = model.model_extra or {}
    if camel in extra:
        return extra[camel]
    return extra.get(snake)


def is_local_url(url: str) -> bool:
    """True for servers on this machine or a private LAN name (Ollama, llama.cpp, vLLM)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in _LOCAL_HOSTS or host.endswith(".local") or host.startswith("127.")


def header_owned_auth(headers: Mapping[str, str | None], *names: str) -> bool:
    """Whether the request's headers carry the credential themselves (``Authorization`` from
    ``ANTHROPIC_AUTH_TOKEN``, Cloudflare AI Gateway's ``cf-aig-authorization``), non-blank."""
    wanted = {n.lower() for n in (names or ("authorization", "cf-aig-authorization"))}
    return any(k.lower() in wanted and v is not None and v.strip() for k, v in headers.items())


def resolve_api_key(model: Model, options: StreamOptions) -> str | None:
    """The key for this request: the explicit option, then the provider's env variable.

    Raises:
        MissingApiKey: no key was found, the headers carry none and the server is not a local one.
    """
    key = options.api_key or env_api_key(model.provider)
    if key:
        return key
    if is_local_url(model.base_url) or header_owned_auth(options.headers):
        return None  # a local server runs without authentication; or the headers authenticate
    ways = describe_env(model.provider)
    hint = f"set {ways}" if ways else "add an apiKey for it in models.json or auth.json"
    raise MissingApiKey(
        f"No API key for provider '{model.provider}': {hint}, or pass --api-key."
    )


def endpoint(model: Model, path: str) -> str:
    return f"{model.base_url.rstrip('/')}/{path}"


# --------------------------------------------------------------------------- thinking levels


def thinking_level(model: Model, options: StreamOptions) -> str | None:
    """The level to send: the wanted one clamped to what the model offers (Pi's rules,
    ``thinking_levels.clamp_level``); None means off."""
    return request_level(model, options.reasoning)


def provider_effort(model: Model, level: str | None) -> str | None:
    """The provider's value for a (clamped) level: ``thinkingLevelMap[level] ?? level``."""
    if level is None:
        return None
    return str(mapped_value(model, level))


def sampling_params(model: Model, options: StreamOptions, level: str | None) -> dict[str, Any]:
    """models.json ``samplingParams``, the level's override, then the request's; later wins."""
    merged: dict[str, Any] = dict(model_extra(model, "samplingParams") or {})
    by_level = model_extra(model, "samplingParamsByThinkingLevel") or {}
    merged.update(by_level.get(level or "off") or {})
    merged.update(options.extra.get("sampling_params") or {})
    return merged


# --------------------------------------------------------------------------- content


def image_data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"


def supports_images(model: Model) -> bool:
    return "image" in model.input


def tool_result_text(message: ToolResultMessage) -> str:
    """The text a tool result sends to the model (images travel separately)."""
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    if text:
        return text
    if any(isinstance(b, ImageContent) for b in message.content):
        return "(see attached image)"
    return "(no output)"


def tool_result_images(message: ToolResultMessage) -> list[ImageContent]:
    return [b for b in message.content if isinstance(b, ImageContent)]


# --------------------------------------------------------------------------- failures


def usage_int(data: dict[str, Any] | None, *keys: str) -> int:
    """The first integer found under ``keys`` (servers disagree on names); 0 otherwise."""
    if not data:
        return 0
    for key in keys:
        value = data.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
    return 0
