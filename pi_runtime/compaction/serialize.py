"""Turn messages into the plain transcript a summariser reads, and track file operations.

The transcript labels every turn (``[User]:``, ``[Assistant]:``, ``[Assistant tool calls]:``,
``[Tool result]:``) so the model reads it as a document to summarise rather than a chat to
continue. Thinking is left out; tool results are cut to 2,000 characters.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .. import deep_json
from ..records import record
from .estimate import as_dict

TOOL_RESULT_LIMIT = 2_000
READ_TOOLS = {"read"}
WRITE_TOOLS = {"write", "edit"}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        b = as_dict(block)
        if b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") == "image":
            parts.append("[image]")
    return "\n".join(p for p in parts if p)


def _truncate(text: str, limit: int = TOOL_RESULT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters truncated]"


def _call(block: dict[str, Any]) -> str:
    args = block.get("arguments") or {}
    rendered = ", ".join(f"{k}={deep_json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return f"{block.get('name', '?')}({rendered})"


def serialize_conversation(messages: list[Any]) -> str:
    """The labelled plain-text transcript of some messages.

    Args:
        messages: ``AgentMessage`` objects or wire dicts.

    Returns:
        Blocks separated by blank lines.
    """
    out: list[str] = []
    for message in messages:
        m = as_dict(message)
        role = m.get("role")
        if role == "user" or role == "custom":
            text = _text(m.get("content"))
            if text:
                out.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = [as_dict(b) for b in m.get("content") or ()]
            text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text"))
            calls = [_call(b) for b in blocks if b.get("type") == "toolCall"]
            if text:
                out.append(f"[Assistant]: {text}")
            if calls:
                out.append(f"[Assistant tool calls]: {'; '.join(calls)}")
        elif role == "toolResult":
            text = _truncate(_text(m.get("content")))
            if text:
                out.append(f"[Tool result]: {text}")
        elif role == "bashExecution" and not m.get("excludeFromContext"):
            output = _truncate(m.get("output", ""))
            out.append(f"[User]: Ran `{m.get('command', '')}`\n{output}".rstrip())
        elif role == "compactionSummary":
            out.append(f"[User]: Summary of the earlier conversation:\n{m.get('summary', '')}")
        elif role == "branchSummary":
            out.append(f"[User]: Summary of a branch explored earlier:\n{m.get('summary', '')}")
    return "\n\n".join(out)


@record
class FileOps:
    """Files read and modified by tool calls, accumulated across summaries."""

    read: set[str] = field(default_factory=set)
    modified: set[str] = field(default_factory=set)

    def add_messages(self, messages: list[Any]) -> None:
        """Record the ``read``/``write``/``edit`` calls of assistant messages, and those a tool made
        itself (a codemode script's), which its result message records as ``nestedCalls`` (Pi 1.6)."""
        for message in messages:
            m = as_dict(message)
            role = m.get("role")
            if role == "assistant":
                for block in m.get("content") or ():
                    b = as_dict(block)
                    if b.get("type") == "toolCall":
                        self._add_call(b.get("name"), b.get("arguments"))
            elif role == "toolResult":
                nested = m.get("nestedCalls")
                for call in (nested.get("calls") if isinstance(nested, dict) else None) or ():
                    if isinstance(call, dict):
                        self._add_call(call.get("name"), call.get("arguments"))

    def _add_call(self, name: object, args: object) -> None:
        path = (args.get("path") or args.get("file_path")) if isinstance(args, dict) else None
        if not isinstance(path, str):
            return
        if name in READ_TOOLS:
            self.read.add(path)
        elif name in WRITE_TOOLS:
            self.modified.add(path)

    def add_details(self, details: Any) -> None:
        """Carry the lists stored in an earlier summary's ``details``."""
        if not isinstance(details, dict):
            return
        for key, target in (("readFiles", self.read), ("modifiedFiles", self.modified)):
            value = details.get(key)
            if isinstance(value, list):
                target.update(v for v in value if isinstance(v, str))

    def details(self) -> dict[str, list[str]]:
        """``{"readFiles": [...], "modifiedFiles": [...]}``; a modified file is not also listed as read."""
        return {"readFiles": sorted(self.read - self.modified), "modifiedFiles": sorted(self.modified)}

    def render(self) -> str:
        """The ``<read-files>``/``<modified-files>`` blocks appended to a summary ("" when empty)."""
        d = self.details()
        parts = []
        if d["readFiles"]:
            parts.append("<read-files>\n" + "\n".join(d["readFiles"]) + "\n</read-files>")
        if d["modifiedFiles"]:
            parts.append("<modified-files>\n" + "\n".join(d["modifiedFiles"]) + "\n</modified-files>")
        return "\n\n".join(parts)
