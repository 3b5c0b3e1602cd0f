"""The ``google-generative-ai`` wire protocol: Gemini's ``streamGenerateContent`` over SSE.

``build_request`` turns a context into ``contents`` (roles user/model; thinking and
function calls replayed with their thought signatures; consecutive tool results in one
user turn of ``functionResponse`` parts), ``systemInstruction``, ``tools`` and
``generationConfig``. ``stream`` sends it and turns each streamed response chunk into
``MessageBuilder`` calls. Gemini sends function calls whole, so each one opens and closes
in the same chunk and gets an id generated here when the server gives none.
Request failures never raise: the stream ends with an ``error``/``aborted`` message.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
from ..strict_schema import strict_choice, tool_parameters
from ..transform import prepare_messages
from ..types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ._error_words import google_words
from ._http import ProviderError, StreamFormatError, failure_events, final_headers, keyed_request, post_sse
from ._identity import identity_headers
from .google_thinking import thinking_config

API = "google-generative-ai"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"

_IMAGE_OMITTED = "(image omitted: model does not support images)"
_call_counter = itertools.count(1)


# --------------------------------------------------------------------------- request


def _user_parts(content: str | list[Any], model: Model) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}] if content else []
    parts: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, TextContent):
            if part.text:
                parts.append({"text": part.text})
        elif isinstance(part, ImageContent):
            if "image" in model.input:
                parts.append({"inlineData": {"mimeType": part.mime_type, "data": part.data}})
            else:
                parts.append({"text": _IMAGE_OMITTED})
    return parts


_GEMINI_MAJOR = re.compile(r"^gemini(?:-live)?-(\d+)")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_TOOL_IMAGE_CAPTION = "Tool result image:"


def _gemini_major(model_id: str) -> int | None:
    match = _GEMINI_MAJOR.match(model_id.lower())
    return int(match.group(1)) if match else None


def requires_call_ids(model: Model) -> bool:
    """Gemini 3 and later (and Claude or gpt-oss behind Google's API) match results to calls by id."""
    major = _gemini_major(model.id)
    return model.id.startswith(("claude-", "gpt-oss-")) or (major is not None and major >= 3)


def _signature(same_model: bool, signature: str | None) -> str | None:
    """A thought signature is replayed only to the model that made it, and only when it is base64."""
    if not same_model or not signature or len(signature) % 4 or not _BASE64.match(signature):
        return None
    return signature


def _call_id(call_id: str, same_model: bool) -> str:
    # Ids from other providers are made safe, as for Anthropic: Google checks them too.
    return call_id if same_model else re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]


