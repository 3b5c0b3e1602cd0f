"""The last messages of a session file's current branch, read from the end of the file.

Opening a session reads and validates every entry; a viewer that only wants to show the
end of a long conversation straight away (the app, while the session is still being
built) can read just the last few hundred kilobytes instead. The answer is only given when
it is certain to match what opening the session shows: the branch from the last entry
must be a plain run of messages back to the start of what was read, with no compaction or
branch summary in between (those change what the context holds).
"""

from __future__ import annotations

import json
import os
from typing import Any

_FIRST_READ = 256 * 1024
_MAX_READ = 8 * 1024 * 1024
_NOT_IN_CONTEXT = frozenset({"model_change", "thinking_level_change", "label", "session_info", "custom"})
"""Entries that add nothing to the messages shown; any other kind (a compaction, a branch
summary, an extension's message) makes the answer uncertain, so none is given."""


def read_branch_tail(path: str | os.PathLike[str], limit: int) -> list[dict[str, Any]] | None:
    """Up to ``limit`` message dicts (wire format, oldest first) ending at the file's last entry.

    Returns:
        The messages, or None when the file cannot be read, is not a session, or its end
        is not a plain run of messages (the caller then waits for the real session).
    """
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            want = _FIRST_READ
            while True:
                start = max(0, size - want)
                fh.seek(start)
                data = fh.read(size - start)
                found = _walk_back(data, from_start=start == 0, limit=limit)
                if found is not None or start == 0 or want >= _MAX_READ:
                    return found
                want *= 4
    except (OSError, ValueError):
        return None


class _NeedMore(Exception):
    """The branch goes back past what was read."""


def _walk_back(data: bytes, *, from_start: bool, limit: int) -> list[dict[str, Any]] | None:
    lines = data.split(b"\n")
    if not from_start:
        lines = lines[1:]  # the first line may be cut in half
    entries: dict[str, dict[str, Any]] = {}
    last: dict[str, Any] | None = None
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # a line nested past the limit is only skipped here
            continue  # a torn last line: opening the session skips it too
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            entries[entry["id"]] = entry
            last = entry
    if last is None:
        return [] if from_start else None
    try:
        return _branch_messages(entries, last, limit, complete=from_start)
    except _NeedMore:
        return None


def _branch_messages(entries: dict[str, dict[str, Any]], leaf: dict[str, Any], limit: int,
                     *, complete: bool) -> list[dict[str, Any]] | None:
    messages: list[dict[str, Any]] = []
    entry: dict[str, Any] | None = leaf
    while entry is not None and len(messages) < limit:
        kind = entry.get("type")
        if kind == "message" and isinstance(entry.get("message"), dict):
            messages.append(entry["message"])
        elif kind not in _NOT_IN_CONTEXT:
            return None
        parent = entry.get("parentId")
        if parent is None:
            break
        entry = entries.get(parent)
        if entry is None and not complete:
            raise _NeedMore
    messages.reverse()
    return messages

