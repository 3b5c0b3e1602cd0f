"""History as OpenAI Chat Completions messages, shaped by the server's ``compat`` switches (Pi 1.6).

Each message is built with its keys in Pi's order, since the body is compared with Pi's byte for
byte: an assistant turn is ``role``, ``content`` (a string, or null, or ``""`` for servers that
reject null), the field its thinking came in (``reasoning_content``, ...), ``tool_calls`` (their
arguments as compact JSON), then ``reasoning_content: ""`` where the server wants one on every
assistant turn; a tool result is ``role``, ``content``, ``tool_call_id`` (and ``name``). Images a
tool returned follow the results as a user turn. Stored messages may come as their wire dicts
(``ACCEPTS_WIRE_MESSAGES``): the common shapes are read straight from the dict.
"""

from __future__ import annotations

from typing import Any

from ... import deep_json
from ..strict_schema import strict_choice, tool_parameters
from ..transform import HistoryPreparer
from ..types import Context, Model, Tool

REASONING_FIELDS: tuple[str, ...] = ("reasoning_content", "reasoning", "reasoning_text")
"""Delta fields that carry thinking, by server family (DeepSeek/vLLM, OpenRouter/Ollama, others).
The field a thinking block arrived in is kept as its signature and used again on replay."""
IMAGES_FROM_TOOLS = "Attached image(s) from tool result:"
NO_IMAGES = "(image omitted: model does not support images)"
NO_TOOL_IMAGES = "(tool image omitted: model does not support images)"
BRIDGE = "I have processed the tool results."


def _compact(value: Any) -> str:
    """``JSON.stringify``: no spaces, characters left as they are."""
    return deep_json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class _Block:
    """One content block, read alike from a message object or a wire dict.

    Only the fields of the block's own type are read: asking a pydantic block for a field it
    does not have goes through its slow ``__getattr__``.
    """

    text = ""
    signature: str | None = None
    id = ""
    name = ""
    arguments: dict[str, Any] = {}  # a read-only default, replaced per block
    data = ""
    mime_type = ""

    def __init__(self, block: Any, wire: bool) -> None:
        if wire:
            kind = self.type = block.get("type")
            if kind == "text":
                self.text = block.get("text") or ""
            elif kind == "thinking":
                self.text, self.signature = block.get("thinking") or "", block.get("thinkingSignature")
            elif kind == "toolCall":
                self.id, self.name = block.get("id") or "", block.get("name") or ""
                self.arguments = block.get("arguments") or {}
            elif kind == "image":
                self.data, self.mime_type = block.get("data") or "", block.get("mimeType") or ""
            return
        kind = self.type = block.type
        if kind == "text":
            self.text = block.text
        elif kind == "thinking":
            self.text, self.signature = block.thinking, block.thinking_signature
        elif kind == "toolCall":
            self.id, self.name, self.arguments = block.id, block.name, block.arguments
        elif kind == "image":
            self.data, self.mime_type = block.data, block.mime_type


def _blocks(content: Any, wire: bool) -> list[_Block]:
    return [_Block(b, wire) for b in content or ()]


def _text_block(text: str) -> _Block:
    return _Block({"type": "text", "text": text}, True)


def _without_images(blocks: list[_Block], placeholder: str) -> list[_Block]:
    """For a model that takes no images: each run of images becomes one placeholder text (Pi's words)."""
    if not any(b.type == "image" for b in blocks):
        return blocks
    out: list[_Block] = []
    for block in blocks:
        if block.type != "image":
            out.append(block)
        elif not (out and out[-1].type == "text" and out[-1].text == placeholder):
            out.append(_text_block(placeholder))
    return out


def _image(block: _Block) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}


def _user_message(content: str | list[_Block]) -> dict[str, Any] | None:
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts = [{"type": "text", "text": b.text} if b.type == "text" else _image(b)
             for b in content if (b.type == "text" and b.text) or b.type == "image"]
    return {"role": "user", "content": parts} if parts else None


def _result_text(blocks: list[_Block]) -> str:
    text = "\n".join(b.text for b in blocks if b.type == "text")
    if text.strip():
        return text
    return "(see attached image)" if any(b.type == "image" for b in blocks) else "(no tool output)"


