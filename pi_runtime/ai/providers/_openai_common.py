"""Helpers shared by the two OpenAI wire protocols (Chat Completions and Responses).

Credentials and headers, keyless local servers, thinking-level mapping (``thinkingLevelMap``),
sampling parameters from models.json, image data URLs, and turning a request failure into
the terminal event of a stream. Nothing here talks to the network.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ... import deep_json
from ..env_keys import describe_env, env_api_key
from ..options import StreamOptions
from ..transform import prepare_messages
from ..types import (
    Context,
    ImageContent,
    Model,
    TextContent,
    Tool,
    ToolResultMessage,
)

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}

LEVELS: tuple[str, ...] = ("minimal", "low", "medium", "high", "xhigh")
"""Thinking levels that turn reasoning on, weakest first ("off" is the absence of one)."""

DEFAULT_THINKING_BUDGETS: dict[str, int] = {
    "minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768,
}
"""Reasoning-token caps per level for servers that take a budget instead of an effort."""


class MissingApiKey(Exception):
    """No credential for a provider that needs one; ``str()`` tells the user what to set."""


def model_extra(model: Model, camel: str) -> Any:
    """A model field by its wire name: declared on ``Model`` or kept as an unknown key (camelCase)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    declared = getattr(model, snake, None) if snake in type(model).model_fields else None
    if declared is not None:
        return declared
    extra = model.model_extra or {}
    if camel in extra:
        return extra[camel]
    return extra.get(snake)


def is_local_url(url: str) -> bool:
    """True for servers on this machine or a private LAN name (Ollama, llama.cpp, vLLM)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in _LOCAL_HOSTS or host.endswith(".local") or host.startswith("127.")


def resolve_api_key(model: Model, options: StreamOptions) -> str | None:
    """The key for this request: the explicit option, then the provider's env variable.

    Raises:
        MissingApiKey: no key was found and the server is not a local one.
    """
    key = options.api_key or env_api_key(model.provider)
    if key:
        return key
    if is_local_url(model.base_url):
        return None  # a local server runs without authentication
    ways = describe_env(model.provider)
    hint = f"set {ways}" if ways else "add an apiKey for it in models.json or auth.json"
    raise MissingApiKey(
        f"No API key for provider '{model.provider}': {hint}, or pass --api-key."
    )


def request_headers(
    model: Model, options: StreamOptions, api_key: str | None, generated: dict[str, str] | None = None
) -> dict[str, str]:
    """Headers for one request; later sources win: defaults, generated, model, request."""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    for source in (generated, model.headers, options.headers):
        if source:
            headers.update(source)
    return headers


def endpoint(model: Model, path: str) -> str:
    return f"{model.base_url.rstrip('/')}/{path}"


# --------------------------------------------------------------------------- thinking levels


def thinking_level(model: Model, options: StreamOptions) -> str | None:
    """The level to send, after clamping to what the model supports; None means off.

    ``thinkingLevelMap`` (models.json) marks a level unsupported with null; by default
    minimal..high are supported and xhigh is not. An unsupported level falls back to the
    next weaker supported one.
    """
    level = options.reasoning
    if not model.reasoning or not level or level == "off" or level not in LEVELS:
        return None
    mapping = model_extra(model, "thinkingLevelMap") or {}
    for candidate in reversed(LEVELS[: LEVELS.index(level) + 1]):
        if candidate in mapping:
            if mapping[candidate] is not None:
                return candidate
        elif candidate != "xhigh":
            return candidate
    return None


def provider_effort(model: Model, level: str | None) -> str | None:
    """The provider's value for a (clamped) level, from ``thinkingLevelMap`` or the level itself."""
    if level is None:
        return None
    mapping = model_extra(model, "thinkingLevelMap") or {}
    value = mapping.get(level, level)
    return None if value is None else str(value)


def thinking_budget(level: str | None, options: StreamOptions) -> int | None:
    if level is None:
        return None
    budgets = {**DEFAULT_THINKING_BUDGETS, **(options.extra.get("thinking_budgets") or {})}
    return budgets.get(level)


def sampling_params(model: Model, options: StreamOptions, level: str | None) -> dict[str, Any]:
    """models.json ``samplingParams``, the level's override, then the request's; later wins."""
    merged: dict[str, Any] = dict(model_extra(model, "samplingParams") or {})
    by_level = model_extra(model, "samplingParamsByThinkingLevel") or {}
    merged.update(by_level.get(level or "off") or {})
    merged.update(options.extra.get("sampling_params") or {})
    return merged