def _model_parts(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    same = message.provider == model.provider and message.model == model.id
    with_ids = requires_call_ids(model)
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            signature = _signature(same, block.text_signature)
            # An empty part is kept when it carries the signature Gemini wants echoed back.
            if block.text.strip() or signature:
                part: dict[str, Any] = {"text": block.text}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
        elif isinstance(block, ThinkingContent):
            signature = _signature(same, block.thinking_signature)
            if block.thinking.strip() or signature:
                part = {"thought": True, "text": block.thinking}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
        elif isinstance(block, ToolCall):
            call: dict[str, Any] = {"name": block.name, "args": block.arguments}
            if with_ids:
                call["id"] = _call_id(block.id, same)
            part = {"functionCall": call}
            signature = _signature(same, block.thought_signature)
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
    return parts


def _tool_result(message: ToolResultMessage, model: Model, call_ids: dict[str, str]) -> tuple[dict[str, Any], list[Any]]:
    """The ``functionResponse`` part and the images that go after the turn (Gemini before 3)."""
    text = "\n".join(c.text for c in message.content if isinstance(c, TextContent))
    images = [c for c in message.content if isinstance(c, ImageContent)] if "image" in model.input else []
    value = text if text.strip() else ("(see attached image)" if images else "")
    response: dict[str, Any] = {"name": message.tool_name, "response": {"error" if message.is_error else "output": value}}
    major = _gemini_major(model.id)
    nested = major is None or major >= 3  # Gemini 3 takes images inside the function response
    image_parts = [{"inlineData": {"mimeType": i.mime_type, "data": i.data}} for i in images]
    if image_parts and nested:
        response["parts"] = image_parts
    if requires_call_ids(model):
        response["id"] = call_ids.get(message.tool_call_id, message.tool_call_id)
    return {"functionResponse": response}, ([] if nested else image_parts)


def convert_messages(messages: list[Any], model: Model) -> list[dict[str, Any]]:
    """Prepared history -> Gemini ``contents``, as Pi 1.6 builds them.

    Consecutive tool results share one user turn; on Gemini before 3 their images follow in a
    user turn of their own. Thought signatures go back only to the model that made them.

    Args:
        messages: Output of ``prepare_messages`` (user, assistant and toolResult only).
        model: The target model (decides ids, signatures and where images go).

    Returns:
        The ``contents`` array.
    """
    out: list[dict[str, Any]] = []
    call_ids: dict[str, str] = {}
    for message in messages:
        if isinstance(message, ToolResultMessage):
            part, trailing = _tool_result(message, model, call_ids)
            last = out[-1] if out else None
            if last is not None and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
                last["parts"].append(part)
            else:
                out.append({"role": "user", "parts": [part]})
            if trailing:
                out.append({"role": "user", "parts": [{"text": _TOOL_IMAGE_CAPTION}, *trailing]})
            continue
        if isinstance(message, UserMessage):
            parts = _user_parts(message.content, model)
            if parts:
                out.append({"role": "user", "parts": parts})
        elif isinstance(message, AssistantMessage):
            same = message.provider == model.provider and message.model == model.id
            for block in message.content:
                if isinstance(block, ToolCall):
                    call_ids[block.id] = _call_id(block.id, same)
            parts = _model_parts(message, model)
            if parts:
                out.append({"role": "model", "parts": parts})
    return out


_PART_KEYS = ("functionCall", "functionResponse", "inlineData", "text", "thought", "thoughtSignature")
"""The order Google's SDK writes a part's fields in, whatever order they were given."""
_CALL_KEYS = ("args", "id", "name")
_VERTEX_RESPONSE_KEYS = ("id", "name", "parts", "response")
_SUBSCHEMAS = frozenset({"additionalProperties", "unevaluatedProperties", "propertyNames", "items", "prefixItems",
                         "additionalItems", "unevaluatedItems", "contains", "allOf", "anyOf", "oneOf", "not", "if",
                         "then", "else", "contentSchema"})
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"})


def _ordered(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {**{k: value[k] for k in keys if k in value}, **{k: v for k, v in value.items() if k not in keys}}


def as_sent(contents: list[dict[str, Any]], vertex: bool = False) -> list[dict[str, Any]]:
    """``contents`` with each field where Google's SDK (Pi's client) puts it: ``parts`` before ``role``,
    a part's fields in the SDK's order, a function call's ``args, id, name`` for the Gemini API and a
    function response's ``id, name, parts, response`` for Vertex AI."""
    out = []
    for content in contents:
        parts = []
        for part in content.get("parts") or []:
            part = _ordered(part, _PART_KEYS)
            if not vertex and isinstance(part.get("functionCall"), dict):
                part["functionCall"] = _ordered(part["functionCall"], _CALL_KEYS)
            if vertex and isinstance(part.get("functionResponse"), dict):
                part["functionResponse"] = _ordered(part["functionResponse"], _VERTEX_RESPONSE_KEYS)
            parts.append(part)
        out.append({"parts": parts, "role": content.get("role")})
    return out


def const_as_enum(schema: Any, name_map: bool = False) -> Any:
    """String and number ``const`` values as one-value ``enum``s (Gemini ignores ``const`` in
    ``parametersJsonSchema`` but honours ``enum``), as Pi rewrites them."""
    if isinstance(schema, list):
        return [const_as_enum(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: const_as_enum(value, key in _NAME_MAPS) if (name_map or key in _SUBSCHEMAS or key in _NAME_MAPS)
           else value for key, value in schema.items()}
    if not name_map and "const" in out and "enum" not in out and isinstance(out["const"], str | int | float) \
            and not isinstance(out["const"], bool):
        out["enum"] = [out.pop("const")]
    return out


def strict_sampling(model: Model) -> bool:
    """Gemini 3 and later enforce required parameters in validated function calling (Pi's strict mode)."""
    major = _gemini_major(model.id)
    return major is not None and major >= 3


def declarations(model: Model, tools: list[Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The tools as one ``functionDeclarations`` entry, and the function-calling mode (``VALIDATED`` when a
    tool goes strict on a model that enforces it)."""
    supports = strict_sampling(model)
    out, strict_any = [], False
    for tool in tools:
        strict = strict_choice(tool, supports)
        strict_any = strict_any or strict is True
        out.append({"name": tool.name, "description": tool.description,
                    "parametersJsonSchema": const_as_enum(tool_parameters(tool, strict))})
    return [{"functionDeclarations": out}], ("VALIDATED" if strict_any else None)


def build_body(model: Model, context: Context, options: StreamOptions, vertex: bool = False) -> dict[str, Any]:
    """The ``streamGenerateContent`` body as Pi's client sends it (keys in the SDK's order).

    Raises:
        ValueError: an unknown thinking level, or a tool that requires a strict schema it cannot have.
    """
    body: dict[str, Any] = {
        "contents": as_sent(convert_messages(prepare_messages(context.messages, model), model), vertex)}
    if context.system_prompt:
        # Google's SDK (what Pi sends through) gives the instruction the user role.
        body["systemInstruction"] = {"parts": [{"text": context.system_prompt}], "role": "user"}
    if context.tools:
        body["tools"], mode = declarations(model, list(context.tools))
        if mode is not None:
            body["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    config: dict[str, Any] = {}
    if options.temperature is not None:
        config["temperature"] = options.temperature
    config["maxOutputTokens"] = options.max_tokens or model.max_tokens
    thinking = thinking_config(model, options.reasoning)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    body["generationConfig"] = config
    return body


def build_request(
    model: Model, context: Context, options: StreamOptions, api_key: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL, headers and JSON body of one ``streamGenerateContent`` request.

    Args:
        model: Target model; ``base_url`` like ``https://generativelanguage.googleapis.com/v1beta``.
        context: System prompt, history and tools.
        options: Token limit, temperature, reasoning level and extra headers.
        api_key: The resolved credential.

    Returns:
        ``(url, headers, body)``.

    Raises:
        ValueError: an unknown thinking level.
    """
    body = build_body(model, context, options)
    headers: dict[str, str | None] = {"content-type": "application/json", "x-goog-api-key": api_key,
                                      **identity_headers(model)}
    headers.update(model.headers or {})
    headers.update(options.headers)
    base = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/models/{model.id}:streamGenerateContent?alt=sse", final_headers(headers), body


# --------------------------------------------------------------------------- response


class _StreamParser:
    """Turns response chunks into builder calls; ``finish()`` once the stream has ended."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.open: tuple[str, int] | None = None
        """The text or thinking block that further parts of the same kind extend."""
        self.finish_reason: str | None = None
        self.finish_message: str | None = None
        self.call_ids: set[str] = set()

    def handle(self, data: str) -> list[AssistantMessageEvent]:
        try:
            chunk = json.loads(data)
        except ValueError:
            raise StreamFormatError(f"Malformed JSON in the Google stream: {data[:200]!r}") from None
        if not isinstance(chunk, dict):
            raise StreamFormatError(f"Unexpected data in the Google stream: {data[:200]!r}")
        error = chunk.get("error")
        if error is not None:
            if isinstance(error, dict):
                code = error.get("status") or error.get("code") or "error"
                raise ProviderError(f"{code}: {error.get('message', '')}".rstrip(": "))
            raise ProviderError(str(error))
        msg = self.builder.message
        msg.response_id = chunk.get("responseId") or msg.response_id
        msg.response_model = chunk.get("modelVersion") or msg.response_model
        self._usage(chunk.get("usageMetadata"))
        events = self.builder.start()
        block_reason = (chunk.get("promptFeedback") or {}).get("blockReason")
        if block_reason:
            self.finish_reason = block_reason
            self.finish_message = "the prompt was blocked"
        candidates = chunk.get("candidates") or []
        if not candidates:
            return events
        candidate = candidates[0]
        for part in (candidate.get("content") or {}).get("parts") or []:
            events += self._part(part)
        if candidate.get("finishReason"):
            self.finish_reason = candidate["finishReason"]
            self.builder.set_raw_stop_reason(str(self.finish_reason))
            self.finish_message = candidate.get("finishMessage")
        return events

    def _usage(self, usage: dict[str, Any] | None) -> None:
        if not usage:
            return
        u = self.builder.message.usage
        cached = usage.get("cachedContentTokenCount") or 0
        # promptTokenCount includes the cached tokens; Pi counts them apart.
        u.input = max(0, (usage.get("promptTokenCount") or 0) - cached)
        u.cache_read = cached
        thoughts = usage.get("thoughtsTokenCount") or 0
        u.output = (usage.get("candidatesTokenCount") or 0) + thoughts
        u.reasoning = thoughts  # part of output
        u.total_tokens = usage.get("totalTokenCount") or 0
        self.builder.usage_updated()

    def _part(self, part: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        signature = part.get("thoughtSignature")
        events: list[AssistantMessageEvent]
        if "functionCall" in part:
            events = self._close_open()
            call = part["functionCall"] or {}
            name = call.get("name", "")
            call_id = call.get("id")
            if not call_id or call_id in self.call_ids:
                call_id = f"{name}_{int(time.time() * 1000)}_{next(_call_counter)}"
            self.call_ids.add(call_id)
            index, started = b.toolcall_start(call_id, name)
            events += started
            events += b.toolcall_delta(index, json.dumps(call.get("args") or {}, ensure_ascii=False))
            if signature:
                b.message.content[index].thought_signature = signature  # type: ignore[union-attr]
            return events + b.end_block(index)
        if "text" not in part:
            return []  # executable code, inline output data and the like are not kept
        text = part.get("text") or ""
        kind = "thinking" if part.get("thought") else "text"
        events = []
        if self.open is None or self.open[0] != kind:
            if not text:
                # An empty part that only carries a signature for the block before it.
                if signature and self.open is not None:
                    self._sign(self.open, signature)
                return []
            events += self._close_open()
            if kind == "thinking":
                index, started = b.thinking_start()
            else:
                index, started = b.text_start()
            events += started
            self.open = (kind, index)
        if text:
            index = self.open[1]
            events += b.thinking_delta(index, text) if kind == "thinking" else b.text_delta(index, text)
        if signature:
            self._sign(self.open, signature)
        return events

    def _sign(self, block: tuple[str, int], signature: str) -> None:
        content = self.builder.message.content[block[1]]
        if block[0] == "thinking":
            content.thinking_signature = signature  # type: ignore[union-attr]
        else:
            content.text_signature = signature  # type: ignore[union-attr]

    def _close_open(self) -> list[AssistantMessageEvent]:
        if self.open is None:
            return []
        index = self.open[1]
        self.open = None
        return self.builder.end_block(index)

    def finish(self) -> list[AssistantMessageEvent]:
        b = self.builder
        reason = self.finish_reason
        if reason is None:
            return b.fail("The stream ended without a finish reason (the response was cut short)")
        if reason in ("STOP", "FINISH_REASON_UNSPECIFIED"):
            return b.finish("stop")  # becomes toolUse when the message holds tool calls
        if reason == "MAX_TOKENS":
            return b.finish("length")
        detail = f": {self.finish_message}" if self.finish_message else ""
        return b.fail(f"Google stopped the response ({reason}){detail}")


StreamParser = _StreamParser
"""The response parser, public for the routes that speak this format elsewhere (Vertex AI)."""


async def stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from the Gemini API.

    Args:
        model: A model whose ``api`` is ``google-generative-ai``.
        context: System prompt, history and tools.
        options: Credentials, limits, reasoning level, abort signal, HTTP client.

    Returns:
        An async iterator of events ending with exactly one ``done`` or ``error``.
    """
    builder = MessageBuilder(model)
    prepared, problem = keyed_request(model, context, options, build_request)
    if prepared is None:
        for event in builder.fail(problem or "The request could not be built"):
            yield event
        return
    options, (url, headers, body) = prepared
    parser = _StreamParser(builder)
    try:
        async with aclosing(post_sse(url, headers, body, options, error_text=google_words)) as sse:
            async for _, data in sse:
                for event in parser.handle(data):
                    yield event
        tail = parser.finish()
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event
