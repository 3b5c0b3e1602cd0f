"""Summarise the branch a user leaves when moving elsewhere in the session tree (``/tree``).

The entries summarised run from the old leaf back to (not including) the deepest entry it
shares with the selected target, as in Pi: selecting an earlier message of the current path
summarises what came after it. When they do not all fit the token budget the newest are kept: what
happened last on a branch matters most. File lists accumulate, including those of branch
summaries nested in the abandoned branch.
"""

from __future__ import annotations

from typing import Any

from ..ai.abort import AbortSignal
from ..ai.types import Model
from ..session.context import context_edits, entry_message
from . import prompts
from .compaction import summarize
from .estimate import estimate_message_tokens
from .serialize import FileOps, serialize_conversation

Entry = dict[str, Any]
DEFAULT_RESERVE_TOKENS = 16_384


def collect_branch_entries(session_manager: Any, old_leaf_id: str, target_id: str | None) -> tuple[list[Entry], str | None]:
    """The abandoned entries between the old leaf and the common ancestor with the target.

    Args:
        session_manager: The ``SessionManager``.
        old_leaf_id: The leaf being left.
        target_id: Where the user goes (None: before the first entry).

    Returns:
        (entries root-first, common ancestor id or None).
    """
    old_path = session_manager.raw_branch(old_leaf_id)
    target_ids = {e.get("id") for e in session_manager.raw_branch(target_id)} if target_id else set()
    ancestor_index = -1
    for i in range(len(old_path) - 1, -1, -1):
        if old_path[i].get("id") in target_ids:
            ancestor_index = i
            break
    ancestor = old_path[ancestor_index]["id"] if ancestor_index >= 0 else None
    return old_path[ancestor_index + 1 :], ancestor


def prepare_branch_messages(entries: list[Entry], token_budget: int, edits: dict[str, Entry] | None = None
                            ) -> tuple[list[dict[str, Any]], FileOps]:
    """Messages to summarise (newest first until the budget is spent) and the file operations.

    Args:
        entries: Abandoned entries, root-first.
        token_budget: Most tokens of transcript to include (0: no limit).
        edits: Context edits in force on the old branch.

    Returns:
        (messages oldest-first, file operations of every entry).
    """
    file_ops = FileOps()
    chosen: list[dict[str, Any]] = []
    used = 0
    full = False
    for entry in reversed(entries):
        if entry.get("type") == "branch_summary" and not entry.get("fromHook"):
            file_ops.add_details(entry.get("details"))
        message = entry_message(entry, edits)
        if message is None or message.get("role") == "system":
            continue
        file_ops.add_messages([message])
        if full:
            continue  # older than what fits: its files still count, its text does not
        cost = estimate_message_tokens(message)
        if token_budget and used + cost > token_budget and chosen:
            full = True
            continue
        used += cost
        chosen.append(message)
    chosen.reverse()
    return chosen, file_ops


async def summarize_branch(session_manager: Any, old_leaf_id: str, target_id: str | None, model: Model, *,
                           api_key: str | None = None, headers: dict[str, str | None] | None = None,
                           instructions: str | None = None, signal: AbortSignal | None = None,
                           reserve_tokens: int = DEFAULT_RESERVE_TOKENS) -> dict[str, Any] | None:
    """Summarise the branch being left.

    Args:
        session_manager: The ``SessionManager`` (not modified; the caller appends the entry,
            e.g. with ``branch_with_summary``).
        old_leaf_id: The leaf being left.
        target_id: The entry selected in the tree (for a user message, not the parent the leaf
            moves to): as in Pi, it is shared with the old path when on it, so it is not summarised.
        model: Model that writes the summary.
        api_key: Credential.
        headers: Extra request headers.
        instructions: Custom focus.
        signal: Abort signal.
        reserve_tokens: Room left for the answer when budgeting the transcript.

    Returns:
        ``{"summary", "details", "usage", "fromId", "commonAncestorId"}``, or None when there is
        nothing on the abandoned branch to summarise.

    Raises:
        CompactionError: The request failed or was aborted.
    """
    entries, ancestor = collect_branch_entries(session_manager, old_leaf_id, target_id)
    edits = context_edits(session_manager.raw_branch(old_leaf_id))
    budget = max(0, model.context_window - reserve_tokens) if model.context_window else 0
    messages, file_ops = prepare_branch_messages(entries, budget, edits)
    if not messages:
        return None
    text, usage = await summarize(serialize_conversation(messages), prompts.BRANCH, model,
                                  instructions=instructions, api_key=api_key, headers=headers, signal=signal,
                                  label="Branch summarization")
    summary = prompts.BRANCH_PREAMBLE + text
    files = file_ops.render()
    if files:
        summary += "\n\n" + files
    return {"summary": summary, "details": file_ops.details(), "usage": usage, "fromId": old_leaf_id,
            "commonAncestorId": ancestor}
