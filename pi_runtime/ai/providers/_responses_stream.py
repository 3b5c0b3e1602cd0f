"""The Responses stream as Pi 1.6 reads it for ``azure-openai-responses`` and ``openai-codex-responses``.

``ResponsesReader`` keeps one block per output slot (``output_index``), fills the signatures Pi
stores (a text block's ``{"v":1,"id":...}``, a reasoning item as JSON, ``call_id|item_id``) and
ends with Pi's stop reasons and wordings (``Response incomplete: content_filter``,
``Error Code x: y``, ``OpenAI Responses stream ended before a terminal response event``).
"""

from __future__ import annotations

import json
from typing import Any

from ..builder import MessageBuilder
from ..events import AssistantMessageEvent
from ._openai_common import usage_int
from ._responses_input import compact, json_object


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
                stored = json_object(b.message.content[position].thinking_signature) if position is not None else None  # type: ignore[union-attr]
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

