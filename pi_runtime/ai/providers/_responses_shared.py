"""The Responses dialect Pi 1.6 shares between ``azure-openai-responses`` and ``openai-codex-responses``.

Input items, tools and the stream's handling follow Pi's shared Responses code, so a history
replays with the same items and ids whichever of Pi or pi wrote it:

- a text block's signature is ``{"v":1,"id":"msg_..."}`` (with the item's ``phase``), and every
  replayed message item carries an id (``msg_pi_<n>`` when it had none);
- a tool call's id is ``"<call_id>|<item_id>"``; from another model its item id is dropped, from
  another provider both parts are cleaned (and, for OpenAI-family targets, the item id hashed);
- a thinking block's signature is the whole reasoning item as JSON, replayed as it was;
- a tool with ``constrainedSampling`` goes strict when its schema allows it (``strict_schema``).

The stream side (``ResponsesReader``) keeps one block per output slot and ends with Pi's stop
reasons and wordings (``Response incomplete: content_filter``, ``Error Code x: y``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ..strict_schema import strict_choice, tool_parameters
from ..transform import prepare_messages
from ..types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ._ids import short_hash
from ._openai_common import usage_int

_NO_IMAGES = "(image omitted: model does not support images)"
_NO_TOOL_IMAGES = "(tool image omitted: model does not support images)"
_UNSAFE_ID = re.compile(r"[^a-zA-Z0-9_-]")


def compact(value: Any) -> str:
    """``JSON.stringify``: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------- input items


def _clean_id(part: str) -> str:
    return _UNSAFE_ID.sub("_", part)[:64].rstrip("_")


def _foreign_call_id(call_id: str, model: Model, source: AssistantMessage, family: frozenset[str]) -> str:
    """Pi's id for a tool call made by another model (its item id cannot be replayed as it is)."""
    if model.provider not in family or "|" not in call_id:
        return _clean_id(call_id)
    call, item = call_id.split("|")[:2]
    foreign = (source.provider, source.api) != (model.provider, model.api)
    item = f"fc_{short_hash(item)}"[:64] if foreign else _clean_id(item)
    if not item.startswith("fc_"):
        item = _clean_id(f"fc_{item}")
    return f"{_clean_id(call)}|{item}"


def _text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """``(id, phase)`` from a text signature: Pi's v1 JSON, or a bare id (older sessions)."""
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _placeholders(content: list[Any], images_ok: bool, placeholder: str) -> list[Any]:
    if images_ok:
        return list(content)
    out: list[Any] = []
    after = False
    for block in content:
        if isinstance(block, ImageContent):
            if not after:
                out.append(TextContent(text=placeholder))
            after = True
            continue
        out.append(block)
        after = isinstance(block, TextContent) and block.text == placeholder
    return out


def _image(block: ImageContent) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": f"data:{block.mime_type};base64,{block.data}"}


def _user_item(message: UserMessage, images_ok: bool) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": [{"type": "input_text", "text": message.content}]}
    content = [{"type": "input_text", "text": b.text} if isinstance(b, TextContent) else _image(b)
               for b in _placeholders(message.content, images_ok, _NO_IMAGES)]
    return {"role": "user", "content": content} if content else None


def _tool_output(message: ToolResultMessage, images_ok: bool) -> str | list[dict[str, Any]]:
    content = _placeholders(message.content, images_ok, _NO_TOOL_IMAGES)
    text = "\n".join(b.text for b in content if isinstance(b, TextContent))
    images = [b for b in content if isinstance(b, ImageContent)]
    if not images or not images_ok:
        return text if text.strip() else "(see attached image)" if images else "(no tool output)"
    output: list[dict[str, Any]] = [{"type": "input_text", "text": text}] if text.strip() else []
    return output + [_image(i) for i in images]


