"""The ``openai-codex-responses`` wire protocol: the Responses API behind a ChatGPT subscription.

``<baseUrl>/codex/responses`` (``https://chatgpt.com/backend-api`` by default), with the account's
OAuth access token as the API key. As Pi 1.6 sends it:

- headers: ``originator: pi``, the bearer token, ``chatgpt-account-id`` read from the token's
  claims (``https://api.openai.com/auth`` → ``chatgpt_account_id``), the session id as
  ``session-id`` and ``x-client-request-id``;
- body: Pi's Responses input items (``_responses_input``) plus ``text.verbosity: low``,
  ``include: [reasoning.encrypted_content]``, ``tool_choice: auto``, ``parallel_tool_calls``,
  the session as ``prompt_cache_key``, tools strict where declared (``strict: null`` otherwise),
  and ``reasoning.effort: none`` for a reasoning model with thinking off;
- transport (the ``transport`` setting): ``auto`` tries the WebSocket first (``_codex_ws``),
  retries once when the server says ``websocket_connection_limit_reached`` before anything
  streamed (and once when it lost ``previous_response_id``), and falls back to SSE when the socket
  fails before the stream starts, for the rest of the session; ``sse`` goes straight to SSE,
  whose body is zstd-compressed (``content-encoding: zstd``).

Errors: a usage limit reads as Pi words it (``You have hit your ChatGPT usage limit (plus plan).
Try again in ~42 min.``, not retried); other HTTP errors as ``<status> <message>``; stream
errors as ``Codex error: <message>``.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..types import Context, Model
from . import _codex_ws as ws
from ._http import Aborted, failure_events, final_headers, post_sse
from ._identity import identity_headers
from ._openai_common import model_extra
from ._responses_input import compact, convert_input, convert_tools
from ._responses_stream import ResponsesError, ResponsesReader

API = "openai-codex-responses"
ACCEPTS_SYSTEM_MESSAGES = True
"""The transcript's system messages reach ``convert_input``: Codex models declare tool changes in
place (``additional_tools``) and take prompt updates mid-conversation."""
CONFIGURATION_UPDATE_EFFORT = "medium"
"""``reasoning.effort`` while ``configuration_update`` items carry the thinking level."""
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
JWT_CLAIMS = "https://api.openai.com/auth"
MIN_OUTPUT_TOKENS = 16
TOOL_CALL_FAMILY = frozenset({"openai", "openai-codex", "opencode"})
CONNECTION_LIMIT = "websocket_connection_limit_reached"
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"
_STATUSES = {"completed", "incomplete", "failed", "cancelled", "queued", "in_progress"}
_USAGE_LIMIT_CODES = ("usage_limit_reached", "usage_not_included", "rate_limit_exceeded")


class CodexApiError(Exception):
    """The Codex server reported an error for the request (in the stream or the response)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------- request


def account_id(token: str) -> str:
    """The ChatGPT account id in an access token's claims.

    Raises:
        ValueError: the token is not a JWT with that claim.
    """
    try:
        _header, payload, _signature = token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        found = claims[JWT_CLAIMS]["chatgpt_account_id"]
        if not found or not isinstance(found, str):
            raise ValueError("no account id")
        return found
    except (ValueError, KeyError, TypeError):
        raise ValueError("Failed to extract accountId from token") from None


def codex_url(base_url: str) -> str:
    """``<base>/codex/responses``, unless the base already ends with it (or with ``/codex``)."""
    base = (base_url.strip() or DEFAULT_BASE_URL).rstrip("/")
    if base.endswith("/codex/responses"):
        return base
    return f"{base}/responses" if base.endswith("/codex") else f"{base}/codex/responses"


def websocket_url(base_url: str) -> str:
    url = codex_url(base_url)
    for plain, secure in (("http:", "ws:"), ("https:", "wss:")):
        if url.startswith(plain):
            return secure + url[len(plain):]
    return url


