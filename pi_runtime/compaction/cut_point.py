"""Where to cut a path for compaction: keep about ``keepRecentTokens`` of recent context.

The cut is chosen on the context as the model sees it (Pi's session projection): after an
earlier compaction, the entries it kept and the entries that followed it, without the system
messages of the kept part (the compaction carries the prompt checkpoint instead). Walking back
from the newest entry, the estimated sizes add up until ``keepRecentTokens`` is reached; the
cut lands on the nearest entry at or after that point that starts a message the model can read
on its own (user, assistant, bash execution, custom message, summary), never on a tool result,
which must stay with the call that asked for it. Entries that add nothing to the context (model
or thinking changes, labels) just before the cut stay with the kept part. When the cut entry
does not start a turn, the turn is split: its beginning is summarised on its own.
"""

from __future__ import annotations

from typing import Any

from ..records import record
from ..session.context import entry_message
from .estimate import estimate_message_tokens

Entry = dict[str, Any]
CUT_ROLES = {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
TURN_START_ROLES = {"user", "bashExecution", "custom", "branchSummary", "compactionSummary"}


@record
class CutPoint:
    first_kept_index: int
    """Index (in the path) of the first entry kept verbatim."""
    turn_start_index: int
    """For a split turn, where its turn starts; -1 otherwise."""
    is_split_turn: bool


def _projected(path: list[Entry], start: int, end: int) -> list[int]:
    """The path indices in ``[start, end)`` that are part of the model's context, in order.

    The latest compaction entry and the system messages it kept are left out (the compaction's
    own checkpoint stands for them), as in Pi's projection.
    """
    latest = next((i for i in range(end - 1, start - 1, -1) if path[i].get("type") == "compaction"), -1)
    indices = []
    for i in range(start, end):
        entry = path[i]
        if i == latest:
            continue
        if i < latest and entry.get("type") == "message" and (entry.get("message") or {}).get("role") == "system":
            continue
        indices.append(i)
    return indices


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
    indices = _projected(path, start, end)
    messages = [entry_message(path[i], edits) for i in indices]
    is_compaction = [path[i].get("type") == "compaction" for i in indices]

    def role(k: int) -> str | None:
        message = messages[k]
        return None if message is None or is_compaction[k] else message.get("role")

    valid = [k for k in range(len(indices)) if role(k) in CUT_ROLES]
    if not valid:
        return CutPoint(start, -1, False)
    cut = valid[0]
    kept = 0
    for k in range(len(indices) - 1, -1, -1):
        message = messages[k]
        tokens = estimate_message_tokens(message) if message is not None else 0
        if tokens == 0:
            continue
        kept += tokens
        if kept >= keep_recent_tokens:
            cut = next((v for v in valid if v >= k), valid[-1])
            break
    # Entries that add nothing to the context (settings changes, labels) just before the cut stay.
    while cut > 0 and not is_compaction[cut - 1] and messages[cut - 1] is None:
        cut -= 1
    if role(cut) in TURN_START_ROLES:
        return CutPoint(indices[cut], -1, False)
    turn_start = next((k for k in range(cut, -1, -1) if role(k) in TURN_START_ROLES), -1)
    if turn_start < 0:
        return CutPoint(indices[cut], -1, False)
    return CutPoint(indices[cut], indices[turn_start], True)
