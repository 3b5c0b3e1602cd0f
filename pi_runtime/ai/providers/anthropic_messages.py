"""The ``anthropic-messages`` wire protocol: Anthropic's Messages API with SSE streaming, as Pi 1.6 speaks it.

``_anthropic_request`` builds the request (Pi's betas, headers, caching, thinking and tools);
``_anthropic_threads`` keeps the message threads Pi uses on api.anthropic.com; this module sends
it and translates the event stream into ``MessageBuilder`` calls. Request failures never raise:
they end the stream with an ``error``/``aborted`` message that keeps whatever arrived before.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

from ..builder import MessageBuilder
from ..env_keys import env_api_key
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..reported_cost import apply_reported_cost, is_openrouter
from ..transform import prepare_messages
from ..types import Context, Model
from . import _anthropic_request as request
from . import _anthropic_threads as threads
from . import subscription_quirks as quirks
from ._error_words import anthropic_words
from ._http import ProviderError, StreamFormatError, failure_events, final_headers, missing_key_message, post_sse
from ._identity import user_agent
from ._openai_common import header_owned_auth

API = "anthropic-messages"
DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = request.ANTHROPIC_VERSION
_MARKER = re.compile(r"^<[^>]+>$")
OAUTH_BETA = "oauth-2025-04-20"
"""The beta the Anthropic SDK adds to requests made with an OAuth-style access token (workload identity)."""
_STRICT_LIMIT_ERRORS = ("The compiled grammar is too large", "Too many strict tools (",
                        "Schemas contains too many parameters with union types (")
"""Claude's refusals of a request whose strict tools exceed its limits (the request is sent again without)."""
_over_strict_limits: set[str] = set()
"""Sessions whose strict tools Claude refused for its limits: their ``prefer`` tools go non-strict."""

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
}


tool_use_id = request.tool_use_id


