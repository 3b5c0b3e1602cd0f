"""Writing a session's entries to its file, and what happens when the disk refuses them.

A save that fails (a full disk) never raises into the conversation: the file is put back as it
was, the entries stay in memory and are written, in order, with the next append or when the
session closes; ``save_error``/``unsaved_count`` say what is missing and ``take_notices`` gives
the one-line reports (also for lines skipped when the file was loaded) for a front end to show.
"""

from __future__ import annotations

import builtins
from pathlib import Path

from . import storage
from .context import Entry


class SessionSaving:
    """Mixin of ``SessionManager``: the host owns the entries, the header and the file's path."""

    persist: bool
    fsync: bool
    path: Path | None
    header: Entry
    save_error: str | None
    _entries: builtins.list[Entry]
    _writer: storage.SessionWriter | None
    _flushed: bool
    _has_conversation: bool
    _unsaved: builtins.list[Entry]
    _first_save_failed: bool
    _notices: builtins.list[str]

    def _flush_if_ready(self) -> None:
        if not self.persist or self._flushed or not self._has_conversation or self.path is None:
            return
        try:
            if self._writer is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._writer = storage.SessionWriter(self.path, fsync=self.fsync, create_only=True)
            self._writer.append([self.header, *self._entries])
        except (storage.SessionWriteError, OSError) as exc:
            self._first_save_failed = True
            self._save_failed(exc)
            return
        self._first_save_failed = False
        self._flushed = True
        self._saved()

    def _write(self, entries: builtins.list[Entry], encoded: dict[int, str] | None = None) -> None:
        if not self.persist:
            return
        batch = [*self._unsaved, *entries]
        try:
            if self._writer is None:
                assert self.path is not None
                self._writer = storage.SessionWriter(self.path, fsync=self.fsync)
            self._writer.append(batch, encoded)
        except (storage.SessionWriteError, OSError) as exc:
            # Kept in memory, in order, so their parents are on disk before them once saving
            # works again: nothing written before becomes unreachable.
            self._unsaved = batch
            self._save_failed(exc)
            return
        self._unsaved = []
        self._saved()

    def _save_failed(self, exc: BaseException) -> None:
        message = str(exc) if isinstance(exc, storage.SessionFileError) else (
            f"Could not save to {self.path}: {getattr(exc, 'strerror', None) or exc}")
        if self.save_error is None:
            self._notices.append(f"{message}; the session goes on in memory and saving is tried again "
                                 "with the next entry")
        self.save_error = message

    def _saved(self) -> None:
        if self.save_error is not None:
            self._notices.append(f"Session saved again to {self.path}")
        self.save_error = None

    @property
    def unsaved_count(self) -> int:
        """Entries that exist in memory but could not be written (0 when the file is complete)."""
        if not self.persist:
            return 0
        if not self._flushed:
            return len(self._entries) + 1 if self._first_save_failed else 0  # the header too
        return len(self._unsaved)

    def take_notices(self) -> builtins.list[str]:
        """One-line reports nobody has shown yet: lines skipped on load, failed and resumed saves."""
        notices, self._notices = self._notices, []
        return notices

    def save_pending(self) -> None:
        """Try once more to write the entries an earlier save could not (the disk may have room
        again); a session that closes with some still unwritten loses them."""
        if not self.persist or self.save_error is None:
            return
        if not self._flushed:
            self._flush_if_ready()
        elif self._unsaved:
            self._write([])
