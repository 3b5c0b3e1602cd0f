"""Where a restored session's custom entries (``pi.append_entry``) go among its messages, so an
extension's entry renderer draws them where they were appended.

Custom entries are no messages: the kernel's ``session.messages`` leaves them out. The session
context built from the file says which entry each message came from; walking the branch, a
custom entry belongs after the newest message seen before it (-1: before the first). When the
messages in memory do not line up with the file's context (never expected), nothing is placed
rather than something in the wrong spot.
"""

from __future__ import annotations

from typing import Any


def has_entry_renderers(session: Any) -> bool:
    """Whether any extension registered an entry renderer (else there is nothing to place)."""
    registry = getattr(getattr(session, "extension_runner", None), "registry", None)
    return any(getattr(ext, "entry_renderers", None) for ext in getattr(registry, "extensions", []) or [])


def custom_entries_by_message(session: Any, messages: list[Any]) -> dict[int, list[Any]]:
    """``{message index: [custom entries drawn after it]}`` for the session's branch."""
    if session is None or not has_entry_renderers(session):
        return {}
    try:
        manager = session.session_manager
        context = manager.build_session_context()
        branch = manager.get_branch()
    except Exception:  # noqa: BLE001 - a view aid: without it the entries are just not drawn
        return {}
    ids = list(context.entry_ids)
    dicts = context.message_dicts
    offset = len(ids) - len(messages)
    if offset not in (0, 1) or (offset == 1 and dicts[0].get("role") != "system"):
        return {}
    index = {entry_id: i for i, entry_id in enumerate(ids[offset:])}
    placed: dict[int, list[Any]] = {}
    last = -1
    for entry in branch:
        found = index.get(getattr(entry, "id", ""))
        if found is not None:
            # max(): kept messages come before the compaction entry in the file, after it on screen.
            last = max(last, found)
        elif getattr(entry, "type", None) == "custom":
            placed.setdefault(last, []).append(entry)
    return placed
