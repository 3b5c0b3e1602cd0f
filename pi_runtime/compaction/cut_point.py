"""Where to cut a path for compaction: keep about ``keepRecentTokens`` of recent context.

A cut lands on an entry that starts a message the model can read on its own: a user,
assistant, bash-execution or custom message, or a branch summary. It never lands on a tool
result, which must stay with the assistant message that called the tool. When the cut falls
inside one user-message span (it lands on an assistant message) the turn is split: the span's
beginning is summarised separately from the older history.
"""

from __future__ import annotations

from typing import Any

from ..records import record
from ..session.context import entry_message
from .estimate import estimate_message_tokens

Entry = dict[str, Any]
CUT_ROLES = {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
SPAN_START_ROLES = {"user", "bashExecution", "custom", "branchSummary"}
_METADATA = {"model_change", "thinking_level_change", "label", "session_info", "custom", "usage"}


@record
class CutPoint:
    first_kept_index: int
    """Index (in the path) of the first entry kept verbatim."""
    turn_start_index: int
    """For a split turn, where its user-message span starts; -1 otherwise."""
    is_split_turn: bool


def _role(entry: Entry, edits: dict[str, Entry]) -> str | None:
    message = entry_message(entry, edits)
    return message.get("role") if message is not None else None


def find_cut_point(path: list[Entry], start: int, end: int, keep_recent_tokens: int,
                   edits: dict[str, Entry] | None = None) -> CutPoint:
    """Choose the first kept entry in ``path[start:end]``.

    Args:
        path: Root-first entry dicts of the active branch.
        start: First index that may be summarised (the previous compaction's kept boundary).
        end: One past the last entry.
        keep_recent_tokens: Recent tokens to keep.
        edits: Context edits in force (omitted messages count for nothing).

    Returns:
        The cut. ``first_kept_index == start`` means there is nothing to summarise.
    """
    edits = edits or {}
    roles = [_role(path[i], edits) for i in range(start, end)]
    valid = [start + k for k, r in enumerate(roles) if r in CUT_ROLES]
    if not valid:
        return CutPoint(start, -1, False)
    cut = valid[0]
    kept = 0
    for i in range(end - 1, start - 1, -1):
        message = entry_message(path[i], edits)
        if message is None:
            continue
        kept += estimate_message_tokens(message)
        if kept >= keep_recent_tokens:
            cut = next((v for v in valid if v >= i), valid[-1])
            break
    split = roles[cut - start] == "assistant"
    turn_start = -1
    if split:
        turn_start = start
        for j in range(cut - 1, start - 1, -1):
            if roles[j - start] in SPAN_START_ROLES:
                turn_start = j
                break
    # Settings changes and labels just before the cut stay with the kept part.
    while cut > start and cut - 1 > turn_start and path[cut - 1].get("type") in _METADATA:
        cut -= 1
    return CutPoint(cut, turn_start, split)
