"""The OpenAI Responses wire protocol (``api: openai-responses``).

History becomes a list of input items: role messages, ``function_call`` /
``function_call_output`` pairs, and ``reasoning`` items replayed verbatim (with their
encrypted content) when they come from the same model. The stream is a sequence of typed
events keyed by output item; each item becomes one content block.

Ids: a tool call's id is ``"<call_id>|<item_id>"`` so the item id can be replayed with its
reasoning item; a text block's signature is its message item id; a thinking block's
signature is the whole reasoning item as JSON.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ... import deep_json
from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..options import StreamOptions
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
from ._http import OPENED, failure_events, post_sse
from ._openai_common import (
    MissingApiKey,
    endpoint,
    image_data_url,
    provider_effort,
    request_headers,
    resolve_api_key,
    sampling_params,
    supports_images,
    thinking_level,
    tool_result_images,
    tool_result_text,
    usage_int,
)

# --------------------------------------------------------------------------- request


def _same_model(message: AssistantMessage, model: Model) -> bool:
    return (message.api, message.provider, message.model) == (model.api, model.provider, model.id)


def _user_item(message: UserMessage, images_ok: bool) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": [{"type": "input_text", "text": message.content}]}
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageContent) and images_ok:
            parts.append({"type": "input_image", "detail": "auto", "image_url": image_data_url(block)})
    return {"role": "user", "content": parts} if parts else None


def _assistant_items(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    same = _same_model(message, model)
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            # Only a reasoning item from this very model can be replayed; readable thinking
            # from elsewhere was already turned into text by prepare_messages.
            item = _json_object(block.thinking_signature)
            if same and item and item.get("type") == "reasoning":
                items.append(item)
        elif isinstance(block, TextContent):
            if not block.text:
                continue
            entry: dict[str, Any] = {
                "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": block.text, "annotations": []}],
            }
            if same and block.text_signature and block.text_signature.startswith("msg"):
                entry["id"] = block.text_signature
            items.append(entry)
        elif isinstance(block, ToolCall):
            call_id, _, item_id = block.id.partition("|")
            entry = {"type": "function_call", "call_id": call_id, "name": block.name,
                     "arguments": deep_json.dumps(block.arguments, ensure_ascii=False)}
            # A function_call item id is only valid next to its own reasoning item.
            if same and item_id:
                entry["id"] = item_id
            items.append(entry)
    return items


def _tool_output(message: ToolResultMessage, images_ok: bool) -> dict[str, Any]:
    text = tool_result_text(message)
    images = tool_result_images(message) if images_ok else []
    output: Any = text
    if images:
        output = [{"type": "input_text", "text": text}] + [
            {"type": "input_image", "detail": "auto", "image_url": image_data_url(i)} for i in images
        ]
    return {"type": "function_call_output", "call_id": message.tool_call_id.partition("|")[0], "output": output}


def convert_input(model: Model, context: Context, compat: dict[str, Any]) -> list[dict[str, Any]]:
    """History as Responses ``input`` items (system prompt first)."""
    items: list[dict[str, Any]] = []
    if context.system_prompt:
        role = "developer" if model.reasoning and compat.get("supportsDeveloperRole", True) else "system"
        items.append({"role": role, "content": context.system_prompt})
    images_ok = supports_images(model)
    for message in prepare_messages(context.messages, model):
        if message.role == "user":
            item = _user_item(message, images_ok)
            if item is not None:
                items.append(item)
        elif message.role == "assistant":
            items.extend(_assistant_items(message, model))
        elif message.role == "toolResult":
            items.append(_tool_output(message, images_ok))
    return items


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON body for ``/responses`` and the model's compat switches.

    Args:
        model: The target model.
        context: System prompt, history and tools.
        options: Per-request options (max tokens, temperature, thinking level, session).

    Returns:
        ``(body, compat)``.
    """
    compat = dict(model.compat or {})
    level = thinking_level(model, options)
    body: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(model, context, compat),
        "stream": True,
        "store": False,
    }
    max_tokens = options.max_tokens or model.max_tokens
    if max_tokens and compat.get("supportsMaxOutputTokens", True):
        body["max_output_tokens"] = max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            {"type": "function", "name": t.name, "description": t.description,
             "parameters": t.parameters, "strict": False}
            for t in context.tools
        ]
    if model.reasoning:
        effort = provider_effort(model, level)
        if effort:
            body["reasoning"] = {"effort": effort, "summary": "auto"}
        # Without stored responses, reasoning can only be replayed from its encrypted form.
        body["include"] = ["reasoning.encrypted_content"]
    if options.session_id and compat.get("promptCacheKeyMode") != "disabled":
        body["prompt_cache_key"] = options.session_id
    body.update(sampling_params(model, options, level))
    return body, compat