def _effort(model: Model, options: StreamOptions) -> str | None:
    """The ``reasoning.effort`` to send: the level (through ``thinkingLevelMap``), ``none`` for a
    reasoning model with thinking off, or None for no ``reasoning`` field."""
    mapping = model_extra(model, "thinkingLevelMap") or {}
    level = options.reasoning if options.reasoning and options.reasoning != "off" else None
    if level:
        effort = mapping.get(level) or level  # a level mapped to null is not offered (the kernel clamps)
    elif model.reasoning:
        effort = mapping.get("off", "none")
    else:
        return None
    return None if effort is None else str(effort)


def session_key(options: StreamOptions) -> str | None:
    """The session id as the prompt-cache key (at most 64 characters)."""
    return options.session_id[:64] if options.session_id else None


def configuration_effort(model: Model, options: StreamOptions) -> str | None:
    """For models that take the effort mid-conversation (``supportsMidConvoEffort``): the effort to
    send as ``configuration_update`` items (and to record on the message), else None."""
    if not (model.compat or {}).get("supportsMidConvoEffort"):
        return None
    if not model.reasoning and options.reasoning in (None, "off"):
        return None
    return _effort(model, options)


def build_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The request body, keys in Pi's order.

    Raises:
        ValueError: a tool requires a strict schema it cannot have.
    """
    compat = model.compat or {}
    supports_strict = compat.get("supportsStrictMode", True) is not False
    mid_effort = configuration_effort(model, options)
    items, tools = convert_input(model, context, TOOL_CALL_FAMILY, strict=(None, supports_strict),
                                 configuration_effort=mid_effort)
    body: dict[str, Any] = {
        "model": model.id, "store": False, "stream": True, "input": items,
        "text": {"verbosity": str(options.extra.get("text_verbosity") or "low")},
        "include": ["reasoning.encrypted_content"],
    }
    key = session_key(options)
    if key:
        body["prompt_cache_key"] = key
    body["tool_choice"] = "auto"
    body["parallel_tool_calls"] = True
    max_tokens = options.max_tokens or model.max_tokens
    if max_tokens and compat.get("supportsMaxOutputTokens", True) is not False:
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.extra.get("service_tier"):
        body["service_tier"] = options.extra["service_tier"]
    if tools:
        body["tools"] = convert_tools(tools, default_strict=None, supports_strict=supports_strict)
    effort = CONFIGURATION_UPDATE_EFFORT if mid_effort is not None else _effort(model, options)
    if effort is not None:
        body["reasoning"] = {"effort": effort, "summary": "auto"}
    return body


def _headers(model: Model, options: StreamOptions, token: str, account: str) -> dict[str, str]:
    headers: dict[str, str | None] = {"originator": "pi", **identity_headers(model)}
    for source in (model.headers, options.headers):
        headers.update({k.lower(): v for k, v in (source or {}).items()})
    headers["authorization"] = f"Bearer {token}"
    headers["chatgpt-account-id"] = account
    return final_headers(headers)


def sse_headers(model: Model, options: StreamOptions, token: str, account: str) -> dict[str, str]:
    headers = _headers(model, options, token, account)
    headers.update({"openai-beta": "responses=experimental", "accept": "text/event-stream",
                    "content-type": "application/json"})
    key = session_key(options)
    if key:
        headers["session-id"] = key
        headers["x-client-request-id"] = key
    headers["content-encoding"] = "zstd"
    return headers


def websocket_headers(model: Model, options: StreamOptions, token: str, account: str) -> dict[str, str]:
    headers = _headers(model, options, token, account)
    headers.pop("content-type", None)
    # What Pi's WebSocket client (undici) sends in the handshake besides Pi's own headers.
    headers.update({"accept": "*/*", "accept-encoding": "gzip, deflate"})
    request_id = session_key(options) or _uuid7()
    headers.update({"openai-beta": ws.BETA_HEADER, "x-client-request-id": request_id, "session-id": request_id})
    return headers


def _uuid7() -> str:
    import os
    import uuid

    millis = int(time.time() * 1000)
    raw = bytearray(millis.to_bytes(6, "big") + os.urandom(10))
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(raw)))


def error_text(status: int, body: bytes) -> str:
    """Pi's words for a usage limit; ``<status> <message>`` for anything else."""
    raw = body.decode("utf-8", errors="replace").strip()
    message = raw
    try:
        error = json.loads(raw).get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict):
        code = str(error.get("code") or error.get("type") or "")
        if status == 429 or any(c in code for c in _USAGE_LIMIT_CODES):
            plan = f" ({str(error['plan_type']).lower()} plan)" if error.get("plan_type") else ""
            when = ""
            if isinstance(error.get("resets_at"), (int, float)):
                minutes = max(0, round((error["resets_at"] - time.time()) / 60))
                when = f" Try again in ~{minutes} min."
            return f"You have hit your ChatGPT usage limit{plan}.{when}"
        message = str(error.get("message") or raw)
    return f"{status} {' '.join(message.split()) or 'Request failed'}"


