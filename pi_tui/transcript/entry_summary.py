"""One-line summaries of session entries (wire dicts) for the tree browser and pickers.

Pure functions over the JSON shapes of ``session-format.md``; no Textual. Each entry gets a
*kind* (which decides colour and filtering) and a short single-line text.
"""

from __future__ import annotations

from typing import Any

PREVIEW_CHARS = 160
"""Longest preview kept per row; the view clips further to the terminal width."""

SETTINGS_KINDS = frozenset({"model", "thinking", "label", "info", "custom", "edit"})
"""Kinds that Pi's default tree filter hides (bookkeeping, not conversation)."""

_MAIN_ARG = ("command", "path", "file_path", "pattern", "query", "url", "name")


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """Collapse whitespace runs (newlines included) and clip to ``limit`` characters."""
    flat = " ".join(text[: limit * 4].split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def content_text(content: Any) -> str:
    """Text of a message ``content`` (a string or a list of blocks); images become ``[image]``."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "image":
            parts.append("[image]")
    return " ".join(parts)


def tool_call_summary(block: dict[str, Any]) -> str:
    """``bash(ls -la)``: a tool call's name and its most telling argument."""
    name = str(block.get("name", "tool"))
    args = block.get("arguments")
    if not isinstance(args, dict) or not args:
        return f"{name}()"
    value = next((args[k] for k in _MAIN_ARG if isinstance(args.get(k), str)), None)
    if value is None:
        value = next((v for v in args.values() if isinstance(v, str)), None)
    return f"{name}({one_line(value, 60) if value is not None else '…'})"


def _assistant(message: dict[str, Any]) -> tuple[str, str]:
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    text = content_text(content).strip()
    calls = [tool_call_summary(b) for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall"]
    stop = message.get("stopReason")
    if stop in ("error", "aborted") and not text and not calls:
        detail = message.get("errorMessage") or stop
        return "error", f"assistant: ({one_line(str(detail), 100)})"
    if not text and not calls:
        thinking = any(isinstance(b, dict) and b.get("type") == "thinking" for b in blocks)
        return "assistant", "assistant: (thinking only)" if thinking else "assistant: (empty)"
    parts = [one_line(text)] if text else []
    if calls:
        parts.append("→ " + ", ".join(calls))
    return "assistant", "assistant: " + " ".join(parts)


def _message(message: Any, call: dict[str, Any] | None = None) -> tuple[str, str]:
    if not isinstance(message, dict):
        return "other", "message"
    role = message.get("role")
    if role == "user":
        return "user", "user: " + one_line(content_text(message.get("content")))
    if role == "assistant":
        return _assistant(message)
    if role == "toolResult":
        mark = "✗" if message.get("isError") else "✓"
        body = one_line(content_text(message.get("content")), 100)
        name = tool_call_summary(call) if call is not None else message.get("toolName", "tool")
        return "tool", f"{name} {mark} {body}".rstrip()
    if role == "bashExecution":
        code = message.get("exitCode")
        suffix = f"  (exit {code})" if isinstance(code, int) and code != 0 else ""
        return "bash", f"! {one_line(str(message.get('command', '')), 100)}{suffix}"
    if role == "custom":
        return "custom_message", f"[{message.get('customType', 'custom')}] " + one_line(
            content_text(message.get("content")))
    if role == "branchSummary":
        return "branch_summary", "branch summary: " + one_line(str(message.get("summary", "")))
    if role == "compactionSummary":
        return "compaction", "compaction: " + one_line(str(message.get("summary", "")))
    if role == "system":
        return "system", "[system]"  # as Pi's tree names a system message
    return "other", f"{role or 'message'}"


_TYPE_KINDS = {"compaction": "compaction", "branch_summary": "branch_summary", "model_change": "model",
               "thinking_level_change": "thinking", "label": "label", "session_info": "info", "custom": "custom",
               "custom_message": "custom_message", "context_edit": "edit", "usage": "usage"}
_ROLE_KINDS = {"user": "user", "assistant": "assistant", "toolResult": "tool", "bashExecution": "bash",
               "custom": "custom_message", "branchSummary": "branch_summary", "compactionSummary": "compaction",
               "system": "system"}


def kind_of(entry: dict[str, Any]) -> str:
    """Just the kind of ``describe(entry)``, without building the text (cheap, for filters)."""
    kind = entry.get("type")
    if kind != "message":
        return _TYPE_KINDS.get(kind, "other")  # type: ignore[arg-type]
    message = entry.get("message")
    if not isinstance(message, dict):
        return "other"
    role = _ROLE_KINDS.get(message.get("role"), "other")  # type: ignore[arg-type]
    if role == "assistant" and message.get("stopReason") in ("error", "aborted"):
        return describe(entry)[0]
    return role


_ORDINARY_STOPS = (None, "", "stop", "toolUse")


def textless_answer(entry: dict[str, Any]) -> bool:
    """An assistant message without any text that ended normally: only tool calls (or thinking,
    or nothing). Pi's tree leaves these out unless one is the current leaf; the tool results
    below name the calls. One that ended in an error, an abort or the length limit is kept."""
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "assistant":
        return False
    if message.get("stopReason") not in _ORDINARY_STOPS:
        return False
    content = message.get("content")
    if isinstance(content, str):
        return not content.strip()
    if not isinstance(content, list):
        return True
    return not any(isinstance(block, dict) and block.get("type") == "text" and str(block.get("text") or "").strip()
                   for block in content)


def describe(entry: dict[str, Any], call: dict[str, Any] | None = None) -> tuple[str, str]:
    """The kind and one-line text of an entry.

    Args:
        entry: A session entry in its JSON shape.
        call: For a tool result, the ``toolCall`` block it answers when known: the row names the
            call (``read(notes.md) ✓ …``), as Pi's tree does, since the answer that made the call
            is usually left out of the tree.

    Returns:
        ``(kind, text)``; kind is one of user, assistant, error, tool, bash, custom_message,
        compaction, branch_summary, system, model, thinking, label, info, custom, edit,
        usage, other.
    """
    kind = entry.get("type")
    if kind == "message":
        return _message(entry.get("message"), call)
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        size = f"{tokens / 1000:.1f}k tokens" if isinstance(tokens, (int, float)) else "?"
        return "compaction", f"[compaction: {size}] " + one_line(str(entry.get("summary", "")), 120)
    if kind == "branch_summary":
        return "branch_summary", "[branch summary] " + one_line(str(entry.get("summary", "")), 140)
    if kind == "model_change":
        return "model", f"[model: {entry.get('provider', '?')}/{entry.get('modelId', '?')}]"
    if kind == "thinking_level_change":
        return "thinking", f"[thinking: {entry.get('thinkingLevel', '?')}]"
    if kind == "label":
        label = entry.get("label")
        return "label", f"[label {entry.get('targetId', '?')}: {label}]" if label else \
            f"[label {entry.get('targetId', '?')} cleared]"
    if kind == "session_info":
        return "info", f"[name: {one_line(str(entry.get('name', '')), 80)}]"
    if kind == "custom":
        return "custom", f"[custom: {entry.get('customType', '?')}]"
    if kind == "custom_message":
        return "custom_message", f"[{entry.get('customType', 'custom')}] " + one_line(
            content_text(entry.get("content")))
    if kind == "context_edit":
        return "edit", f"[context edit: {entry.get('targetId', '?')}]"
    if kind == "usage":
        return "usage", f"[usage: {entry.get('kind', '?')}]"
    return "other", f"[{kind}]"