def _session_headers(model: Model, compat: dict[str, Any], options: StreamOptions) -> dict[str, str]:
    sid = options.session_id
    fmt = compat.get("sessionAffinityFormat") or ("openrouter" if "openrouter.ai" in model.base_url else None)
    if not sid or not fmt:
        return {}
    if fmt == "openrouter":
        return {"x-session-id": sid}
    if fmt == "openai":
        return {"session_id": sid, "x-client-request-id": sid}
    return {"x-client-request-id": sid}


# --------------------------------------------------------------------------- response


def _json_object(text: str | None) -> dict[str, Any] | None:
    if not text or not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def apply_usage(builder: MessageBuilder, usage: dict[str, Any]) -> None:
    """Responses usage onto ours: cached and cache-write input tokens leave ``input`` (as Pi)."""
    details = usage.get("input_tokens_details")
    cached = usage_int(details, "cached_tokens")
    written = usage_int(details, "cache_write_tokens")
    target = builder.message.usage
    target.input = max(0, usage_int(usage, "input_tokens") - cached - written)
    target.cache_read = cached
    target.cache_write = written
    target.output = usage_int(usage, "output_tokens")
    target.reasoning = usage_int(usage.get("output_tokens_details"), "reasoning_tokens")  # part of output
    target.total_tokens = usage_int(usage, "total_tokens")  # the server's count, as Pi keeps it
    builder.usage_updated()


