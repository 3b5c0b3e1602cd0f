"""A compaction or branch summary an extension wrote itself (``session_before_compact`` returning
``compaction``, ``session_before_tree`` returning ``summary``).

Pi's custom-compaction example summarises with another model and hands the summary back; pi
records it as its own compaction would be, marked ``fromHook``. What the handler leaves out comes
from the cut pi worked out (``firstKeptEntryId``, ``tokensBefore``).
"""

from __future__ import annotations

from typing import Any

from .prepare import CompactionPreparation


class SuppliedCompactionError(ValueError):
    """The handler's ``compaction`` cannot be recorded."""


def _field(value: Any, snake: str, camel: str) -> Any:
    if isinstance(value, dict):
        return value.get(snake, value.get(camel))
    return getattr(value, snake, None)


def supplied_compaction(value: Any, prep: CompactionPreparation | None) -> dict[str, Any]:
    """The wire result (``summary``, ``firstKeptEntryId``, ``tokensBefore``, ``details``, ``usage``).

    Raises:
        SuppliedCompactionError: No summary text, or no entry to keep from.
    """
    summary = _field(value, "summary", "summary")
    if not isinstance(summary, str) or not summary.strip():
        raise SuppliedCompactionError("the extension's compaction has no summary text")
    first_kept = _field(value, "first_kept_entry_id", "firstKeptEntryId") or (prep and prep.first_kept_entry_id)
    if not isinstance(first_kept, str):
        raise SuppliedCompactionError("the extension's compaction names no firstKeptEntryId")
    tokens = _field(value, "tokens_before", "tokensBefore")
    if tokens is None:
        tokens = prep.tokens_before if prep is not None else 0
    if not isinstance(tokens, int) or isinstance(tokens, bool):
        raise SuppliedCompactionError("the extension's compaction has a tokensBefore that is not a number")
    result: dict[str, Any] = {"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": tokens}
    details = _field(value, "details", "details")
    if details is not None:
        result["details"] = details
    usage = _field(value, "usage", "usage")
    if usage is not None:
        result["usage"] = usage.to_wire() if hasattr(usage, "to_wire") else usage
    return result


def supplied_summary(value: Any) -> tuple[str, Any, Any]:
    """``(summary, details, usage)`` of a branch summary a ``session_before_tree`` handler wrote.

    Raises:
        SuppliedCompactionError: No summary text.
    """
    summary = _field(value, "summary", "summary")
    if not isinstance(summary, str) or not summary.strip():
        raise SuppliedCompactionError("the extension's branch summary has no summary text")
    usage = _field(value, "usage", "usage")
    return summary, _field(value, "details", "details"), usage.to_wire() if hasattr(usage, "to_wire") else usage
