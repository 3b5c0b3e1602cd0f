"""Pi 1.6's transcript: the prompt and the tools as system messages among the conversation.

Pi keeps the system prompt (as named sections) and the tool declarations in ``system`` messages:
the first declares them, later ones declare what changed (``sections`` patched by name, a
section set to null is removed; ``toolsAdded`` / ``toolsRemoved``). pi's kernel writes them the
same way. The providers that follow Pi's newer APIs read them (``ACCEPTS_SYSTEM_MESSAGES``):

- ``transcript(context)``: the context's system messages when it has some, else one leading
  system message made from ``system_prompt`` and ``tools`` (Pi's ``normalizeContext``); a
  prompt that differs from what the transcript declares (an extension's forced prompt) leads
  instead, with the current tools, and the other system messages go (Pi's projection);
- ``collapse``: one leading system message with the current prompt and tools, the others gone,
  for models that take no system message mid-conversation;
- ``request_tools``: which tools go in the request's tool list and how many leading system
  messages that list stands for (``none``: all of them; ``changes``: none, every message
  declares its own; ``additions``: up to the last removal or redefinition).

Messages here are message objects or their wire dicts alike; what is returned is wire dicts
for the system messages and the other messages as they came.
"""

from __future__ import annotations

from typing import Any, Literal

from .types import Context

ToolSupport = Literal["none", "changes", "additions"]


def role(message: Any) -> str | None:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def _system(message: Any) -> dict[str, Any]:
    return message if isinstance(message, dict) else message.to_wire()


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text") or "" for b in content or () if isinstance(b, dict) and b.get("type") == "text")


def system_text(message: dict[str, Any]) -> str:
    """A leading system message's prompt: its content, then its sections, blank-line separated."""
    parts = [_content_text(message.get("content")), *((message.get("sections") or {}).values())]
    return "\n\n".join(p for p in parts if isinstance(p, str) and p)


def update_text(message: dict[str, Any]) -> str:
    """A later system message as the model reads it mid-conversation (Pi's wording)."""
    parts = []
    text = _content_text(message.get("content"))
    if text:
        parts.append(text)
    for name, value in (message.get("sections") or {}).items():
        parts.append(f'Removed system prompt section "{name}".' if value is None
                     else f'Updated system prompt section "{name}":\n\n{value}')
    return "\n\n".join(parts)


def current_tools(messages: list[Any]) -> list[dict[str, Any]]:
    """The tools declared once every system message is applied, in declaration order."""
    tools: dict[str, dict[str, Any]] = {}
    for message in messages:
        if role(message) != "system":
            continue
        wire = _system(message)
        for tool in wire.get("toolsRemoved") or ():
            tools.pop(tool.get("name"), None)
        for tool in wire.get("toolsAdded") or ():
            tools[tool.get("name")] = tool  # a redeclared tool keeps its place, as in a JS Map
    return list(tools.values())


def current_system_message(messages: list[Any]) -> dict[str, Any] | None:
    """Every system message replayed into one (Pi's ``getCurrentSystemMessage``)."""
    content: list[str] = []
    sections: dict[str, Any] = {}
    timestamp = None
    for message in messages:
        if role(message) != "system":
            continue
        wire = _system(message)
        if timestamp is None:
            timestamp = wire.get("timestamp")
        text = _content_text(wire.get("content"))
        if text:
            content.append(text)
        for name, value in (wire.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = current_tools(messages)
    if timestamp is None and not tools:
        return None
    head: dict[str, Any] = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        head["sections"] = sections
    if tools:
        head["toolsAdded"] = tools
    head["timestamp"] = timestamp or 0
    return head


def collapse(messages: list[Any]) -> list[Any]:
    """One leading system message with the current prompt and tools; the others dropped."""
    head = current_system_message(messages)
    rest = [m for m in messages if role(m) != "system"]
    return [head, *rest] if head else rest


def transcript(context: Context) -> list[Any]:
    """The context as Pi's transcript (see the module docstring)."""
    messages = list(context.messages)
    if not any(role(m) == "system" for m in messages):
        tools = [t.to_wire() for t in context.tools or ()]
        if not context.system_prompt and not tools:
            return messages
        head: dict[str, Any] = {"role": "system", "content": context.system_prompt or ""}
        if tools:
            head["toolsAdded"] = tools
        head["timestamp"] = 0
        return [head, *messages]
    declared = current_system_message(messages)
    if context.system_prompt is not None and (declared is None or system_text(declared) != context.system_prompt):
        forced: dict[str, Any] = {"role": "system", "content": context.system_prompt}
        tools = current_tools(messages)
        if tools:
            forced["toolsAdded"] = tools
        forced["timestamp"] = declared.get("timestamp", 0) if declared else 0
        return [forced, *(m for m in messages if role(m) != "system")]
    return messages


def _last_non_additive_change(systems: list[dict[str, Any]]) -> int:
    declared: set[str] = set()
    last = -1
    for index, message in enumerate(systems):
        if message.get("toolsRemoved"):
            last = index
        for tool in message.get("toolsAdded") or ():
            if tool.get("name") in declared:
                last = index
            declared.add(tool.get("name"))
    return last


def request_tools(messages: list[Any], support: ToolSupport) -> tuple[list[dict[str, Any]], int]:
    """``(tools for the request's tool list, how many leading system messages they stand for)``."""
    systems = [_system(m) for m in messages if role(m) == "system"]
    if support == "none":
        return current_tools(systems), len(systems)
    if support == "changes":
        return [], 0
    leading = 1 if messages and role(messages[0]) == "system" else 0
    folded = max(leading, _last_non_additive_change(systems) + 1)
    return current_tools(systems[:folded]), folded


def hold_system_messages(messages: list[Any]) -> list[Any]:
    """A system message that lands between tool calls and their results moves after the results
    (Pi's ``transformMessages``): tool-call accounting never sees it in between."""
    out: list[Any] = []
    held: list[Any] = []
    pending = False
    for message in messages:
        kind = role(message)
        if kind in ("assistant", "user"):
            out.extend(held)
            held = []
            pending = kind == "assistant" and _has_calls(message)
            out.append(message)
        elif kind == "system" and pending:
            held.append(message)
        else:
            out.append(message)
    return out + held


def _has_calls(message: Any) -> bool:
    if isinstance(message, dict):
        if message.get("stopReason") in ("error", "aborted"):
            return False
        return any(b.get("type") == "toolCall" for b in message.get("content") or ())
    if getattr(message, "stop_reason", None) in ("error", "aborted"):
        return False
    return bool(message.tool_calls())