# --------------------------------------------------------------------------- content


def image_data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"


def supports_images(model: Model) -> bool:
    return "image" in model.input


def tool_result_text(message: ToolResultMessage) -> str:
    """The text a tool result sends to the model (images travel separately)."""
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    if text:
        return text
    if any(isinstance(b, ImageContent) for b in message.content):
        return "(see attached image)"
    return "(no output)"


def tool_result_images(message: ToolResultMessage) -> list[ImageContent]:
    return [b for b in message.content if isinstance(b, ImageContent)]


# --------------------------------------------------------------------------- failures


def usage_int(data: dict[str, Any] | None, *keys: str) -> int:
    """The first integer found under ``keys`` (servers disagree on names); 0 otherwise."""
    if not data:
        return 0
    for key in keys:
        value = data.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
    return 0


# --------------------------------------------------------------------------- chat completions messages

REASONING_FIELDS: tuple[str, ...] = ("reasoning_content", "reasoning", "reasoning_text")
"""Delta fields that carry thinking, by server family (DeepSeek/vLLM, OpenRouter/Ollama, others).
The field a thinking block arrived in is kept as its signature and used again on replay."""


def convert_messages(
    model: Model, context: Context, compat: dict[str, Any], reasoning_on: bool = False
) -> list[dict[str, Any]]:
    """History as Chat Completions messages, shaped by the compat switches.

    Args:
        model: Target model (decides the system role and whether images are sent).
        context: System prompt and messages; history is passed through ``prepare_messages``.
        compat: Resolved compat switches (see ``openai_completions.resolve_compat``).
        reasoning_on: Whether thinking is enabled for this request.

    Returns:
        The ``messages`` array.
    """
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        role = "developer" if model.reasoning and compat.get("supportsDeveloperRole") else "system"
        out.append({"role": role, "content": context.system_prompt})
    images_ok = supports_images(model)
    pending_images: list[dict[str, Any]] = []

    def before_user() -> None:
        # Some servers reject a user turn straight after tool results.
        if out and out[-1]["role"] == "tool" and compat.get("requiresAssistantAfterToolResult"):
            out.append({"role": "assistant", "content": "I have processed the tool results."})

    def flush_images() -> None:
        # Tool messages only take text, so images from tool results follow as a user turn.
        if pending_images:
            before_user()
            out.append({"role": "user", "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"}, *pending_images]})
            pending_images.clear()

    bridge_after_tool = bool(compat.get("requiresAssistantAfterToolResult"))
    add = out.append
    for message in prepare_messages(context.messages, model):
        # A stored message may come as its wire dict (ACCEPTS_WIRE_MESSAGES): read as such.
        wire = type(message) is dict
        role = message["role"] if wire else message.role
        if wire and role != "toolResult":  # the bulk of a resumed session: read straight from the dict
            if pending_images:
                flush_images()
            content = message.get("content")
            converted: dict[str, Any] | None
            if role == "user":
                if type(content) is str:
                    converted = {"role": "user", "content": content}
                else:
                    converted = _user_message(_blocks(content, wire), images_ok)
                if converted is not None:
                    if bridge_after_tool:
                        before_user()
                    add(converted)
            elif role == "assistant":
                converted = _wire_assistant_message(content, compat, reasoning_on)
                if converted is not None:
                    add(converted)
            continue
        if role != "toolResult":
            flush_images()
        if role == "user":
            content = message.get("content") if wire else message.content
            converted = _user_message(content if isinstance(content, str) else _blocks(content, wire), images_ok)
            if converted is not None:
                before_user()
                out.append(converted)
        elif role == "assistant":
            converted = _assistant_message(_blocks(message.get("content") if wire else message.content, wire),
                                           compat, reasoning_on)
            if converted is not None:
                out.append(converted)
        elif role == "toolResult":
            blocks = _blocks(message.get("content") if wire else message.content, wire)
            call_id, name = (message.get("toolCallId"), message.get("toolName")) if wire else (
                message.tool_call_id, message.tool_name)
            entry: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": _result_text(blocks)}
            if compat.get("requiresToolResultName"):
                entry["name"] = name
            out.append(entry)
            if images_ok:
                pending_images.extend(
                    {"type": "image_url", "image_url": {"url": f"data:{b.mime_type};base64,{b.data}"}}
                    for b in blocks if b.type == "image"
                )
    flush_images()
    if compat.get("cacheControlFormat") == "anthropic":
        _mark_cache_points(out)
    return out


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


