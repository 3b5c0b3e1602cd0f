"""The ``azure-openai-responses`` wire protocol: the Responses API on an Azure OpenAI resource.

Where the request goes, as Pi 1.6 resolves it (the request's ``extra`` options first, then the
environment, then the model):

- base URL: ``azure_base_url`` / ``AZURE_OPENAI_BASE_URL``, else ``azure_resource_name`` /
  ``AZURE_OPENAI_RESOURCE_NAME`` (``https://<name>.openai.azure.com/openai/v1``), else the
  model's ``baseUrl``; an Azure host given without a path gets ``/openai/v1``;
- ``?api-version=``: ``azure_api_version`` / ``AZURE_OPENAI_API_VERSION``, default ``v1``;
- the body's ``model`` is the deployment: ``azure_deployment_name``, else the model's entry in
  ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` (``gpt-5=my-gpt5,gpt-4.1=prod-41``), else the model id;
- the key travels in the ``api-key`` header (``AZURE_OPENAI_API_KEY``), not as a bearer token.

The body and the stream are Pi's shared Responses dialect (``_responses_input``). An HTTP error
reads ``Azure OpenAI API error (400): {"code":"content_filter",...}`` on one line.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..types import Context, Model
from ._http import OPENED, failure_events, final_headers, keyed_request, post_sse
from ._identity import identity_headers
from ._openai_common import model_extra, sampling_params
from ._responses_input import convert_input, convert_tools
from ._responses_stream import ResponsesError, ResponsesReader, parse_event

API = "azure-openai-responses"
ACCEPTS_SYSTEM_MESSAGES = True
"""The transcript's system messages reach ``convert_input`` (prompt and tools as Pi declares them)."""
DEFAULT_API_VERSION = "v1"
MIN_OUTPUT_TOKENS = 16
"""The Responses API rejects ``max_output_tokens`` below 16."""
TOOL_CALL_FAMILY = frozenset({"openai", "openai-codex", "opencode", "azure"})
_AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")


def _setting(options: StreamOptions, key: str, env: str) -> str | None:
    value = options.extra.get(key) or os.environ.get(env)
    return str(value).strip() or None if value else None


def deployment_name(model: Model, options: StreamOptions) -> str:
    """The deployment to address: explicit, from ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP``, or the model id."""
    explicit = options.extra.get("azure_deployment_name")
    if explicit:
        return str(explicit)
    for entry in (os.environ.get("AZURE_OPENAI_DEPLOYMENT_NAME_MAP") or "").split(","):
        model_id, _, deployment = entry.strip().partition("=")
        if model_id.strip() == model.id and deployment.strip():
            return deployment.strip().split("=")[0].strip()
    return model.id


def _normalized_base_url(raw: str) -> str:
    trimmed = raw.strip().rstrip("/")
    parts = urlsplit(trimmed)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"Invalid Azure OpenAI base URL: {raw}")
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    if host.endswith(_AZURE_HOST_SUFFIXES) and path in ("", "/openai", "/openai/v1/responses"):
        parts = parts._replace(path="/openai/v1", query="")
    return urlunsplit(parts).rstrip("/")


def base_url(model: Model, options: StreamOptions) -> str:
    """The resource's base URL (see the module docstring).

    Raises:
        ValueError: none is configured, or it is not a URL.
    """
    url = _setting(options, "azure_base_url", "AZURE_OPENAI_BASE_URL")
    resource = _setting(options, "azure_resource_name", "AZURE_OPENAI_RESOURCE_NAME")
    if not url and resource:
        url = f"https://{resource}.openai.azure.com/openai/v1"
    url = url or model.base_url
    if not url:
        raise ValueError("Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
                         "or give the model a baseUrl in models.json.")
    return _normalized_base_url(url)


def _reasoning(model: Model, options: StreamOptions) -> tuple[dict[str, Any] | None, bool, str | None]:
    """``(reasoning, include_encrypted, level)`` as Pi's Azure request sets them."""
    level = options.reasoning if options.reasoning and options.reasoning != "off" else None
    if not model.reasoning:
        return None, False, level
    mapping = model_extra(model, "thinkingLevelMap") or {}
    if level:
        effort = mapping.get(level) or level
        return {"effort": effort, "summary": "auto"}, True, level
    if "off" in mapping and mapping["off"] is None:
        return None, False, level
    return {"effort": mapping.get("off") or "none"}, False, level


def build_request(
    model: Model, context: Context, options: StreamOptions, api_key: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """URL, headers and body of one streaming Responses request to Azure, in Pi's key order.

    Raises:
        ValueError: no usable base URL, or a tool that requires a strict schema it cannot have.
    """
    compat = model.compat or {}
    api_version = _setting(options, "azure_api_version", "AZURE_OPENAI_API_VERSION") or DEFAULT_API_VERSION
    url = f"{base_url(model, options)}/responses?api-version={quote(api_version, safe='')}"
    supports_strict = compat.get("supportsStrictMode", True) is not False
    items, tools = convert_input(model, context, TOOL_CALL_FAMILY, strict=(False, supports_strict))
    body: dict[str, Any] = {"model": deployment_name(model, options), "input": items, "stream": True}
    if options.session_id and compat.get("promptCacheKeyMode") != "disabled":
        body["prompt_cache_key"] = options.session_id[:64]
    body["store"] = False
    max_tokens = options.max_tokens or model.max_tokens
    if max_tokens:
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if tools:
        body["tools"] = convert_tools(tools, default_strict=False, supports_strict=supports_strict)
    reasoning, encrypted, level = _reasoning(model, options)
    if reasoning is not None:
        body["reasoning"] = reasoning
    if encrypted:
        body["include"] = ["reasoning.encrypted_content"]
    body.update(sampling_params(model, options, level))
    headers: dict[str, str | None] = {"accept": "application/json", "content-type": "application/json",
                                      "api-key": api_key, **identity_headers(model)}
    for source in (model.headers, options.headers):
        headers.update({k.lower(): v for k, v in (source or {}).items()})
    return url, final_headers(headers), body


def error_text(status: int, body: bytes) -> str:
    """Pi's wording: ``Azure OpenAI API error (<status>): <the error object as JSON>``, one line."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) and parsed["error"]:
        detail = json.dumps(parsed["error"], separators=(",", ":"), ensure_ascii=False)
    elif text:
        detail = " ".join(text.split())
    else:
        detail = f"{status} status code (no body)"
    if len(detail) > 4000:
        detail = f"{detail[:4000]}... [truncated {len(detail) - 4000} chars]"
    return f"Azure OpenAI API error ({status}): {detail}"


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from an Azure OpenAI Responses deployment. Never raises."""
    builder = MessageBuilder(model)
    prepared, problem = keyed_request(model, context, options, build_request)
    if prepared is None:
        for event in builder.fail(problem or "The request could not be built"):
            yield event
        return
    options, (url, headers, body) = prepared
    reader = ResponsesReader(builder)
    try:
        async for item in post_sse(url, headers, body, options, announce_open=True, error_text=error_text):
            if item is OPENED:
                for event in builder.start():
                    yield event
                continue
            data = parse_event(item[1])
            if data is None:
                continue
            for event in reader.handle(data):
                yield event
        tail = reader.result("Azure OpenAI Responses")
    except ResponsesError as exc:
        tail = builder.fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event
