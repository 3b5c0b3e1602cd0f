"""Responses input items and tools as Pi 1.6 builds them for ``azure-openai-responses`` and
``openai-codex-responses`` (the stream side is ``_responses_stream``).

They follow Pi's shared Responses code, so a history replays with the same items and ids
whichever of Pi or pi wrote it:

- a text block's signature is ``{"v":1,"id":"msg_..."}`` (with the item's ``phase``), and every
  replayed message item carries an id (``msg_pi_<n>`` when it had none);
- a tool call's id is ``"<call_id>|<item_id>"``; from another model its item id is dropped, from
  another provider both parts are cleaned (and, for OpenAI-family targets, the item id hashed);
- a thinking block's signature is the whole reasoning item as JSON, replayed as it was;
- a tool with ``constrainedSampling`` goes strict when its schema allows it (``strict_schema``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

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
                item = json_object(block.thinking_signature) if same_model else None
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


def json_object(text: str | None) -> dict[str, Any] | None:
    """``text`` parsed when it is a JSON object (a stored signature), else None."""
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