class _Translator:
    """Turns Responses stream events into builder calls; one block per output item."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.blocks: dict[str, int] = {}  # item key -> content index
        self.args_seen: set[int] = set()  # tool blocks that received argument deltas
        self.done: list[AssistantMessageEvent] | None = None  # set by the terminal event

    @staticmethod
    def key(data: dict[str, Any]) -> str:
        item_id = data.get("item_id") or (data.get("item") or {}).get("id")
        return item_id or f"#{data.get('output_index', 0)}"

    def open(self, key: str, kind: str, item: dict[str, Any] | None = None) -> tuple[int, list[AssistantMessageEvent]]:
        index = self.blocks.get(key)
        if index is not None:
            return index, []
        item = item or {}
        b = self.builder
        if kind == "reasoning":
            index, events = b.thinking_start()
        elif kind == "function_call":
            call_id = item.get("call_id") or key
            item_id = item.get("id")
            index, events = b.toolcall_start(f"{call_id}|{item_id}" if item_id else call_id, item.get("name") or "")
        else:
            index, events = b.text_start(signature=item.get("id") or (None if key.startswith("#") else key))
        self.blocks[key] = index
        return index, events

    def handle(self, kind: str, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            index, events = self.open(self.key(data), "message")
            return events + b.text_delta(index, data.get("delta") or "")
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            index, events = self.open(self.key(data), "reasoning")
            return events + b.thinking_delta(index, data.get("delta") or "")
        if kind == "response.reasoning_summary_part.added":
            index, events = self.open(self.key(data), "reasoning")
            if data.get("summary_index", 0) > 0 and b.message.content[index].thinking:  # type: ignore[union-attr]
                events += b.thinking_delta(index, "\n\n")
            return events
        if kind == "response.function_call_arguments.delta":
            index, events = self.open(self.key(data), "function_call")
            self.args_seen.add(index)
            return events + b.toolcall_delta(index, data.get("delta") or "")
        if kind == "response.function_call_arguments.done":
            index, events = self.open(self.key(data), "function_call")
            if index not in self.args_seen and data.get("arguments"):
                self.args_seen.add(index)
                events += b.toolcall_delta(index, data["arguments"])
            return events
        if kind == "response.output_item.added":
            item = data.get("item") or {}
            if item.get("type") in ("message", "reasoning", "function_call"):
                return self.open(self.key(data), item["type"], item)[1]
            return []
        if kind == "response.output_item.done":
            return self.item_done(data)
        if kind == "response.created":
            response = data.get("response") or {}
            b.message.response_id = response.get("id") or b.message.response_id
            return []
        if kind in ("response.completed", "response.incomplete", "response.failed", "response.cancelled"):
            return self.finish(data.get("response") or {})
        if kind == "error" or kind == "response.error":
            nested = data.get("error")
            error: dict[str, Any] = nested if isinstance(nested, dict) else data
            code = error.get("code")
            text = error.get("message") or "unknown error"
            self.done = b.fail(f"Provider error{f' ({code})' if code else ''}: {text}")
            return self.done
        return []

    def item_done(self, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        item = data.get("item") or {}
        kind = item.get("type")
        if kind not in ("message", "reasoning", "function_call"):
            return []
        index, events = self.open(self.key(data), kind, item)
        block = b.message.content[index]
        if kind == "reasoning":
            if not block.thinking:  # type: ignore[union-attr]
                summary = "\n\n".join(p.get("text", "") for p in item.get("summary") or [])
                if summary:
                    events += b.thinking_delta(index, summary)
            block.thinking_signature = json.dumps(item, separators=(",", ":"))  # type: ignore[union-attr]
        elif kind == "message":
            if not block.text:  # type: ignore[union-attr]
                text = "".join(p.get("text") or p.get("refusal") or "" for p in item.get("content") or [])
                if text:
                    events += b.text_delta(index, text)
        elif index not in self.args_seen and item.get("arguments"):
            self.args_seen.add(index)
            events += b.toolcall_delta(index, item["arguments"])
        return events + b.end_block(index)

    def finish(self, response: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        if response.get("id"):
            b.message.response_id = response["id"]
        if response.get("usage"):
            apply_usage(b, response["usage"])
        status = response.get("status") or "completed"
        reason = (response.get("incomplete_details") or {}).get("reason")
        raw = response.get("status")
        # Pi: "incomplete.max_output_tokens" and the like; a failed response gives its status alone.
        combine = raw and raw != "failed" and isinstance(reason, str)
        b.set_raw_stop_reason(f"{raw}.{reason}" if combine else raw)
        if status == "incomplete":
            if reason == "content_filter":
                self.done = b.fail("The provider's content filter stopped the response (incomplete: content_filter)")
            else:
                self.done = b.finish("length")
        elif status in ("failed", "cancelled"):
            error = response.get("error") or {}
            detail = error.get("message") or f"response {status}"
            code = error.get("code")
            self.done = b.fail(f"Provider error{f' ({code})' if code else ''}: {detail}")
        else:
            self.done = b.finish("stop")
        return self.done


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from a Responses server. Never raises."""
    builder = MessageBuilder(model)
    try:
        api_key = resolve_api_key(model, options)
        body, compat = build_request(model, context, options)
    except MissingApiKey as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    headers = request_headers(model, options, api_key, _session_headers(model, compat, options))
    translator = _Translator(builder)
    try:
        async for item in post_sse(endpoint(model, "responses"), headers, body, options, announce_open=True):
            if item is OPENED:  # the server accepted the request: Pi's ``start``
                for event in builder.start():
                    yield event
                continue
            name, data = item
            if data == "[DONE]":
                break
            try:
                payload = json.loads(data)
                if not isinstance(payload, dict):
                    raise ValueError("not a JSON object")
            except ValueError:
                for event in builder.fail(f"Malformed data line in the provider's stream: {data[:200]!r}"):
                    yield event
                return
            for event in translator.handle(payload.get("type") or name or "", payload):
                yield event
            if translator.done is not None:
                return
    except Exception as exc:  # noqa: BLE001 - ProviderError, Aborted, anything unexpected
        for event in failure_events(builder, exc, options):
            yield event
        return
    for event in builder.fail("The stream ended before the response completed"):
        yield event