class _AssistantItems:
    """One assistant message as input items (Pi's ``convertResponsesMessages``)."""

    def __init__(self, model: Model, family: frozenset[str]) -> None:
        self.model = model
        self.family = family
        self.renamed: dict[str, str] = {}
        """Foreign tool-call id -> the id sent, for the results that answer it."""

    def items(self, message: AssistantMessage, index: int) -> list[dict[str, Any]]:
        model = self.model
        same_api = (message.provider, message.api) == (model.provider, model.api)
        same_model = same_api and message.model == model.id
        out: list[dict[str, Any]] = []
        text_blocks = 0
        for block in message.content:
            if isinstance(block, ThinkingContent):
                item = _json_object(block.thinking_signature) if same_model else None
                if item is not None:
                    out.append(item)
            elif isinstance(block, TextContent):
                item_id, phase = _text_signature(block.text_signature if same_model else None)
                fallback = f"msg_pi_{index}" if text_blocks == 0 else f"msg_pi_{index}_{text_blocks}"
                text_blocks += 1
                if not item_id:
                    item_id = fallback
                elif len(item_id) > 64:
                    item_id = f"msg_{short_hash(item_id)}"
                entry: dict[str, Any] = {"type": "message", "role": "assistant",
                                         "content": [{"type": "output_text", "text": block.text, "annotations": []}],
                                         "status": "completed", "id": item_id}
                if phase:
                    entry["phase"] = phase
                out.append(entry)
            elif isinstance(block, ToolCall):
                out.append(self._call(block, message, same_model, same_api))
        return out

    def _call(self, block: ToolCall, message: AssistantMessage, same_model: bool, same_api: bool) -> dict[str, Any]:
        call_id = block.id
        if not same_model:
            call_id = self.renamed[block.id] = _foreign_call_id(block.id, self.model, message, self.family)
        call, _, item_id = call_id.partition("|")
        entry: dict[str, Any] = {"type": "function_call"}
        if item_id.startswith("fc_") and not (same_api and not same_model):
            entry["id"] = item_id
        entry.update(call_id=call, name=block.name, arguments=compact(block.arguments))
        if same_model and block.namespace is not None:
            entry["namespace"] = block.namespace
        return entry


def _json_object(text: str | None) -> dict[str, Any] | None:
    if not text or not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def instruction_role(model: Model) -> str:
    """``developer`` for reasoning models (unless compat says otherwise), else ``system``."""
    supports = (model.compat or {}).get("supportsDeveloperRole")
    return "developer" if model.reasoning and supports is not False else "system"


def convert_input(model: Model, context: Context, family: frozenset[str]) -> list[dict[str, Any]]:
    """History as Responses input items, as Pi 1.6 builds them.

    Args:
        model: The target model.
        context: System prompt and messages.
        family: Providers whose tool-call item ids can be carried over from another model.
    """
    items: list[dict[str, Any]] = []
    if context.system_prompt:
        items.append({"role": instruction_role(model), "content": context.system_prompt})
    images_ok = "image" in model.input
    assistant = _AssistantItems(model, family)
    for index, message in enumerate(prepare_messages(context.messages, model)):
        if isinstance(message, UserMessage):
            item = _user_item(message, images_ok)
            if item is not None:
                items.append(item)
        elif isinstance(message, AssistantMessage):
            items.extend(assistant.items(message, index))
        elif isinstance(message, ToolResultMessage):
            call_id = assistant.renamed.get(message.tool_call_id, message.tool_call_id)
            items.append({"type": "function_call_output", "call_id": call_id.split("|")[0],
                          "output": _tool_output(message, images_ok)})
    return items


def convert_tools(tools: Iterable[Tool], *, default_strict: Any, supports_strict: bool) -> list[dict[str, Any]]:
    """Function tools; ``default_strict`` is sent for a tool whose declaration does not decide.

    Raises:
        ValueError: a tool requires a strict schema it cannot have.
    """
    out = []
    for tool in tools:
        chosen = strict_choice(tool, supports_strict)
        strict = default_strict if chosen is None else chosen
        entry: dict[str, Any] = {"type": "function", "name": tool.name, "description": tool.description,
                                 "parameters": tool_parameters(tool, strict is True)}
        if supports_strict:
            entry["strict"] = strict
        out.append(entry)
    return out


# --------------------------------------------------------------------------- stream


class ResponsesError(Exception):
    """The stream reported a failure (an ``error`` event or a failed response)."""


