"""Prepare stored history for a request to a particular model.

History may have been produced by other providers or models, or been cut short. Before a
request, every provider passes the messages through ``prepare_messages``:

- errored or aborted assistant messages are dropped (they would confuse the model, and a
  provider may reject their half-finished tool calls), together with their tool results;
- thinking from another provider/model becomes plain text (its signature is useless there);
  redacted thinking from another model is dropped;
- a tool call with no result (a crash, an abort) gets a synthetic error result, so the
  provider sees every call answered;
- only user, assistant and toolResult messages remain (others are converted earlier by the
  agent's ``convert_to_llm`` hook).

A message may also be its wire dict (a stored message not yet validated, which the providers
that set ``ACCEPTS_WIRE_MESSAGES`` receive): it gets the same treatment and stays a dict, copied
where something changes, never modified.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .types import (
    AssistantMessage,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def _same_model(message: AssistantMessage, model: Model) -> bool:
    return message.provider == model.provider and message.model == model.id and message.api == model.api


def prepare_messages(messages: list, model: Model) -> list:
    """``messages`` prepared for a request to ``model`` (see the module docstring)."""
    prepared = HistoryPreparer(model)
    out, pending, add = prepared.out, prepared.pending, prepared.add
    for message in messages:
        if type(message) is dict and not pending:
            role = message.get("role")
            if role == "user":  # half of any history: inlined
                out.append(message)
                continue
            # The other half: an answer that stays as it is whichever model wrote it.
            if role == "assistant" and plain_answer(message) is not None:
                out.append(message)
                continue
        add(message)
    return prepared.finish()


def plain_answer(message: dict[str, Any]) -> str | None:
    """The text of a stored answer of one text block without a signature that did not fail (most
    of a long history): what preparing keeps as it is, whichever model wrote it; None for any other."""
    blocks = message.get("content")
    if type(blocks) is list and len(blocks) == 1:
        block = blocks[0]
        if (type(block) is dict and block.get("type") == "text" and not block.get("textSignature")
                and message.get("stopReason") not in ("error", "aborted")):
            return block.get("text") or ""
    return None


class HistoryPreparer:
    """``prepare_messages`` one message at a time, for a caller that converts as it goes: ``add``
    each message, then ``finish``; the prepared messages collect in ``out`` (the caller may take
    them out as they come). While ``pending`` (tool calls awaiting their results) is empty, a stored
    user message or ``plain_answer`` is prepared as itself, which a caller may use without ``add``."""

    __slots__ = ("_dropped", "_model", "_same_as_model", "out", "pending")

    def __init__(self, model: Model) -> None:
        self.out: list = []
        self.pending: dict[str, ToolCall | _WireCall] = {}
        """Call id -> ToolCall (or _WireCall): calls not yet answered."""
        self._dropped: set[str] = set()
        self._model = model
        self._same_as_model = (model.provider, model.id, model.api)

    def answer_pending(self) -> None:
        """A synthetic error result for each call still unanswered."""
        for call in self.pending.values():
            self.out.append(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[TextContent(text="No result provided (the tool call was interrupted).")],
                    is_error=True,
                )
            )
        self.pending.clear()

    def finish(self) -> list:
        """Answer the calls left unanswered; returns ``out``."""
        self.answer_pending()
        return self.out

    def add(self, message: Any) -> None:
        """Prepare one message (none, one or more land in ``out``)."""
        out, pending = self.out, self.pending
        if type(message) is dict:
            _prepare_wire(message, self._same_as_model, out, pending, self._dropped, self.answer_pending)
            return
        role = getattr(message, "role", None)
        if role == "assistant":
            self.answer_pending()
            if message.stop_reason in ("error", "aborted"):
                self._dropped.update(c.id for c in message.tool_calls())
                return
            same = _same_model(message, self._model)
            content: list[TextContent | ThinkingContent | ToolCall] = []
            changed = False
            for block in message.content:
                if isinstance(block, ThinkingContent):
                    if same:
                        content.append(block)
                        continue
                    changed = True
                    if block.thinking.strip() and not block.redacted:
                        content.append(TextContent(text=block.thinking))
                elif isinstance(block, ToolCall):
                    pending[block.id] = block
                    if not same and block.thought_signature:
                        block = block.model_copy(update={"thought_signature": None})
                        changed = True
                    content.append(block)
                elif isinstance(block, TextContent) and not same and block.text_signature:
                    content.append(block.model_copy(update={"text_signature": None}))
                    changed = True
                else:
                    content.append(block)
            if not content:
                return
            # Comparing pydantic blocks field by field is slow on long histories: track changes.
            out.append(message.model_copy(update={"content": content}) if changed else message)
        elif role == "toolResult":
            if message.tool_call_id in self._dropped:
                return
            if message.tool_call_id in pending:
                pending.pop(message.tool_call_id)
                out.append(message)
            # A result whose call is not in the history is dropped: providers reject it.
        elif role == "user":
            self.answer_pending()
            out.append(message)


def _prepare_wire(
    message: dict[str, Any], same_as_model: tuple[str, str, str], out: list[Any], pending: dict[str, Any],
    dropped_calls: set[str], answer_pending: Callable[[], None],
) -> None:
    """``prepare_messages`` for one wire dict; the pending calls are kept as their dicts' ids.
    ``same_as_model``: the target model's (provider, id, api)."""
    role = message.get("role")
    if role == "assistant":
        if pending:
            answer_pending()
        blocks = message.get("content") or []
        if message.get("stopReason") in ("error", "aborted"):
            dropped_calls.update(b.get("id") for b in blocks if b.get("type") == "toolCall")
            return
        if (message.get("provider"), message.get("model"), message.get("api")) == same_as_model:
            # The usual case: every block stays as it is; only the tool calls are noted.
            for block in blocks:
                if block.get("type") == "toolCall":
                    pending[block.get("id")] = _WireCall(block.get("id") or "", block.get("name") or "")
            if blocks:
                out.append(message)
            return
        # From another model: its thinking becomes text, its signatures go.
        content: list[dict[str, Any]] = []
        changed = False
        for block in blocks:
            kind = block.get("type")
            if kind == "thinking":
                changed = True
                if (block.get("thinking") or "").strip() and not block.get("redacted"):
                    content.append({"type": "text", "text": block["thinking"]})
            elif kind == "toolCall":
                pending[block.get("id")] = _WireCall(block.get("id") or "", block.get("name") or "")
                if block.get("thoughtSignature"):
                    block = {k: v for k, v in block.items() if k != "thoughtSignature"}
                    changed = True
                content.append(block)
            elif kind == "text" and block.get("textSignature"):
                content.append({k: v for k, v in block.items() if k != "textSignature"})
                changed = True
            else:
                content.append(block)
        if content:
            out.append({**message, "content": content} if changed else message)
    elif role == "toolResult":
        call_id = message.get("toolCallId")
        if call_id in dropped_calls:
            return
        if call_id in pending:
            pending.pop(call_id)
            out.append(message)
    elif role == "user":
        if pending:
            answer_pending()
        out.append(message)


class _WireCall:
    """What an unanswered tool call from a wire dict needs for its synthetic result."""

    __slots__ = ("id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name


def user_text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(c.text for c in message.content if isinstance(c, TextContent))