class _Converter:
    """Builds the ``messages`` array for one request."""

    def __init__(self, model: Model, compat: dict[str, Any]) -> None:
        self.model, self.compat = model, compat
        self.out: list[dict[str, Any]] = []
        self.last_role: str | None = None
        self.bridge = bool(compat.get("requiresAssistantAfterToolResult"))
        self.empty_content: str | None = "" if self.bridge or compat.get("requiresNonNullAssistantContent") else None
        self.blank_reasoning = bool(compat.get("requiresReasoningContentOnAssistantMessages")) and model.reasoning
        self.images_ok = "image" in model.input

    def user(self, converted: dict[str, Any] | None) -> None:
        if converted is None:
            return
        if self.bridge and self.last_role == "toolResult":
            self.out.append({"role": "assistant", "content": BRIDGE})
        self.out.append(converted)
        self.last_role = "user"

    def assistant(self, blocks: list[_Block]) -> None:
        entry: dict[str, Any] = {"role": "assistant", "content": self.empty_content}
        texts = [b.text for b in blocks if b.type == "text" and b.text.strip()]
        thoughts = [b for b in blocks if b.type == "thinking" and b.text.strip()]
        calls = [b for b in blocks if b.type == "toolCall"]
        text = "".join(texts)
        if thoughts and self.compat.get("requiresThinkingAsText"):
            entry["content"] = [{"type": "text", "text": "\n\n".join(b.text for b in thoughts)},
                                *({"type": "text", "text": t} for t in texts)]
        else:
            if text:
                entry["content"] = text
            signature = thoughts[0].signature if thoughts else None
            if signature == "reasoning" and self.model.provider == "opencode-go":
                signature = "reasoning_content"
            if signature in REASONING_FIELDS:
                entry[signature] = "\n".join(b.text for b in thoughts)
        if calls:
            entry["tool_calls"] = [{"id": c.id, "type": "function",
                                    "function": {"name": c.name, "arguments": _compact(c.arguments)}} for c in calls]
        if self.blank_reasoning and "reasoning_content" not in entry:
            entry["reasoning_content"] = ""
        self.last_role = "assistant"
        if entry["content"] or calls:
            self.out.append(entry)

    def text_answer(self, text: str) -> None:
        """An assistant turn of one text block (most of a long history), without making blocks."""
        self.last_role = "assistant"
        if not text.strip():
            return
        entry: dict[str, Any] = {"role": "assistant", "content": text}
        if self.blank_reasoning:
            entry["reasoning_content"] = ""
        self.out.append(entry)

    def tool_result(self, blocks: list[_Block], call_id: Any, name: Any, images: list[dict[str, Any]]) -> None:
        entry: dict[str, Any] = {"role": "tool", "content": _result_text(blocks), "tool_call_id": call_id}
        if self.compat.get("requiresToolResultName") and name:
            entry["name"] = name
        self.out.append(entry)
        self.last_role = "toolResult"
        if self.images_ok:
            images.extend(_image(b) for b in blocks if b.type == "image")

    def flush_images(self, images: list[dict[str, Any]]) -> None:
        """After a run of tool results: their images as a user turn (tool messages take only text)."""
        if not images:
            return
        if self.bridge:
            self.out.append({"role": "assistant", "content": BRIDGE})
        self.out.append({"role": "user", "content": [{"type": "text", "text": IMAGES_FROM_TOOLS}, *images]})
        images.clear()
        self.last_role = "user"


