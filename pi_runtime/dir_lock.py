"""A lock two programs share on one file: a ``<file>.lock`` directory, as Pi takes it.

Pi (through the ``proper-lockfile`` package) locks ``auth.json`` by creating the directory
``auth.json.lock`` and removing it when done; while it holds the lock it renews the directory's
modification time, and a lock not renewed for longer than its "stale" time (10 s, 30 s for a refresh)
belongs to a process that died and is taken over. pi takes the same lock the same way, so pi and Pi
never write auth.json at the same moment, and neither finds in the other's place something it
cannot remove (an earlier pi kept a plain file there, which Pi then refused to touch: "ENOTDIR";
such a file, when no pi holds it, is cleared away here).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

STALE = 30.0
"""Seconds without a renewal after which a lock is taken over: Pi's longest (it renews a lock held for
a token refresh only every 15 s, so a shorter limit would take a lock Pi still holds)."""
RENEW = 2.0
"""Seconds between renewals while held (well inside the shortest stale time Pi uses)."""
_POLL = 0.01


class LockTimeout(Exception):
    """Another process held the lock for longer than the timeout."""


class DirLock:
    """An exclusive lock on ``path`` (the lock directory ``<path>.lock``'s existence).

    Args:
        lock_path: The lock directory (``auth.json.lock`` beside the real, symlink-resolved file).
        timeout: Seconds to wait for another holder.
        stale: Seconds after which an unrenewed lock is considered abandoned.
    """

    def __init__(self, lock_path: Path, timeout: float, stale: float = STALE) -> None:
        self.path = lock_path
        self.timeout = timeout
        self.stale = stale
        self._stop: threading.Event | None = None
        self._renewer: threading.Thread | None = None

    def __enter__(self) -> DirLock:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                os.mkdir(self.path, 0o700)
                break
            except FileExistsError:
                if self._clear_abandoned():
                    continue
            if time.monotonic() >= deadline:
                raise LockTimeout(f"{self.path}: another process holds the lock")
            time.sleep(_POLL)
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew, args=(self._stop,), name="pi-lock-renew", daemon=True)
        self._renewer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        self._stop = self._renewer = None
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            pass  # taken over as stale meanwhile: nothing of ours is left to remove

    def _renew(self, stop: threading.Event) -> None:
        while not stop.wait(RENEW):
            try:
                os.utime(self.path)
            except OSError:
                return

    def _clear_abandoned(self) -> bool:
        """Remove a lock nobody holds any more; True when the way is clear to try again."""
        try:
            if not self.path.is_dir():
                return self._clear_old_file()
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True  # released between our attempt and this look
        if age <= self.stale:
            return False
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            pass
        except OSError:
            return False
        return True

    def _clear_old_file(self) -> bool:
        """An earlier pi's lock file (flock on a plain file): removed when no such pi holds it."""
        import fcntl

        try:
            fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)
        return True
