"""A compaction or branch summary an extension wrote itself (``session_before_compact`` returning
``compaction``, ``session_before_tree`` returning ``summary``).

Pi's custom-compaction example summarises with another model and hands the summary back; pi
records it as its own compaction would be, marked ``fromHook``. What the handler leaves out comes
from the cut pi worked out (``firstKeptEntryId``, ``tokensBefore``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .prepare import CompactionPreparation


class SuppliedCompactionError(ValueError):
    """The handler's ``compaction`` cannot be recorded."""


def _field(value: Any, snake: str, camel: str) -> Any:
    if isinstance(value, dict):
        return value.get(snake, value.get(camel))
    return getattr(value, snake, None)


def _usage_wire(usage: Any, what: str) -> dict[str, Any] | None:
    """``usage`` as the session file stores it; a handler's garbage is refused, not written."""
    from ..ai.types import Usage

    if usage is None:
        return None
    if hasattr(usage, "to_wire"):
        usage = usage.to_wire()
    try:
        return Usage.model_validate(usage).to_wire()
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise SuppliedCompactionError(f"the extension's {what} has a usage that is not a usage object") from exc


def _json_details(details: Any, what: str) -> Any:
    """``details`` checked now: one that cannot become JSON would only fail when written."""
    from .. import deep_json

    try:
        deep_json.dumps(details)
    except (TypeError, ValueError) as exc:
        raise SuppliedCompactionError(f"the extension's {what} has details that cannot be saved as JSON ({exc})") from exc
    return details


def supplied_compaction(value: Any, prep: CompactionPreparation | None,
                        branch_ids: Collection[str] = ()) -> dict[str, Any]:
    """The wire result (``summary``, ``firstKeptEntryId``, ``tokensBefore``, ``details``, ``usage``).

    ``branch_ids`` are the entries on the active branch: the kept entry must be one of them, or
    the compaction would point readers (Pi included) at nothing.

    Raises:
        SuppliedCompactionError: No summary text, no entry to keep from, or a field of the wrong kind.
    """
    summary = _field(value, "summary", "summary")
    if not isinstance(summary, str) or not summary.strip():
        raise SuppliedCompactionError("the extension's compaction has no summary text")
    first_kept = _field(value, "first_kept_entry_id", "firstKeptEntryId") or (prep and prep.first_kept_entry_id)
    if not isinstance(first_kept, str):
        raise SuppliedCompactionError("the extension's compaction names no firstKeptEntryId")
    if first_kept not in branch_ids:
        raise SuppliedCompactionError(
            f"the extension's compaction keeps from {first_kept!r} (firstKeptEntryId), not an entry on this branch")
    tokens = _field(value, "tokens_before", "tokensBefore")
    if tokens is None:
        tokens = prep.tokens_before if prep is not None else 0
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
        raise SuppliedCompactionError(
            f"the extension's compaction has a tokensBefore that is not a whole number >= 0 ({tokens!r})")
    result: dict[str, Any] = {"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": tokens}
    details = _field(value, "details", "details")
    if details is not None:
        result["details"] = _json_details(details, "compaction")
    usage = _usage_wire(_field(value, "usage", "usage"), "compaction")
    if usage is not None:
        result["usage"] = usage
    return result


def supplied_summary(value: Any) -> tuple[str, Any, Any]:
    """``(summary, details, usage)`` of a branch summary a ``session_before_tree`` handler wrote.

    Raises:
        SuppliedCompactionError: No summary text, or a field of the wrong kind.
    """
    summary = _field(value, "summary", "summary")
    if not isinstance(summary, str) or not summary.strip():
        raise SuppliedCompactionError("the extension's branch summary has no summary text")
    details = _field(value, "details", "details")
    if details is not None:
        details = _json_details(details, "branch summary")
    return summary, details, _usage_wire(_field(value, "usage", "usage"), "branch summary")
