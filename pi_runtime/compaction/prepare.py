"""Decide what a compaction summarises: the span, the cut, the previous summary, the files.

Repeated compactions summarise from the previous compaction's kept boundary (so messages
that survived it are folded into the new summary), or from just after it when that entry is
not on the path or the previous compaction kept nothing. Context edits are applied first:
an omitted message is neither summarised nor counted.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..ai.types import now_ms
from ..records import record
from ..session.context import context_edits, entry_message, select_entries
from .cut_point import find_cut_point
from .estimate import estimate_context_tokens
from .serialize import FileOps
from .settings import CompactionSettings

Entry = dict[str, Any]


@record
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[dict[str, Any]]
    """Whole user-message spans before the cut (wire dicts)."""
    turn_prefix_messages: list[dict[str, Any]]
    """For a split turn: the start of the span the cut falls in."""
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOps
    settings: CompactionSettings
    system_message: dict[str, Any] | None = None
    """The prompt/tool checkpoint at the boundary, when the path carries system messages."""
    branch_entries: list[Entry] = field(default_factory=list)


def _messages(path: list[Entry], lo: int, hi: int, edits: dict[str, Entry]) -> list[dict[str, Any]]:
    out = []
    for entry in path[lo:hi]:
        message = entry_message(entry, edits)
        if message is not None and message.get("role") != "system":
            out.append(message)
    return out


def _context_messages(path: list[Entry], edits: dict[str, Entry]) -> list[dict[str, Any]]:
    selected, compaction = select_entries(path)
    out: list[dict[str, Any]] = []
    if compaction is not None:
        out.append({"role": "compactionSummary", "summary": compaction.get("summary", "")})
    out.extend(m for m in (entry_message(e, edits) for e in selected) if m is not None)
    return out


def system_checkpoint(path: list[Entry]) -> dict[str, Any] | None:
    """Replay the system messages of a path into one complete system message.

    Sections are patched by name (null removes one), tools added and removed by name, and
    non-empty contents appended. The latest compaction's checkpoint is the starting point.

    Args:
        path: Root-first entries.

    Returns:
        The checkpoint, or None when the path has no system messages at all.
    """
    contents: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, Any] = {}
    found = False
    for entry in path:
        if entry.get("type") == "compaction" and isinstance(entry.get("systemMessage"), dict):
            contents, sections, tools, found = [], {}, {}, True
            message = entry["systemMessage"]
        elif entry.get("type") == "message" and isinstance(entry.get("message"), dict) \
                and entry["message"].get("role") == "system":
            found = True
            message = entry["message"]
        else:
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else "".join(
            b.get("text", "") for b in content or () if isinstance(b, dict))
        if text:
            contents.append(text)
        for name, value in (message.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for tool in message.get("toolsAdded") or ():
            if isinstance(tool, dict) and "name" in tool:
                tools[tool["name"]] = tool
        for tool in message.get("toolsRemoved") or ():
            if isinstance(tool, dict) and "name" in tool:
                tools.pop(tool["name"], None)
    if not found:
        return None
    checkpoint: dict[str, Any] = {"role": "system", "content": "\n\n".join(contents)}
    if sections:
        checkpoint["sections"] = sections
    checkpoint["toolsAdded"] = list(tools.values())
    checkpoint["timestamp"] = now_ms()
    return checkpoint


def prepare_compaction(path: list[Entry], settings: CompactionSettings) -> CompactionPreparation | None:
    """Work out a compaction of the active branch.

    Args:
        path: Root-first entry dicts of the active branch.
        settings: Resolved compaction settings.

    Returns:
        The preparation, or None when there is nothing to summarise (the session is too
        small, or was just compacted).
    """
    if not path or path[-1].get("type") == "compaction":
        return None
    edits = context_edits(path)
    previous = -1
    for i in range(len(path) - 1, -1, -1):
        if path[i].get("type") == "compaction":
            previous = i
            break
    start = 0
    previous_summary = None
    file_ops = FileOps()
    if previous >= 0:
        prev = path[previous]
        previous_summary = prev.get("summary")
        kept = prev.get("firstKeptEntryId")
        ids = [e.get("id") for e in path[:previous]]
        start = ids.index(kept) if kept in ids else previous + 1
        if not prev.get("fromHook"):
            file_ops.add_details(prev.get("details"))
    cut = find_cut_point(path, start, len(path), settings.keep_recent_tokens, edits)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    to_summarize = _messages(path, start, history_end, edits)
    prefix = _messages(path, cut.turn_start_index, cut.first_kept_index, edits) if cut.is_split_turn else []
    if not to_summarize and not prefix:
        return None
    file_ops.add_messages(to_summarize)
    file_ops.add_messages(prefix)
    return CompactionPreparation(
        first_kept_entry_id=path[cut.first_kept_index]["id"],
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=estimate_context_tokens(_context_messages(path, edits)) or 0,
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
        system_message=system_checkpoint(path),
        branch_entries=path,
    )
