"""One guard for every directory walk: each folder entered once, and only so many of them.

A folder can be reached again through a symlink (``skills/loop -> .``) or a bind mount; two
such loops make the number of paths grow as 2^40 before the kernel's 40-link limit stops any
one of them, so a walk that follows links without remembering where it has been never ends.
The guard remembers folders by device and inode (what a link or a mount cannot disguise) and
stops a walk after ``limit`` folders, so even a tree that is merely enormous ends.
"""

from __future__ import annotations

import os

DEFAULT_FOLDER_LIMIT = 10_000
"""Folders one resource walk enters at most: far more than any skills or package tree has."""


class WalkGuard:
    """Decides whether a walk may enter a folder.

    Args:
        limit: How many folders the walk may enter in all.
    """

    def __init__(self, limit: int = DEFAULT_FOLDER_LIMIT) -> None:
        self.limit = limit
        self._seen: set[tuple[int, int]] = set()
        self.stopped = False
        """True once a folder was refused because ``limit`` was reached (the walk is incomplete)."""
        self.repeats = 0
        """Folders refused because they were entered before (a link or mount loop)."""

    def enter(self, path: str | os.PathLike[str]) -> bool:
        """Whether to walk into ``path`` (links followed): False for a folder already entered,
        one that cannot be looked at, and any folder past the limit."""
        try:
            st = os.stat(path)
        except OSError:
            return False
        key = (st.st_dev, st.st_ino)
        if key in self._seen:
            self.repeats += 1
            return False
        if len(self._seen) >= self.limit:
            self.stopped = True
            return False
        self._seen.add(key)
        return True

    def note(self) -> str | None:
        """What to say when the walk stopped early (None when it saw everything it could)."""
        if self.stopped:
            return f"stopped after {self.limit:,} folders; the rest is not read"
        return None
