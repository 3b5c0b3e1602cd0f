"""The ``google-vertex`` wire protocol: models on Google Cloud's Vertex AI, as Pi 1.6 routes them.

Gemini models stream from ``:streamGenerateContent?alt=sse`` with the same body and the same
stream as the Gemini API (``google_generative``); Claude models stream from ``:streamRawPredict``
with an Anthropic Messages body (``anthropic_messages``; ``anthropic_version`` in the body instead
of ``model``), which is how Vertex serves them. Where each request goes is ``routes.py``.

Authentication, as Pi's: a Google Cloud API key (``GOOGLE_CLOUD_API_KEY``, or the key the registry
resolved) is sent as ``x-goog-api-key`` to Vertex's express endpoint; otherwise Application
Default Credentials (``adc.py``) give a bearer token, and ``GOOGLE_CLOUD_PROJECT`` /
``GOOGLE_CLOUD_LOCATION`` say where. Request failures never raise: the stream ends with an
``error``/``aborted`` message that keeps whatever arrived before.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

from ....http import Aborted
from ...builder import MessageBuilder
from ...events import AssistantMessageEvent
from ...options import StreamOptions
from ...types import Context, Model
from .. import anthropic_messages, google_generative
from .._http import ProviderError, failure_events, final_headers, post_stream
from .._identity import identity_headers
from . import adc, routes

API = "google-vertex"
DEFAULT_BASE_URL = "https://{location}-aiplatform.googleapis.com"
_NOT_A_KEY = re.compile(r"^<[^>]+>$")
_ADC_MARKER = "gcp-vertex-credentials"
_CLAUDE_NEEDS_ADC = ("Claude models on Vertex AI need Application Default Credentials (Vertex API keys serve "
                     "Google's models only): unset GOOGLE_CLOUD_API_KEY and set GOOGLE_CLOUD_PROJECT, "
                     "GOOGLE_CLOUD_LOCATION and GOOGLE_APPLICATION_CREDENTIALS (or run `gcloud auth "
                     "application-default login`)")


def environment(options: StreamOptions) -> dict[str, str]:
    """The process environment with the request's provider-scoped values (``extra["env"]``) on top."""
    scoped = options.extra.get("env")
    env = dict(os.environ)
    if isinstance(scoped, dict):
        env.update({k: v for k, v in scoped.items() if isinstance(v, str)})
    return env


def api_key(options: StreamOptions, env: Mapping[str, str]) -> str | None:
    """The API key to send, if any: Pi's markers for "use ADC" (``<authenticated>``,
    ``gcp-vertex-credentials``) are not keys."""
    for candidate in (options.api_key, env.get("GOOGLE_CLOUD_API_KEY")):
        key = (candidate or "").strip()
        if key and key != _ADC_MARKER and not _NOT_A_KEY.match(key):
            return key
    return None


async def _auth(model: Model, options: StreamOptions, env: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The URL and the authentication headers of one request."""
    key = api_key(options, env)
    if key is not None:
        if routes.route(model.id) == "anthropic":
            raise routes.VertexConfigError(_CLAUDE_NEEDS_ADC)
        return routes.url(model, None, env), {"x-goog-api-key": key}
    place = routes.project_and_location(env, options.extra)
    token = await adc.access_token(env, options.signal)
    headers = {"authorization": f"Bearer {token.value}"}
    if token.quota_project:
        headers["x-goog-user-project"] = token.quota_project
    return routes.url(model, place, env), headers


def _gemini_request(model: Model, context: Context, options: StreamOptions,
                    auth: dict[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    body = google_generative.build_body(model, context, options, vertex=True)
    headers: dict[str, str | None] = {"content-type": "application/json", **identity_headers(model), **auth}
    headers.update(model.headers or {})
    headers.update(options.headers)
    return final_headers(headers), body


def _anthropic_request(model: Model, context: Context, options: StreamOptions,
                       auth: dict[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    _, built, body = anthropic_messages.build_request(model, context, options, "vertex")
    body.pop("model", None)
    body["anthropic_version"] = routes.ANTHROPIC_VERSION
    headers = {k: v for k, v in built.items() if k not in ("x-api-key", "anthropic-version")}
    headers.update(auth)
    return headers, body


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from Vertex AI.

    Args:
        model: A model whose ``api`` is ``google-vertex``.
        context: System prompt, history and tools.
        options: API key (else ADC), limits, reasoning level, abort signal; ``extra`` may hold
            ``project``, ``location`` and a provider-scoped ``env``.

    Returns:
        An async iterator of events ending with exactly one ``done`` or ``error``.
    """
    builder = MessageBuilder(model)
    env = environment(options)
    claude = routes.route(model.id) == "anthropic"
    try:
        url, auth = await _auth(model, options, env)
        make = _anthropic_request if claude else _gemini_request
        headers, body = make(model, context, options, auth)
    except (routes.VertexConfigError, adc.AdcError, ValueError) as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    except Aborted:
        for event in builder.fail("Request was aborted", aborted=True):
            yield event
        return
    try:
        if claude:
            events = _claude_events(url, headers, body, options, builder)
        else:
            events = _gemini_events(url, headers, body, options, builder)
        async with aclosing(events) as produced:
            async for event in produced:
                yield event
        return
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        if isinstance(exc, ProviderError) and exc.status == 401:
            adc.forget_tokens()  # revoked or expired early: the next request asks for a new one
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event


async def _gemini_events(url: str, headers: dict[str, str], body: dict[str, Any], options: StreamOptions,
                         builder: MessageBuilder) -> AsyncGenerator[AssistantMessageEvent, None]:
    parser = google_generative.StreamParser(builder)
    async with aclosing(post_stream(url, headers, body, options, error_text=error_text)) as sse:
        async for _, data in sse:
            for event in parser.handle(data):
                yield event
    for event in parser.finish():
        yield event


async def _claude_events(url: str, headers: dict[str, str], body: dict[str, Any], options: StreamOptions,
                         builder: MessageBuilder) -> AsyncGenerator[AssistantMessageEvent, None]:
    parser = anthropic_messages.StreamParser(builder)
    async with aclosing(post_stream(url, headers, body, options, error_text=error_text)) as sse:
        async for name, data in sse:
            for event in parser.handle(name, data):
                yield event
            if parser.done:
                return
    for event in builder.fail("The stream ended before message_stop (the response was cut short)"):
        yield event


def error_text(status: int, _headers: Mapping[str, str], body: bytes) -> str:
    """Google's error shape (``{"error": {"code", "message", "status"}}``, sometimes in a list) as one line:
    ``429 RESOURCE_EXHAUSTED: Resource exhausted...``."""
    import json

    from ....text_safety import terminal_safe

    text = body.decode("utf-8", errors="replace").strip()
    try:
        data: Any = json.loads(text)
    except ValueError:
        return terminal_safe(f"{status} {text[:500]}".strip())
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        label = error.get("status") or error.get("type")  # Google's status, or Anthropic's error type
        message = str(error.get("message") or "")
        return terminal_safe(f"{status} {label}: {message}" if label else f"{status} {message}".strip())
    if isinstance(error, str):
        return terminal_safe(f"{status} {error}")
    return terminal_safe(f"{status} {text[:500]}".strip())
