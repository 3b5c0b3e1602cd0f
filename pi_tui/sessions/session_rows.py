"""The ``/resume`` picker's logic without Textual: fuzzy search, sorting, ages, trash.

Works on ``SessionInfo`` rows from ``SessionManager.list`` / ``list_all`` (cheap metadata).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..transcript.entry_summary import one_line

SORTS = ("threaded", "recent", "name")
"""Ctrl+S cycles these; ``threaded`` (Pi's default) puts forks under the session they came from."""
TRASH_DIR = ".trash"
"""Folder inside a project's sessions folder that deleted sessions move to without send2trash.
The session listing reads only files directly in the project folder, so it never shows them."""


def fuzzy_score(query: str, text: str) -> float | None:
    """How well ``query`` matches ``text`` (higher is better), or None when it does not.

    Every whitespace-separated token must appear in order as a subsequence (case-insensitive);
    consecutive characters and matches at word starts score higher, gaps lower.
    """
    hay = text.lower()
    total = 0.0
    for token in query.lower().split():
        direct = hay.find(token)
        if direct >= 0:  # a plain substring beats any scattered match
            at_word = direct == 0 or not hay[direct - 1].isalnum()
            total += 10 * len(token) + (8 if at_word else 0) - direct * 0.01
            continue
        pos, score, prev = 0, 0.0, -2
        for ch in token:
            found = hay.find(ch, pos)
            if found < 0:
                return None
            score += 3 if found == prev + 1 else 1 - min((found - prev) * 0.05, 0.9)
            if found == 0 or not hay[found - 1].isalnum():
                score += 2
            prev, pos = found, found + 1
        total += score
    return total


def relative_age(then: datetime, now: datetime | None = None) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``2 d ago``, ``4 mo ago``, ``1 y ago``."""
    now = now or datetime.now(UTC)
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    seconds = max((now - then).total_seconds(), 0)
    for size, unit in ((365 * 86400, "y"), (30 * 86400, "mo"), (86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def title_of(info: Any) -> str:
    """The name when set, else the first user message, on one line."""
    return one_line(info.name or info.first_message or "(no messages)", 200)


def threaded(sessions: list[Any]) -> tuple[list[Any], dict[Path, str]]:
    """Forks under the session they were forked from, newest activity first at every level.

    Returns:
        The sessions in display order, and the tree guide of each fork (roots have none).
    """
    def key(path: Any) -> str:
        return os.path.realpath(str(path))

    by_path = {key(s.path): s for s in sessions}
    children: dict[str, list[Any]] = {}
    roots: list[Any] = []
    for s in sessions:
        parent = getattr(s, "parent_session_path", None)
        parent_key = key(parent) if parent else None
        if parent_key and parent_key in by_path and parent_key != key(s.path):
            children.setdefault(parent_key, []).append(s)
        else:
            roots.append(s)
    latest: dict[str, float] = {}

    def activity(s: Any, seen: frozenset[str] = frozenset()) -> float:
        k = key(s.path)
        if k not in latest:
            kids = [c for c in children.get(k, []) if key(c.path) not in seen]
            latest[k] = max([s.modified.timestamp(), *(activity(c, seen | {k}) for c in kids)])
        return latest[k]

    order: list[Any] = []
    prefixes: dict[Path, str] = {}

    def walk(s: Any, depth: int, guides: str, last: bool, seen: frozenset[str]) -> None:
        order.append(s)
        if depth:
            prefixes[s.path] = guides + ("└─ " if last else "├─ ")
        k = key(s.path)
        kids = sorted((c for c in children.get(k, []) if key(c.path) not in seen), key=activity, reverse=True)
        below = guides + (("   " if last else "│  ") if depth else "")
        for i, child in enumerate(kids):
            walk(child, depth + 1, below, i == len(kids) - 1, seen | {k})

    for root in sorted(roots, key=activity, reverse=True):
        walk(root, 0, "", True, frozenset())
    # A cycle of parents (a hand-edited file) leaves sessions unreached: show them as roots.
    reached = {key(s.path) for s in order}
    order += sorted((s for s in sessions if key(s.path) not in reached), key=lambda s: s.modified, reverse=True)
    return order, prefixes


def short_path(path: str, home: str | None = None) -> str:
    """``/home/me/project`` -> ``~/project``."""
    home = home if home is not None else str(Path.home())
    if home and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home):]
    return path


@dataclass
class PickerState:
    """The sessions of both scopes and how they are currently shown."""

    project: list[Any]
    """Sessions of this folder (``SessionManager.list``)."""
    everywhere: list[Any] | None = None
    """Sessions of every folder, loaded the first time the scope is switched (None until then)."""
    scope: str = "project"
    sort: str = "threaded"
    named_only: bool = False
    query: str = ""
    show_path: bool = False
    visible: list[Any] = field(default_factory=list)
    prefixes: dict[Path, str] = field(default_factory=dict)
    """Tree guides (``├─ ``, ``│  └─ ``) of forks shown under their parent (threaded order)."""
    cursor: int = 0
    snippets: dict[Path, str] = field(default_factory=dict)
    """For a search: the message line each hit matched in (shown under it)."""
    matcher: Any = None
    """``SessionMatcher`` of the search (made on the first query; it keeps the texts it read)."""

    @property
    def sessions(self) -> list[Any]:
        return self.everywhere if self.scope == "all" and self.everywhere is not None else self.project

    def refresh(self, keep: Path | bool | None = True) -> None:
        """Recompute the visible list.

        Args:
            keep: True keeps the cursor on the same session when it is still shown; a path
                puts it on that session; False or None goes to the top (a new search shows
                the best match first), None clamps the old index instead (after a delete).
        """
        old_index, old_path = self.cursor, self.current_path
        target = old_path if keep is True else keep if isinstance(keep, Path) else None
        rows = [s for s in self.sessions if s.name] if self.named_only else list(self.sessions)
        self.snippets = {}
        if self.query.strip():
            # As Pi: every message's text is searched, not just the name and first message.
            from pi_runtime.frontend import SessionMatcher, parse_query

            if self.matcher is None:
                self.matcher = SessionMatcher()
            query = parse_query(self.query)
            scored = []
            for info in rows:
                hit = self.matcher.match(info, query)
                if hit is not None:
                    scored.append((hit.score, info))
                    if hit.snippet is not None:
                        self.snippets[info.path] = hit.snippet
            if self.sort == "recent":  # Pi: the recent order only filters
                scored.sort(key=lambda pair: pair[1].modified, reverse=True)
            else:  # best match first; recency breaks ties
                scored.sort(key=lambda pair: (pair[0], -pair[1].modified.timestamp()))
            rows = [info for _, info in scored]
        elif self.sort == "name":
            rows.sort(key=lambda s: (title_of(s).lower(), -s.modified.timestamp()))
        elif self.sort == "threaded":
            rows, self.prefixes = threaded(rows)
        else:
            rows.sort(key=lambda s: s.modified, reverse=True)
        if self.sort != "threaded" or self.query.strip():
            self.prefixes = {}
        self.visible = rows
        paths = [info.path for info in rows]
        if target is not None and target in paths:
            self.cursor = paths.index(target)
        elif keep is None:
            self.cursor = min(old_index, max(len(rows) - 1, 0))
        else:
            self.cursor = 0

    @property
    def current(self) -> Any | None:
        return self.visible[self.cursor] if self.visible else None

    @property
    def current_path(self) -> Path | None:
        current = self.current
        return current.path if current is not None else None

    def move(self, delta: int) -> None:
        if self.visible:
            self.cursor = min(max(self.cursor + delta, 0), len(self.visible) - 1)

    def remove(self, path: Path) -> None:
        """Drop a deleted session from both scopes."""
        self.project = [s for s in self.project if s.path != path]
        if self.everywhere is not None:
            self.everywhere = [s for s in self.everywhere if s.path != path]
        self.refresh(keep=None)

    def replace(self, info: Any) -> None:
        """Put a re-read session (after a rename) in place of the old row in both scopes."""
        for group in (self.project, self.everywhere or []):
            for i, old in enumerate(group):
                if old.path == info.path:
                    group[i] = info
        self.refresh(keep=info.path)


def trash_session(path: Path, *, system_trash: bool = True) -> str:
    """Move a session file out of the way, recoverably; never a plain delete.

    Args:
        path: The ``.jsonl`` file.
        system_trash: Use the desktop trash through ``send2trash`` when it is installed.

    Returns:
        Where it went, for the status line.

    Raises:
        SessionLockedError: Another pi session is writing to it (it stays where it was).
        OSError: When it could not be moved (the file stays where it was).
    """
    from pi_runtime.frontend.app_support import held_for_removal

    # The writer's lock is held through the move: a session another pi writes to is refused
    # (it would go on writing into the trash), and none can open it while it moves.
    with held_for_removal(path):
        return _move_to_trash(path, system_trash)


def _move_to_trash(path: Path, system_trash: bool) -> str:
    if system_trash:
        try:
            from send2trash import send2trash
        except ImportError:
            pass
        else:
            send2trash(str(path))
            return "the system trash"
    folder = path.parent / TRASH_DIR
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    counter = 1
    while target.exists():  # a session deleted, restored and deleted again keeps both copies
        target = folder / f"{path.stem}.{counter}{path.suffix}"
        counter += 1
    shutil.move(str(path), str(target))
    return str(target)
