"""Writing a session file: durable appends of whole lines under an exclusive lock.

Each append is a single ``os.write`` of whole lines on an ``O_APPEND`` descriptor, followed by an
``fsync`` on the writer's own thread unless durability is relaxed (the event loop never waits for
the disk; closing waits for the last one). An append that fails (a full disk) is cut off again
(``ftruncate`` to the size before it), so the file stays as it was and the failure is raised as
``SessionWriteError``. A process that writes holds an exclusive ``flock`` on the file for as long
as it has it open, so a second writer gets ``SessionLockedError`` instead of interleaving lines.
A whole file (a migration's rewrite) goes through a temporary file and an atomic rename.
"""

from __future__ import annotations

import fcntl
import functools
import io
import os
from pathlib import Path
from typing import Any

from .. import deep_json
from .fsync_thread import Syncer


class SessionFileError(Exception):
    """A session file could not be used."""


class NotASessionFileError(SessionFileError):
    """The file is not empty but does not start with a session header."""


class SessionLockedError(SessionFileError):
    """Another process is writing to this session file."""


class SessionWriteError(SessionFileError):
    """An append failed (a full disk, an I/O error); the file was put back as it was."""


def dumps_line(data: dict[str, Any]) -> str:
    """One entry as Pi writes it: compact JSON, non-ASCII kept (any depth, see ``deep_json``)."""
    return deep_json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def fsync_dir(directory: Path) -> None:
    """Make a new or renamed directory entry durable (best effort: not all systems allow it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_whole(path: Path, lines: list[dict[str, Any]], *, exclusive: bool = False) -> None:
    """Write a complete file through a temporary file and an atomic rename.

    Args:
        path: Destination.
        lines: Header and entries.
        exclusive: Refuse to replace an existing file.
    """
    if exclusive and path.exists():
        raise FileExistsError(f"{path} already exists")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    payload = "".join(dumps_line(d) + "\n" for d in lines).encode("utf-8")
    with open(tmp, "wb") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


class SessionWriter:
    """An open, locked session file that appends whole lines.

    Args:
        path: The file (created if missing).
        fsync: Call ``fsync`` after every append (the durable default).
        create_only: Fail with ``FileExistsError`` if the file already exists.
    """

    def __init__(self, path: Path, *, fsync: bool = True, create_only: bool = False) -> None:
        self.path = path
        self.fsync = fsync
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | (os.O_EXCL if create_only else 0)
        self._fd: int | None = None
        self._fd = os.open(path, flags, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise SessionLockedError(
                f"Session file {path} is in use by another pi process; close that one, or "
                f"continue in a copy: pi --fork {path}"
            ) from None
        self.needs_newline = False
        new_entry = functools.partial(fsync_dir, path.parent) if create_only else None
        self._syncer = Syncer(self._fd, new_entry) if fsync else None
        """Runs each append's ``fsync`` off the caller's thread (the event loop's)."""
        if new_entry is not None:
            if self._syncer is not None:
                self._syncer.request()  # the new directory entry, on the syncer's thread
            else:
                new_entry()

    @property
    def closed(self) -> bool:
        return self._fd is None

    def read_all(self) -> bytes:
        """The current file content to its end, read through the locked descriptor."""
        assert self._fd is not None
        # One read(2) returns at most 2,147,479,552 bytes on Linux: a bigger session would lose
        # its end (taken for a torn line). FileIO.readall reads until end of file, growing one
        # buffer in place. The shared file position does not matter: appends use O_APPEND.
        with io.FileIO(self._fd, "r", closefd=False) as fh:
            fh.seek(0)
            return fh.readall()

    def append(self, items: list[dict[str, Any]], encoded: dict[int, str] | None = None) -> None:
        """Append entries as lines with one ``write``; when durable, an ``fsync`` follows on the
        syncer's thread (see ``fsync_thread``).

        Args:
            items: Entry dicts, each becoming one line.
            encoded: Lines already made with :func:`dumps_line`, by ``id()`` of their entry dict.

        Raises:
            SessionWriteError: The write failed (the file is cut back as it was), or an earlier
                ``fsync`` failed (the earlier lines may not be on disk; these are not written).
        """
        if self._fd is None:
            raise SessionFileError(f"Session file {self.path} is closed")
        self._raise_sync_error()
        known = encoded or {}
        text = "".join((known.get(id(d)) or dumps_line(d)) + "\n" for d in items)
        if self.needs_newline:
            # The file ends in a torn line: start ours on a fresh one.
            text = "\n" + text
        data = text.encode("utf-8")
        good = os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError as exc:
            self._restore(good)
            raise SessionWriteError(f"Could not save to {self.path}: {exc.strerror or exc}") from exc
        self.needs_newline = False
        if self._syncer is not None:
            self._syncer.request()

    def flush(self) -> None:
        """Wait until everything appended is on disk.

        Raises:
            SessionWriteError: An ``fsync`` failed.
        """
        if self._syncer is not None:
            self._syncer.wait()
        self._raise_sync_error()

    def _raise_sync_error(self) -> None:
        error = self._syncer.take_error() if self._syncer is not None else None
        if error is not None:
            raise SessionWriteError(f"Could not save to {self.path}: {error.strerror or error}") from error

    def _restore(self, size: int) -> None:
        """Cut a failed append off, so no half line stays behind to be glued to the next one."""
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, size)
            os.fsync(self._fd)
        except OSError:
            # Could not cut it: the file may end in a partial line; start the next on a fresh one.
            self.needs_newline = True

    def __del__(self) -> None:
        # A manager dropped without close() must not keep the file locked until exit.
        try:
            self.close()
        except OSError:
            pass

    def close(self) -> None:
        """Wait for the last ``fsync``, release the lock and close the file."""
        if self._fd is not None:
            if self._syncer is not None:
                self._syncer.close()  # the file is on disk before another process may take it
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None
