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
from ..transcript import (
    ToolSupport,
    collapse,
    hold_system_messages,
    request_tools,
    role,
    system_text,
    transcript,
    update_text,
)
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
from ._image_placeholders import images_as_placeholders

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


def _image(block: ImageContent) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": f"data:{block.mime_type};base64,{block.data}"}


def _user_item(message: UserMessage, images_ok: bool) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": [{"type": "input_text", "text": message.content}]}
    content = [{"type": "input_text", "text": b.text} if isinstance(b, TextContent) else _image(b)
               for b in (message.content if images_ok else images_as_placeholders(message.content, _NO_IMAGES))]
    return {"role": "user", "content": content} if content else None


def _tool_output(message: ToolResultMessage, images_ok: bool) -> str | list[dict[str, Any]]:
    content = message.content if images_ok else images_as_placeholders(message.content, _NO_TOOL_IMAGES)
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


def tool_support(model: Model) -> ToolSupport:
    """How tool changes travel (Pi's ``getResponsesToolSupport``): ``changes`` as ``additional_tools``
    items where mid-conversation system messages and additional tools are supported, ``additions``
    as client tool-search results where tool search is, else ``none`` (the request's tool list)."""
    compat = model.compat or {}
    if compat.get("supportsMidConvoSystemMessages") and compat.get("supportsAdditionalTools"):
        return "changes"
    return "additions" if compat.get("supportsToolSearch") else "none"


class _Input:
    """One request's input items, built from the transcript in order (Pi's ``convertResponsesMessages``)."""

    def __init__(self, model: Model, family: frozenset[str], strict: tuple[Any, bool], effort: str | None) -> None:
        self.model = model
        self.role = instruction_role(model)
        self.images_ok = "image" in model.input
        self.support = tool_support(model)
        self.strict = strict
        self.effort = effort
        self.assistant = _AssistantItems(model, family)
        self.items: list[dict[str, Any]] = []
        self.declared_additional = False
        self.unavailable: dict[str, None] = {}
        """Tools announced as removed and not declared again since (ordered, as Pi's Set)."""

    def _tools(self, declared: list[dict[str, Any]], search_result: bool = False) -> list[dict[str, Any]]:
        tools = [Tool.model_validate(t) for t in declared]
        return convert_tools(tools, default_strict=self.strict[0], supports_strict=self.strict[1],
                             search_result=search_result)

    def _additions(self, wire: dict[str, Any], seed: str) -> None:
        tools = wire.get("toolsAdded") or []
        for tool in tools:
            self.unavailable.pop(tool.get("name"), None)
        if not tools:
            return
        if self.support == "changes":
            if self.declared_additional:
                self.items.append({"role": self.role, "content": _incremental_notice(list(self.unavailable))})
            self.declared_additional = True
            self.items.append({"type": "additional_tools", "role": "developer", "tools": self._tools(tools)})
        elif self.support == "additions":
            names = [str(t.get("name")) for t in tools]
            joined = ",".join(names)
            call_id = f"pi_tool_load_{short_hash(f'{seed}:{joined}')}"
            self.items.append({"type": "tool_search_call", "call_id": call_id, "execution": "client",
                               "status": "completed", "arguments": {"query": " ".join(names), "limit": len(names)}})
            self.items.append({"type": "tool_search_output", "call_id": call_id, "execution": "client",
                               "status": "completed", "tools": self._tools(tools, search_result=True)})

    def system(self, wire: dict[str, Any], leading: bool, anchors: bool, index: int) -> None:
        if anchors:
            self._additions(wire, f"system:{index}")
        parts = [system_text(wire) if leading else update_text(wire)]
        if anchors:
            added = {t.get("name") for t in wire.get("toolsAdded") or ()}
            removed = [str(t.get("name")) for t in wire.get("toolsRemoved") or () if t.get("name") not in added]
            if removed:
                parts.append("The following tools are no longer available. Do not call them:\n"
                             + "\n".join(f"- {name}" for name in removed))
            self.unavailable.update(dict.fromkeys(removed))
        text = "\n\n".join(p for p in parts if p)
        if text:
            self.items.append({"role": self.role, "content": text})

    def message(self, message: Any, index: int) -> None:
        if isinstance(message, UserMessage):
            item = _user_item(message, self.images_ok)
            if item is not None:
                self.items.append(item)
        elif isinstance(message, AssistantMessage):
            out = self.assistant.items(message, index)
            same = (message.provider, message.api, message.model) == (self.model.provider, self.model.api,
                                                                     self.model.id)
            if out and self.effort is not None and same and message.provider_thinking_level is not None:
                self.items.append({"type": "configuration_update",
                                   "reasoning": {"effort": message.provider_thinking_level}})
            self.items.extend(out)
        elif isinstance(message, ToolResultMessage):
            call_id = self.assistant.renamed.get(message.tool_call_id, message.tool_call_id)
            self.items.append({"type": "function_call_output", "call_id": call_id.split("|")[0],
                               "output": _tool_output(message, self.images_ok)})


def _incremental_notice(unavailable: list[str]) -> str:
    notice = ("This is an incremental tools update. Previously declared tools remain available unless explicitly "
              "marked unavailable. A tool declared again here is available again, and its latest definition "
              "replaces the earlier one.")
    return f"{notice}\nStill unavailable: {', '.join(unavailable)}." if unavailable else notice


def _prepared(messages: list[Any], model: Model) -> list[Any]:
    """``prepare_messages`` run between the system messages (which it would drop)."""
    out: list[Any] = []
    run: list[Any] = []
    for message in messages:
        if role(message) == "system":
            out.extend(prepare_messages(run, model))
            run = []
            out.append(message)
        else:
            run.append(message)
    out.extend(prepare_messages(run, model))
    return out


def convert_input(model: Model, context: Context, family: frozenset[str], *, strict: tuple[Any, bool] = (False, True),
                  configuration_effort: str | None = None) -> tuple[list[dict[str, Any]], list[Tool]]:
    """History as Responses input items, and the tools for the request's tool list, as Pi 1.6 builds them.

    Args:
        model: The target model (its compat decides how the prompt and tool changes travel).
        context: The transcript (system messages) or a system prompt, tools and messages.
        family: Providers whose tool-call item ids can be carried over from another model.
        strict: ``(default strict value, whether the server takes strict tools)`` for tool lists.
        configuration_effort: Codex's mid-conversation effort, sent as ``configuration_update`` items.

    Raises:
        ValueError: a tool requires a strict schema it cannot have.
    """
    messages = transcript(context)
    if not (model.compat or {}).get("supportsMidConvoSystemMessages"):
        messages = collapse(messages)
    listed, folded = request_tools(messages, tool_support(model))
    builder = _Input(model, family, strict, configuration_effort)
    index = 0
    systems = 0
    for position, message in enumerate(_prepared(hold_system_messages(messages), model)):
        leading = position == 0 and role(message) == "system"
        if role(message) == "system":
            wire = message if isinstance(message, dict) else message.to_wire()
            builder.system(wire, leading, systems >= folded, index)
            systems += 1
        else:
            builder.message(message, index)
        if not leading:
            index += 1
    if configuration_effort is not None:
        builder.items.append({"type": "configuration_update", "reasoning": {"effort": configuration_effort}})
    return builder.items, [Tool.model_validate(t) for t in listed]


def convert_tools(tools: Iterable[Tool], *, default_strict: Any, supports_strict: bool,
                  search_result: bool = False) -> list[dict[str, Any]]:
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
        if search_result:
            entry["defer_loading"] = True
        if supports_strict:
            entry["strict"] = strict
        out.append(entry)
    return out