class ResponsesReader:
    """Responses stream events -> builder calls, keyed by ``output_index`` as Pi does.

    ``handle`` returns the events to yield; ``finished`` is set once a terminal response event
    arrived, after which ``result()`` gives the closing events (done, or error with Pi's words).
    """

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.slots: dict[Any, tuple[str, int]] = {}
        self.open_calls: set[int] = set()
        self.args: dict[int, str] = {}
        self.reasoning_by_id: dict[str, int] = {}
        self.finished = False
        self.stop: str | None = None
        self.error: str | None = None
        self.service_tier: str | None = None

    def handle(self, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        kind = data.get("type")
        b = self.builder
        index = data.get("output_index")
        if kind == "response.created":
            b.message.response_id = (data.get("response") or {}).get("id") or b.message.response_id
        elif kind == "response.output_item.added":
            return self._open(index, data.get("item") or {})
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._delta(index, "thinking", str(data.get("delta") or ""))
        elif kind == "response.reasoning_summary_part.done":
            return self._delta(index, "thinking", "\n\n")
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            return self._delta(index, "text", str(data.get("delta") or ""))
        elif kind == "response.function_call_arguments.delta":
            return self._arguments(index, str(data.get("delta") or ""), replace=False)
        elif kind == "response.function_call_arguments.done":
            return self._arguments(index, data.get("arguments"), replace=True)
        elif kind == "response.output_item.done":
            return self._close(index, data.get("item") or {})
        elif kind in ("response.completed", "response.incomplete"):
            self._finalize(data.get("response") or {})
        elif kind == "error":
            raise ResponsesError(f"Error Code {data.get('code')}: {data.get('message')}")
        elif kind == "response.failed":
            self.finished = True
            response = data.get("response") or {}
            b.set_raw_stop_reason(response.get("status"))
            error, details = response.get("error"), response.get("incomplete_details") or {}
            if error:
                raise ResponsesError(f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}")
            if details.get("reason"):
                raise ResponsesError(f"incomplete: {details['reason']}")
            raise ResponsesError("Unknown error (no error details in response)")
        return []

    def _slot(self, index: Any, kind: str) -> int | None:
        slot = self.slots.get(index)
        return slot[1] if slot is not None and slot[0] == kind else None

    def _open(self, index: Any, item: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        kind = item.get("type")
        if kind == "reasoning":
            position, events = b.thinking_start()
            self.slots[index] = ("thinking", position)
        elif kind == "message":
            if item.get("phase") == "final_answer":
                self.stop = "stop"
            position, events = b.text_start()
            self.slots[index] = ("text", position)
        elif kind == "function_call":
            position, events = b.toolcall_start(f"{item.get('call_id')}|{item.get('id')}", str(item.get("name") or ""))
            if item.get("namespace") is not None:
                b.message.content[position].namespace = item["namespace"]  # type: ignore[union-attr]
            self.slots[index] = ("toolCall", position)
            self.open_calls.add(position)
            self.args[position] = ""
            if item.get("arguments"):
                events += self._arguments(index, item["arguments"], replace=False)
        else:
            return []
        return events

    def _delta(self, index: Any, kind: str, delta: str) -> list[AssistantMessageEvent]:
        position = self._slot(index, kind)
        if position is None:
            return []
        add = self.builder.text_delta if kind == "text" else self.builder.thinking_delta
        return add(position, delta)

    def _arguments(self, index: Any, text: Any, *, replace: bool) -> list[AssistantMessageEvent]:
        position = self._slot(index, "toolCall")
        if position is None or not isinstance(text, str):
            return []
        sent = self.args[position]
        if replace:
            if text == sent:
                return []
            if not text.startswith(sent):
                self.builder.replace_tool_arguments(position, text)
                self.args[position] = text
                return []
            text = text[len(sent):]
        self.args[position] = sent + text
        return self.builder.toolcall_delta(position, text) if text else []

    def _close(self, index: Any, item: dict[str, Any]) -> list[AssistantMessageEvent]:
        b = self.builder
        kind = item.get("type")
        if kind == "message" and item.get("phase") == "final_answer":
            self.stop = "stop"
        events: list[AssistantMessageEvent] = []
        if index not in self.slots:
            events = self._open(index, item)
        slot = self.slots.pop(index, None)
        if slot is None:
            return events
        position = slot[1]
        block = b.message.content[position]
        if kind == "reasoning" and slot[0] == "thinking":
            summary = "\n\n".join(str(s.get("text") or "") for s in item.get("summary") or [])
            content = "\n\n".join(str(c.get("text") or "") for c in item.get("content") or [])
            block.thinking = summary or content or block.thinking  # type: ignore[union-attr]
            block.thinking_signature = compact(item)  # type: ignore[union-attr]
            if item.get("id"):
                self.reasoning_by_id[str(item["id"])] = position
        elif kind == "message" and slot[0] == "text":
            block.text = "".join(str(c.get("text") if c.get("type") == "output_text" else c.get("refusal") or "")  # type: ignore[union-attr]
                                 for c in item.get("content") or [])
            signature: dict[str, Any] = {"v": 1, "id": item.get("id")}
            if item.get("phase"):
                signature["phase"] = item["phase"]
            block.text_signature = compact(signature)  # type: ignore[union-attr]
        elif kind == "function_call" and slot[0] == "toolCall":
            if item.get("arguments"):
                self.slots[index] = slot
                events += self._arguments(index, item["arguments"], replace=True)
                del self.slots[index]
            if item.get("namespace") is not None:
                block.namespace = item["namespace"]  # type: ignore[union-attr]
            self.open_calls.discard(position)
        else:
            self.slots[index] = slot
            return events
        return events + b.end_block(position)

    def _finalize(self, response: dict[str, Any]) -> None:
        b = self.builder
        self.finished = True
        for item in response.get("output") or []:
            # Azure may send the encrypted reasoning only here: the stored item gets it.
            if isinstance(item, dict) and item.get("type") == "reasoning" and item.get("encrypted_content"):
                position = self.reasoning_by_id.get(str(item.get("id")))
                stored = _json_object(b.message.content[position].thinking_signature) if position is not None else None  # type: ignore[union-attr]
                if stored is not None and not stored.get("encrypted_content"):
                    stored["encrypted_content"] = item["encrypted_content"]
                    b.message.content[position].thinking_signature = compact(stored)  # type: ignore[union-attr,index]
        if response.get("id"):
            b.message.response_id = response["id"]
        usage = response.get("usage")
        u = b.message.usage
        if isinstance(usage, dict):
            details = usage.get("input_tokens_details")
            cached, written = usage_int(details, "cached_tokens"), usage_int(details, "cache_write_tokens")
            u.input = max(0, usage_int(usage, "input_tokens") - cached - written)
            u.output = usage_int(usage, "output_tokens")
            u.cache_read, u.cache_write = cached, written
            u.reasoning = usage_int(usage.get("output_tokens_details"), "reasoning_tokens")
            u.total_tokens = usage_int(usage, "total_tokens")
        b.usage_updated()
        self.service_tier = response.get("service_tier")
        status = response.get("status")
        reason = (response.get("incomplete_details") or {}).get("reason")
        reason = reason if isinstance(reason, str) else None
        b.set_raw_stop_reason(f"{status}.{reason}" if reason else status)
        self.error = None
        if status == "incomplete":
            if reason == "max_output_tokens":
                self.stop = "length"
            else:
                self.stop = "error"
                self.error = (f"Response incomplete: {reason}" if reason
                              else "Response incomplete without a provider reason")
        elif status in ("failed", "cancelled"):
            self.stop = "error"
        else:
            self.stop = "stop"  # completed, and the in_progress / queued some servers end with

    def result(self, name: str) -> list[AssistantMessageEvent]:
        """The closing events; ``name`` words a stream that ended without a terminal event."""
        b = self.builder
        if not self.finished:
            return b.fail("OpenAI Responses stream ended before a terminal response event")
        stop = self.stop or "stop"
        if stop == "error":
            return b.fail(self.error or "An unknown error occurred")
        if b.message.tool_calls() and stop == "stop":
            stop = "toolUse"
        if stop == "toolUse" and self.open_calls:
            call = b.message.content[min(self.open_calls)]
            return b.fail(f"OpenAI Responses stream completed with an unfinished tool call: "
                          f"{call.name} ({call.id})")  # type: ignore[union-attr]
        return b.finish(stop)


def parse_event(data: str) -> dict[str, Any] | None:
    """One stream event's JSON object; None for ``[DONE]`` and blank data.

    Raises:
        ResponsesError: the data is not a JSON object.
    """
    data = data.strip()
    if not data or data == "[DONE]":
        return None
    try:
        parsed = json.loads(data)
    except ValueError:
        raise ResponsesError(f"Malformed data line in the provider's stream: {data[:200]!r}") from None
    if not isinstance(parsed, dict):
        raise ResponsesError(f"Malformed data line in the provider's stream: {data[:200]!r}")
    return parsed