# --------------------------------------------------------------------------- events


def codex_event(event: dict[str, Any]) -> dict[str, Any] | None:
    """One server event as the Responses reader takes it (None to skip).

    Raises:
        CodexApiError: an ``error`` event or a failed response.
    """
    kind = event.get("type")
    if not isinstance(kind, str):
        return None
    if kind == "error":
        nested: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else {}
        code = event.get("code") if isinstance(event.get("code"), str) else nested.get("code")
        text = event.get("message") if isinstance(event.get("message"), str) else nested.get("message")
        raise CodexApiError(f"Codex error: {text or code or compact(event)}", code if isinstance(code, str) else None)
    if kind == "response.failed":
        error = (event.get("response") or {}).get("error") or {}
        raise CodexApiError(error.get("message") or "Codex response failed", error.get("code"))
    if kind in ("response.done", "response.completed", "response.incomplete"):
        response = dict(event.get("response") or {})
        status = response.get("status")
        response["status"] = status if status in _STATUSES else None
        return {**event, "type": "response.completed", "response": response}
    return event


def _service_tier_factor(model: Model, tier: str | None) -> float:
    if tier == "flex":
        return 0.5
    if tier == "priority":
        return 2.5 if model.id == "gpt-5.5" else 2.0
    return 1.0


def _finish(reader: ResponsesReader, model: Model) -> list[AssistantMessageEvent]:
    factor = _service_tier_factor(model, reader.service_tier)
    if factor != 1.0 and reader.builder.usage_seen:
        cost = reader.builder.message.usage.cost
        cost.input, cost.output = cost.input * factor, cost.output * factor
        cost.cache_read, cost.cache_write = cost.cache_read * factor, cost.cache_write * factor
        cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return reader.result("Codex")


# --------------------------------------------------------------------------- transports


async def _over_websocket(model: Model, body: dict[str, Any], headers: dict[str, str], options: StreamOptions,
                          account: str, reader: ResponsesReader) -> AsyncIterator[AssistantMessageEvent]:
    """One request over the session's socket; raises on failure (the caller decides what next)."""
    key = session_key(options)
    lease = await ws.acquire(websocket_url(model.base_url), headers, key, account, options.signal,
                             float(options.extra.get("websocket_connect_timeout") or ws.CONNECT_TIMEOUT))
    cached = options.transport in ("auto", "websocket-cached")
    keep = True
    try:
        request = ws.request_body(lease.entry, body) if cached else body
        async for raw in ws.exchange(lease.connection, {"type": "response.create", **request}, options.signal,
                                     options.timeout):
            if options.on_stream_event is not None:
                await options.on_stream_event({"event": raw.get("type"), "data": raw})
            event = codex_event(raw)
            if event is None:
                continue
            for out in reader.handle(event):
                yield out
            if reader.finished:
                break
        if cached and lease.entry is not None and reader.builder.message.response_id:
            answer = Context(messages=[reader.builder.message])
            items = [i for i in convert_input(model, answer, TOOL_CALL_FAMILY)[0]
                     if i.get("type") != "function_call_output"]
            lease.entry.continuation = ws.Continuation(body=body, response_id=reader.builder.message.response_id,
                                                       response_items=items)
    except BaseException:
        keep = False
        raise
    finally:
        lease.release(keep and not (options.signal is not None and options.signal.aborted))


