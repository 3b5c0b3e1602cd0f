"""Moving or deleting a session file only when no pi process is writing to it.

A pi that has a session open holds an exclusive ``flock`` on its file for as long as it writes
(see ``storage.SessionWriter``). A file moved away under it keeps being written where it went
(the trash), so the session is lost from every list. Taking the same lock before the move
refuses that case, and keeps another pi from opening the file while it is being moved.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from .storage import SessionLockedError


@contextlib.contextmanager
def held_for_removal(path: Path) -> Iterator[None]:
    """Hold ``path``'s writer lock for the block (a move to the trash, a delete).

    Raises:
        SessionLockedError: Another pi session (another process, or another tab of this one)
            has the file open for writing; nothing was done.
        OSError: The file cannot be opened (missing, permissions).
    """
    # O_NONBLOCK: a FIFO put where a session was must not hang the picker.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SessionLockedError(
                f"{path.name} is open in another pi session, which is still writing to it; "
                "close that session first") from None
        yield
    finally:
        os.close(fd)  # releases the lock