def _result_text(blocks: list[_Block]) -> str:
    """The text a tool result sends to the model (images travel separately)."""
    text = "\n".join(b.text for b in blocks if b.type == "text")
    if text:
        return text
    return "(see attached image)" if any(b.type == "image" for b in blocks) else "(no output)"


def _user_message(content: str | list[_Block], images_ok: bool) -> dict[str, Any] | None:
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts: list[dict[str, Any]] = []
    for block in content:
        if block.type == "text":
            parts.append({"type": "text", "text": block.text})
        elif block.type == "image" and images_ok:
            parts.append({"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}})
    return {"role": "user", "content": parts} if parts else None


def _wire_assistant_message(content: Any, compat: dict[str, Any], reasoning_on: bool) -> dict[str, Any] | None:
    """``_assistant_message`` for a wire dict's content; text-only content (most of a long
    history) is read without making a ``_Block`` per block."""
    if type(content) is list and len(content) == 1 and content[0].get("type") == "text":
        # One text block, the commonest answer: its text is the content as it is.
        text = content[0].get("text") or ""
        if not text.strip():
            return None
        single: dict[str, Any] = {"role": "assistant", "content": text}
        if reasoning_on and compat.get("requiresReasoningContentOnAssistantMessages"):
            single["reasoning_content"] = ""
        return single
    texts: list[str] = []
    for block in content or ():
        if block.get("type") != "text":
            return _assistant_message(_blocks(content, True), compat, reasoning_on)
        text = block.get("text") or ""
        if text.strip():
            texts.append(text)
    if not texts:
        return None
    entry: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if reasoning_on and compat.get("requiresReasoningContentOnAssistantMessages"):
        entry["reasoning_content"] = ""
    return entry


def _assistant_message(blocks: list[_Block], compat: dict[str, Any], reasoning_on: bool) -> dict[str, Any] | None:
    texts: list[str] = []
    thinking: dict[str, list[str]] = {}
    calls: list[dict[str, Any]] = []
    for block in blocks:
        if block.type == "text":
            if block.text.strip():
                texts.append(block.text)
        elif block.type == "thinking":
            if not block.text.strip():
                continue
            if compat.get("requiresThinkingAsText"):
                texts.append(f"<thinking>\n{block.text}\n</thinking>")
            else:
                field = block.signature if block.signature in REASONING_FIELDS else "reasoning_content"
                thinking.setdefault(field, []).append(block.text)
        elif block.type == "toolCall":
            calls.append({
                "id": block.id, "type": "function",
                "function": {"name": block.name, "arguments": deep_json.dumps(block.arguments, ensure_ascii=False)},
            })
    if not texts and not calls and not thinking:
        return None
    entry: dict[str, Any] = {"role": "assistant"}
    if texts:
        entry["content"] = "".join(texts)
    else:
        entry["content"] = "" if compat.get("requiresNonNullAssistantContent") else None
    for field, parts in thinking.items():
        entry[field] = "\n".join(parts)
    if reasoning_on and compat.get("requiresReasoningContentOnAssistantMessages"):
        entry.setdefault("reasoning_content", "")
    if calls:
        entry["tool_calls"] = calls
    return entry


def _mark_cache_points(messages: list[dict[str, Any]]) -> None:
    """Anthropic-style ``cache_control`` on the system prompt and the last text message."""
    def mark(entry: dict[str, Any]) -> bool:
        content = entry.get("content")
        if isinstance(content, str) and content:
            entry["content"] = [{"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}]
            return True
        if isinstance(content, list):
            for part in reversed(content):
                if part.get("type") == "text":
                    part["cache_control"] = {"type": "ephemeral"}
                    return True
        return False

    if messages and messages[0]["role"] in ("system", "developer"):
        mark(messages[0])
    for entry in reversed(messages):
        if entry["role"] in ("user", "assistant", "tool") and mark(entry):
            break


def convert_tools(tools: list[Tool], compat: dict[str, Any]) -> list[dict[str, Any]]:
    """Tools as Chat Completions function definitions."""
    out = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]
    if out and compat.get("cacheControlFormat") == "anthropic":
        out[-1]["cache_control"] = {"type": "ephemeral"}
    return out


def has_tool_history(messages: list[dict[str, Any]]) -> bool:
    return any(m["role"] == "tool" or m.get("tool_calls") for m in messages)