def convert_messages(model: Model, context: Context, compat: dict[str, Any]) -> list[dict[str, Any]]:
    """History as Chat Completions messages, shaped by the compat switches.

    Args:
        model: Target model (decides the system role and whether images are sent).
        context: System prompt and messages; history is passed through ``prepare_messages``.
        compat: Resolved compat switches (``_completions_compat.resolve_compat``).

    Returns:
        The ``messages`` array.
    """
    convert = _Converter(model, compat)
    if context.system_prompt:
        role = "developer" if model.reasoning and compat.get("supportsDeveloperRole") else "system"
        convert.out.append({"role": role, "content": context.system_prompt})
        convert.last_role = "system"
    images: list[dict[str, Any]] = []
    out = convert.out
    plain = not convert.bridge and not convert.blank_reasoning

    def convert_one(message: Any) -> None:
        # A stored message may come as its wire dict (ACCEPTS_WIRE_MESSAGES): read as such.
        wire = type(message) is dict
        if wire:
            role, content = message["role"], message.get("content")
        else:
            role, content = message.role, message.content
        if images and role != "toolResult":
            convert.flush_images(images)
        if role == "user":
            if isinstance(content, str):
                if plain:
                    out.append({"role": "user", "content": content})  # what convert.user(...) adds
                    convert.last_role = "user"
                else:
                    convert.user(_user_message(content))
            else:
                blocks = _blocks(content, wire)
                convert.user(_user_message(blocks if convert.images_ok else _without_images(blocks, NO_IMAGES)))
        elif role == "assistant":
            if wire and type(content) is list and len(content) == 1 and content[0].get("type") == "text":
                convert.text_answer(content[0].get("text") or "")
            else:
                convert.assistant(_blocks(content, wire))
        elif role == "toolResult":
            call_id, name = (message.get("toolCallId"), message.get("toolName")) if wire else (
                message.tool_call_id, message.tool_name)
            blocks = _blocks(content, wire)
            if not convert.images_ok:
                blocks = _without_images(blocks, NO_TOOL_IMAGES)
            convert.tool_result(blocks, call_id, name, images)

    # History is prepared (``prepare_messages``) and converted in one pass. A long one is nearly all
    # plain questions and one-text answers, which preparing keeps as they are: those two shapes are
    # made here, without a call per message (20,000 messages: a third of the time).
    prepared = HistoryPreparer(model)
    ready, pending, add = prepared.out, prepared.pending, prepared.add
    last = convert.last_role  # kept here while the loop makes turns itself, in convert for the others
    for message in context.messages:
        if plain and not pending and not images and type(message) is dict:
            kind = message.get("role")
            if kind == "user":
                question = message.get("content")
                if type(question) is str:
                    out.append({"role": "user", "content": question})  # what convert.user(...) adds
                    last = "user"
                    continue
            elif kind == "assistant":
                blocks = message.get("content")  # ``plain_answer(message)``, inlined
                if type(blocks) is list and len(blocks) == 1:
                    block = blocks[0]
                    if (type(block) is dict and block.get("type") == "text" and not block.get("textSignature")
                            and message.get("stopReason") not in ("error", "aborted")):
                        text = block.get("text") or ""
                        last = "assistant"  # what convert.text_answer(text) does
                        if text.strip():
                            out.append({"role": "assistant", "content": text})
                        continue
        convert.last_role = last
        add(message)
        if ready:
            for item in ready:
                convert_one(item)
            ready.clear()
        last = convert.last_role
    convert.last_role = last
    for item in prepared.finish():
        convert_one(item)
    convert.flush_images(images)
    return convert.out


def convert_tools(tools: list[Tool], compat: dict[str, Any]) -> list[dict[str, Any]]:
    """Tools as Chat Completions function definitions; strict where the server has a strict mode and
    the tool asks for it (``constrainedSampling``)."""
    strict_mode = compat.get("supportsStrictMode") is not False
    out = []
    for tool in tools:
        strict = strict_choice(tool, strict_mode)
        function: dict[str, Any] = {"name": tool.name, "description": tool.description,
                                    "parameters": tool_parameters(tool, strict)}
        if strict_mode:
            function["strict"] = bool(strict)
        out.append({"type": "function", "function": function})
    return out


def has_tool_history(messages: list[dict[str, Any]]) -> bool:
    """Whether the converted history holds tool calls or results (some servers then want ``tools``)."""
    return any(m["role"] == "tool" or m.get("tool_calls") for m in messages)


def apply_cache_control(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                        marker: dict[str, Any]) -> None:
    """Anthropic-style ``cache_control`` (for Claude through OpenRouter): on the system prompt, the last
    tool, and the last conversation message with text."""
    def mark(entry: dict[str, Any]) -> bool:
        content = entry.get("content")
        if isinstance(content, str):
            if not content:
                return False
            entry["content"] = [{"type": "text", "text": content, "cache_control": dict(marker)}]
            return True
        if isinstance(content, list):
            for part in reversed(content):
                if part.get("type") == "text":
                    part["cache_control"] = dict(marker)
                    return True
        return False

    for entry in messages:
        if entry["role"] in ("system", "developer"):
            mark(entry)
            break
    if tools:
        tools[-1]["cache_control"] = dict(marker)
    for entry in reversed(messages):
        if entry["role"] in ("user", "assistant", "tool") and mark(entry):
            break