async def _over_sse(model: Model, body: dict[str, Any], headers: dict[str, str], options: StreamOptions,
                    reader: ResponsesReader) -> AsyncIterator[AssistantMessageEvent]:
    from ._http import OPENED
    from ._zstd import compress

    async for item in post_sse(codex_url(model.base_url), headers, body, options, announce_open=True,
                               compress=compress, error_text=error_text):
        if item is OPENED:
            for out in reader.builder.start():
                yield out
            continue
        data = item[1].strip()
        if not data or data == "[DONE]":
            continue
        try:
            parsed = json.loads(data)
        except ValueError as exc:
            raise ws.CodexProtocolError(f"Invalid Codex SSE JSON: {exc}") from None
        event = codex_event(parsed) if isinstance(parsed, dict) else None
        if event is None:
            continue
        for out in reader.handle(event):
            yield out
        if reader.finished:
            return


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from the Codex endpoint (WebSocket, then SSE). Never raises."""
    from dataclasses import replace

    builder = MessageBuilder(model)
    token = options.api_key
    if not token:
        for event in builder.fail(f"No ChatGPT sign-in for provider '{model.provider}': run /login and choose "
                                  "OpenAI (ChatGPT Plus/Pro)."):
            yield event
        return
    try:
        account = account_id(token)
        body = build_body(model, context, options)
    except ValueError as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    builder.message.provider_thinking_level = configuration_effort(model, options)
    reader = ResponsesReader(builder)
    session = session_key(options)
    try:
        if options.on_payload is not None:  # the extensions' hook sees the body once, whichever transport
            body = await options.on_payload(body)
            options = replace(options, on_payload=None)
        if options.transport != "sse" and not (session and session in ws.sse_only_sessions):
            headers = websocket_headers(model, options, token, account)
            if options.on_headers is not None:
                headers = await options.on_headers(dict(headers))
            retried_limit = retried_lost = False
            while True:
                try:
                    async for event in _over_websocket(model, body, headers, options, account, reader):
                        yield event
                    for event in _finish(reader, model):
                        yield event
                    return
                except (Aborted, ws.CodexProtocolError, ResponsesError):
                    raise
                except CodexApiError as exc:
                    started = builder.started
                    if exc.code == PREVIOUS_RESPONSE_NOT_FOUND and not retried_lost:
                        retried_lost = True
                        reader = ResponsesReader(builder)
                        continue
                    if exc.code == CONNECTION_LIMIT and not started and not retried_limit:
                        retried_limit = True  # the server's limit of open sockets: one fresh try
                        reader = ResponsesReader(builder)
                        continue
                    if exc.code != CONNECTION_LIMIT or started:
                        raise
                except Exception:  # a transport failure: this session uses SSE from now on (as Pi)
                    if session:
                        ws.sse_only_sessions.add(session)
                    if builder.started:
                        raise  # what streamed cannot be taken back: the turn fails (and may be retried)
                    break
                if session:
                    ws.sse_only_sessions.add(session)
                break
        options = replace(options, api_key=token)
        async for event in _over_sse(model, body, sse_headers(model, options, token, account), options, reader):
            yield event
        tail = _finish(reader, model)
    except (CodexApiError, ResponsesError, ws.CodexProtocolError, ws.WebSocketClosed) as exc:
        tail = builder.fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event