def build_request(
    model: Model, context: Context, options: StreamOptions, api_key: str | None
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL, headers and JSON body of one streaming Messages request (no thread).

    Raises:
        ValueError: a tool requires a strict schema it cannot have.
    """
    url, headers, body = request.build(model, context, options, api_key)
    return url, final_headers(headers), body


class _StreamParser:
    """Turns decoded SSE events into builder calls; ``done`` once the message has ended."""

    def __init__(self, builder: MessageBuilder, tool_name: Any = None) -> None:
        self.builder = builder
        self.tool_name = tool_name
        """Maps a tool name the model used back to pi's (Claude Code's spelling, for a subscription)."""
        self.blocks: dict[int, int] = {}
        """Anthropic content index -> index in our message."""
        self.stop_reason: str | None = None
        self.stop_details: dict[str, Any] = {}
        self.done = False

    def handle(self, event: str | None, data: str) -> list[AssistantMessageEvent]:
        try:
            payload = json.loads(data)
        except ValueError:
            raise StreamFormatError(f"Malformed JSON in the Anthropic stream: {data[:200]!r}") from None
        if not isinstance(payload, dict):
            raise StreamFormatError(f"Unexpected data in the Anthropic stream: {data[:200]!r}")
        kind = payload.get("type") or event
        b = self.builder
        if kind == "message_start":
            message = payload.get("message") or {}
            b.message.response_id = message.get("id") or b.message.response_id
            if message.get("model") and message["model"] != b.model.id:  # a fallback model answered
                b.message.response_model = message["model"]
            self._usage(message.get("usage"), initial=True)
            return b.start()
        if kind == "content_block_start":
            return self._block_start(payload.get("index", 0), payload.get("content_block") or {})
        if kind == "content_block_delta":
            return self._block_delta(payload.get("index", 0), payload.get("delta") or {})
        if kind == "content_block_stop":
            index = self.blocks.pop(payload.get("index", 0), None)
            return b.end_block(index) if index is not None else []
        if kind == "message_delta":
            delta = payload.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            if isinstance(delta.get("stop_details"), dict):
                self.stop_details = delta["stop_details"]
            b.set_raw_stop_reason(self.stop_reason)
            self._usage(payload.get("usage"))
            return []
        if kind == "message_stop":
            return self._finish()
        if kind == "error":
            error = payload.get("error") or {}
            self.done = True
            text = f"{error.get('type', 'error')}: {error.get('message', '')}".rstrip(": ")
            return b.fail(text)
        return []  # ping and event types this version does not use

    def _usage(self, usage: dict[str, Any] | None, initial: bool = False) -> None:
        """Usage from ``message_start`` (``initial``: missing counts are 0) or ``message_delta``
        (only the counts it carries), priced at once, as Pi does."""
        if not usage and not initial:
            return
        usage = usage or {}
        u = self.builder.message.usage
        fields = (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache_read"),
            ("cache_creation_input_tokens", "cache_write"),
        )
        for wire, attr in fields:
            value = usage.get(wire)
            if isinstance(value, int):
                setattr(u, attr, value)
            elif initial:
                setattr(u, attr, 0)
        one_hour = (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")
        if isinstance(one_hour, int):
            u.cache_write_1h = one_hour
        elif initial:
            u.cache_write_1h = 0
        thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
        if isinstance(thinking, int):
            u.reasoning = thinking  # part of output
        u.total_tokens = u.input + u.output + u.cache_read + u.cache_write
        self.builder.usage_updated()
        if not initial and is_openrouter(self.builder.model):
            apply_reported_cost(u, usage)

    def _block_start(self, index: int, block: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        kind = block.get("type")
        if kind == "text":
            ours, events = b.text_start()
            if block.get("text"):
                events += b.text_delta(ours, block["text"])
        elif kind == "thinking":
            ours, events = b.thinking_start(signature=block.get("signature") or None)
            if block.get("thinking"):
                events += b.thinking_delta(ours, block["thinking"])
        elif kind == "redacted_thinking":
            ours, events = b.thinking_start(signature=block.get("data") or "", redacted=True)
            b.message.content[ours].thinking = "[Reasoning redacted]"  # type: ignore[union-attr]
        elif kind == "tool_use":
            name = block.get("name", "")
            if self.tool_name is not None:
                name = self.tool_name(name)
            ours, events = b.toolcall_start(block.get("id") or f"toolu_{index}", name)
            if block.get("input"):
                b.message.content[ours].arguments = block["input"]  # type: ignore[union-attr]
        else:
            return []  # server tool blocks and the like are not part of Pi's message model
        self.blocks[index] = ours
        return events

    def _block_delta(self, index: int, delta: dict[str, Any]) -> list[AssistantMessageEvent]:
        ours = self.blocks.get(index)
        if ours is None:
            return []
        b = self.builder
        kind = delta.get("type")
        if kind == "text_delta":
            return b.text_delta(ours, delta.get("text", ""))
        if kind == "thinking_delta":
            return b.thinking_delta(ours, delta.get("thinking", ""))
        if kind == "signature_delta":
            b.set_thinking_signature(ours, delta.get("signature", ""))
            return []
        if kind == "input_json_delta":
            return b.toolcall_delta(ours, delta.get("partial_json", ""))
        return []

    def _finish(self) -> list[AssistantMessageEvent]:
        """The closing events, in Pi's words for the stop reasons that are errors."""
        self.done = True
        raw = self.stop_reason
        if raw is None:
            return self.builder.fail("Anthropic stream ended without a stop reason")
        if raw in _STOP_REASONS:
            return self.builder.finish(_STOP_REASONS[raw])
        if raw == "refusal":
            explanation = self.stop_details.get("explanation")
            return self.builder.fail(explanation if isinstance(explanation, str) and explanation
                                     else "The model refused to complete the request")
        if raw == "sensitive":
            return self.builder.fail("Provider stopped with: sensitive")
        return self.builder.fail(f"Unhandled stop reason: {raw}")

    def end_of_body(self) -> list[AssistantMessageEvent]:
        """The body ended: what ``message_stop`` would have closed (a stop reason may have come alone)."""
        return [] if self.done else self._finish()


StreamParser = _StreamParser
"""The response parser, public for the routes that speak this format elsewhere (Vertex AI)."""


def _has_credential(options: StreamOptions) -> bool:
    return header_owned_auth(options.headers, "authorization", "x-api-key", "cf-aig-authorization")


def _reply(model: Model, message: Any, subscription: bool) -> list[dict[str, Any]]:
    """An answer as the next request will send it (for the thread's fingerprint)."""
    converted, _ = request.convert_messages(prepare_messages([message], model), model, subscription=subscription,
                                            marker=None,
                                            allow_empty_signature=request.compat(model)["allowEmptySignature"])
    return [m for m in converted if m["role"] == "assistant"]


class _Refusal:
    """The body of the last error response, kept to tell a thread's refusal from other errors."""

    def __init__(self) -> None:
        self.code: str | None = None
        self.kind: str | None = None

    def __call__(self, status: int, body: bytes) -> str:
        text = body.decode("utf-8", errors="replace").strip()
        try:
            error = (json.loads(text) or {}).get("error") or {}
        except (ValueError, AttributeError):
            error = {}
        detail = error.get("details") if isinstance(error, dict) else None
        code = detail.get("error_code") if isinstance(detail, dict) else None
        self.code = code if isinstance(code, str) else None
        self.kind = error.get("type") if isinstance(error, dict) and isinstance(error.get("type"), str) else None
        return anthropic_words(status, body)


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from an Anthropic Messages endpoint.

    Args:
        model: A model whose ``api`` is ``anthropic-messages``.
        context: System prompt, history and tools.
        options: Credentials, limits, reasoning level, abort signal, HTTP client.

    Returns:
        An async iterator of events ending with exactly one ``done`` or ``error``.
    """
    builder = MessageBuilder(model)
    api_key = options.api_key or env_api_key(model.provider)
    if api_key and _MARKER.match(api_key):
        api_key = None  # Pi's "configured from the environment" marker is no key (workload identity)
    federation_token = None
    if not api_key and not _has_credential(options):
        from . import _anthropic_federation as federated  # rare: only a workload's environment needs it

        federation = federated.from_environment(os.environ) if model.provider == "anthropic" else None
        if federation is None:
            for event in builder.fail(missing_key_message(model.provider)):
                yield event
            return
        try:
            federation_token = await federated.access_token(federation, model.base_url, user_agent(), options.signal)
        except federated.FederationError as exc:
            for event in builder.fail(str(exc)):
                yield event
            return
        except Exception as exc:  # noqa: BLE001 - an abort while exchanging: the contract says never raise
            for event in failure_events(builder, exc, options):
                yield event
            return
    settings = request.compat(model)
    session = options.session_id if request.retention(options) != "none" else None
    thread_session = session if settings["supportsMessageThreads"] and not options.extra.get(
        "disable_continuation") else None
    subscription = request.is_subscription_token(model, api_key)
    prefer_strict = session not in _over_strict_limits
    try:
        url, headers, body = request.build(model, context, options, api_key, threads=thread_session is not None,
                                           prefer_strict=prefer_strict)
    except ValueError as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    if federation_token is not None:
        # The exchanged token goes as a bearer token, with the OAuth beta the SDK adds for it.
        headers["authorization"] = f"Bearer {federation_token}"
        if OAUTH_BETA not in (headers.get("anthropic-beta") or "").split(","):
            headers["anthropic-beta"] = ",".join(b for b in (headers.get("anthropic-beta"), OAUTH_BETA) if b)
    features = [f for f in (headers.get("anthropic-beta") or "").split(",") if f]
    builder.message.provider_thinking_level = request.provider_thinking_level(model, options)
    send = threads.prepare(thread_session, model.base_url, body, features) if thread_session else None
    threaded = send is not None
    send = send or body
    refusal = _Refusal()
    parser = _StreamParser(builder, (lambda name: quirks.from_claude_code(name, context.tools)) if subscription else None)
    tail = None
    for attempt in range(3):
        started = False
        try:
            async with aclosing(post_sse(url, headers, send, options, error_text=refusal)) as sse:
                async for name, data in sse:
                    started = True
                    events = parser.handle(name, data)
                    if parser.done:
                        tail = events  # yielded last: the consumer stops reading at the final event
                        break
                    for event in events:
                        yield event
            if not parser.done:
                tail = parser.end_of_body()
            if (thread_session and threaded and builder.message.stop_reason not in ("error", "aborted")
                    and builder.message.response_model is None):
                threads.record_reply(thread_session, model.base_url, body, features,
                                     _reply(model, builder.message, subscription), builder.message.response_id)
            break
        except ProviderError as exc:
            if started or attempt == 2 or (options.signal is not None and options.signal.aborted):
                tail = failure_events(builder, exc, options)
                break
            action = threads.refused(refusal.code, exc.status, str(exc)) if threaded and thread_session else None
            if action == "new":
                send = threads.created(body)
                continue
            if action == "without" and thread_session:
                threads.turn_off(thread_session)
                send, threaded = body, False
                continue
            if (exc.status == 400 and refusal.kind == "invalid_request_error" and session is not None
                    and any(m in str(exc) for m in _STRICT_LIMIT_ERRORS) and _strict_in(body) and prefer_strict):
                _over_strict_limits.add(session)
                prefer_strict = False
                url, headers, body = request.build(model, context, options, api_key,
                                                   threads=thread_session is not None, prefer_strict=False)
                send = (threads.created(body) if threaded else body)
                continue
            tail = failure_events(builder, exc, options)
            break
        except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
            tail = failure_events(builder, exc, options)
            break
    for event in tail or []:
        yield event


def _strict_in(body: Mapping[str, Any]) -> bool:
    return any(isinstance(t, dict) and t.get("strict") for t in body.get("tools") or ())
