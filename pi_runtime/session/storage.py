"""The session file on disk: tolerant loading, durable appends, a writer lock, migration.

Reading never fails on damage inside the file: blank lines are ignored, lines that are not
JSON objects are skipped and counted, and a last line without its newline that does not
parse (a crash in the middle of a write) is reported as torn. The next append then starts on a
fresh line so the damage stays confined to that one line. A file whose first valid line is not
a session header is refused with ``NotASessionFileError`` and never modified.

Writing: each append is a single ``os.write`` of whole lines on an ``O_APPEND`` descriptor,
followed by an ``fsync`` on the writer's own thread unless durability is relaxed (the event loop
never waits for the disk; closing waits for the last one). An append that fails (a full disk) is cut
off again (``ftruncate`` to the size before it), so the file stays as it was and the failure
is raised as ``SessionWriteError``. A process that writes holds an exclusive
``flock`` on the file for as long as it has it open, so a second writer gets
``SessionLockedError`` instead of interleaving lines.

Migration: version 1 (linear) and 2 files are rewritten as version 3 after copying the
original to ``<file>.v<N>.bak``.
"""

from __future__ import annotations

import fcntl
import functools
import io
import os
import shutil
from dataclasses import field
from pathlib import Path
from typing import Any

from .. import deep_json
from ..records import record
from .entries import CURRENT_SESSION_VERSION, gc_paused
from .fsync_thread import Syncer
from .paths import new_entry_id


class SessionFileError(Exception):
    """A session file could not be used."""


class NotASessionFileError(SessionFileError):
    """The file is not empty but does not start with a session header."""


class SessionLockedError(SessionFileError):
    """Another process is writing to this session file."""


class SessionWriteError(SessionFileError):
    """An append failed (a full disk, an I/O error); the file was put back as it was."""


@record
class LoadResult:
    """What was read from one session file."""

    header: dict[str, Any] | None
    """None only for an empty file."""
    entries: list[dict[str, Any]]
    malformed_lines: int = 0
    """Lines skipped because they were not JSON objects (the torn tail included)."""
    torn_tail: bool = False
    """The last line had no newline and did not parse: a write was cut short."""
    missing_newline: bool = False
    """The file does not end with a newline (torn or not); the next append adds one first."""
    entry_lines: list[int] | None = None
    """The file line number of each of ``entries``; None when entry ``i`` is on line ``i + 2`` (or
    when ``lines_end`` is set: not counted yet)."""
    lines_end: int | None = None
    """Set when the read did not count the file's lines (the norm: a count of 20,000 lines costs as
    much as building their context): the length of the complete lines read. ``count_entry_lines``
    counts them when a line number is wanted (a notice), in the same bytes, which appends leave as
    they are."""
    migrated_from: int | None = None
    """The version the file had before migration, when it was migrated."""
    backup_path: Path | None = None
    warnings: list[str] = field(default_factory=list)


def dumps_line(data: dict[str, Any]) -> str:
    """One entry as Pi writes it: compact JSON, non-ASCII kept (any depth, see ``deep_json``)."""
    return deep_json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def parse_content(raw: bytes, source: str = "session file") -> LoadResult:
    """Parse the bytes of a session file.

    Args:
        raw: The whole file.
        source: Name used in error messages.

    Returns:
        The header, the entry dicts in file order and what was skipped.

    Raises:
        NotASessionFileError: When the file has content but no session header first.
    """
    end = raw.rfind(b"\n") + 1
    tail = raw[end:]  # b"" when the file ends with a newline
    result = LoadResult(header=None, entries=[], missing_newline=bool(tail.strip()))
    entries = result.entries
    bad: list[int] = []
    numbers: list[int] | None = None
    with gc_paused():
        decoded = _decode_whole_lines(raw, end)
        if decoded is not None:
            result.entries = entries = decoded
            result.lines_end = end
        else:
            lines = raw[:end].split(b"\n")
            lines.pop()  # the b"" after the last newline
            numbers = _parse_lines(lines, entries, bad)
            if numbers is not None:
                numbers.append(len(lines) + 1)  # the torn line's, should it hold an entry
    malformed = len(bad)
    if result.missing_newline:
        try:
            obj = deep_json.loads(tail)
        except ValueError:
            obj = None
        if type(obj) is dict:
            entries.append(obj)
        else:
            result.torn_tail = True
            malformed += 1
            result.warnings.append(f"{source}: last line is incomplete ({len(tail)} bytes), ignored")
    result.malformed_lines = malformed
    if bad:
        result.warnings.append(f"{source}: skipped {len(bad)} malformed line(s) "
                               f"({_lines_named(bad)}: not a JSON object)")
    if not entries:
        if malformed:
            raise NotASessionFileError(f"{source} is not a Pi session file (no valid session header)")
        return result
    first = entries[0]
    if first.get("type") != "session" or not isinstance(first.get("id"), str):
        raise NotASessionFileError(
            f"{source} is not a Pi session file: the first line is not a session header"
        )
    result.header = entries.pop(0)
    if numbers is not None:
        result.entry_lines = numbers[1:len(entries) + 1]
    return result


def count_entry_lines(result: LoadResult, raw: bytes) -> None:
    """Fill in ``result.entry_lines`` when the read left them uncounted (``lines_end``).

    Args:
        result: What ``parse_content`` read.
        raw: The file's bytes from its start, at least to ``result.lines_end`` (later appends
            change nothing before it).
    """
    end = result.lines_end
    if end is None:
        return
    result.lines_end = None
    lines = raw[:end].split(b"\n")
    lines.pop()
    # Every complete line held one object (the fast read checked it): the lines that are not blank.
    numbers = [number for number, line in enumerate(lines, 1) if line and not line.isspace()]
    numbers.append(len(lines) + 1)  # the torn line's, should it hold an entry
    if len(numbers) - 1 < len(lines):
        result.entry_lines = numbers[1:len(result.entries) + 1]


def _decode_whole_lines(raw: bytes, end: int) -> list[dict[str, Any]] | None:
    """Every line before ``end`` decoded in one msgspec call, when each holds one JSON object or
    nothing (the norm); None when a line is damaged, holds two objects or is nested too deep
    (then ``_parse_lines`` reads line by line and reports what it skips)."""
    # msgspec splits at the newlines itself (no copy of the file, no check per object: the
    # decoder refuses a line that is not an object). It passes over blank lines and reads two
    # objects on one line as two: as many objects as lines ending in "}" rules the second out (a
    # line ending in "} " or "}\r" just takes the slow path). Blank lines are read alike on both
    # paths; only the line numbers of the entries after them move (``count_entry_lines``).
    closed = raw.count(b"}\n", 0, end)
    if closed == 0:
        return None
    try:
        decoded = _line_decoder().decode_lines(memoryview(raw)[:end])
    except (ValueError, RecursionError):
        return None
    return decoded if len(decoded) == closed else None


_decoders: list[Any] = []


def _line_decoder() -> Any:
    """The ``msgspec.json.Decoder`` of one JSON object per line (built on first use)."""
    if not _decoders:
        import msgspec.json

        _decoders.append(msgspec.json.Decoder(dict))
    return _decoders[0]


def _decode_all(blob: bytes) -> Any:
    # msgspec decodes a whole file of plain JSON two to three times faster than ``json``
    # (and without pydantic-core's 18 ms import); what it refuses (NaN, a lone surrogate,
    # nesting past the recursion limit) falls back to line-by-line ``json`` below.
    import msgspec.json

    return msgspec.json.decode(blob)


def _parse_lines(lines: list[bytes], out: list[dict[str, Any]], bad: list[int]) -> list[int] | None:
    """Decode complete lines into ``out``, the numbers of lines that are not JSON objects into
    ``bad``; returns the file line number of each object, or None when object ``i`` is on line
    ``i + 1`` (no blank or bad line: the norm, and no list of 20,000 numbers to keep)."""
    present = [line for line in lines if line and not line.isspace()]
    try:
        # One decoder call for the whole file is two to three times as fast as one per line;
        # any damaged line, or nesting deeper than the decoder goes, makes it fail and we go
        # line by line.
        decoded = _decode_all(b"[" + b",".join(present) + b"]")
    except (ValueError, RecursionError):
        decoded = None
    if (decoded is not None and len(decoded) == len(present) == len(lines)
            and all(type(obj) is dict for obj in decoded)):
        out.extend(decoded)
        return None
    loads = deep_json.loads
    numbers: list[int] = []
    for number, line in enumerate(lines, 1):
        if not line or line.isspace():
            continue
        try:
            obj = loads(line)
        except ValueError:
            bad.append(number)
            continue
        if type(obj) is dict:
            out.append(obj)
            numbers.append(number)
        else:
            bad.append(number)
    return numbers


def _lines_named(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:5])) + (", …" if len(numbers) > 5 else "")
    return f"line {shown}" if len(numbers) == 1 else f"lines {shown}"


def migrate(header: dict[str, Any], entries: list[dict[str, Any]]) -> int | None:
    """Bring entries to the current version in place.

    v1 → v2 gives every entry an id and links it to the previous one (and turns a
    compaction's ``firstKeptEntryIndex`` into ``firstKeptEntryId``); v2 → v3 renames the
    ``hookMessage`` role to ``custom``.

    Args:
        header: The session header (its ``version`` is updated).
        entries: Entry dicts in file order.

    Returns:
        The original version when something changed, else None.
    """
    version = _version_number(header.get("version"))
    if version is None or version >= CURRENT_SESSION_VERSION:
        return None
    if version < 2:
        taken: set[str] = set()
        previous: str | None = None
        # Indexes in v1 counted the header as line 0.
        by_file_index = {i + 1: e for i, e in enumerate(entries)}
        for entry in entries:
            entry_id = new_entry_id(taken)
            taken.add(entry_id)
            entry["id"] = entry_id
            entry["parentId"] = previous
            previous = entry_id
        for entry in entries:
            if entry.get("type") == "compaction" and "firstKeptEntryIndex" in entry:
                target = by_file_index.get(entry.pop("firstKeptEntryIndex"))
                if target is not None:
                    entry["firstKeptEntryId"] = target["id"]
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
    header["version"] = CURRENT_SESSION_VERSION
    return int(version)


def _version_number(value: Any) -> float | None:
    """The header's ``version`` compared as Pi compares it (JavaScript turns ``"3"`` into 3).

    Missing or null counts as 1; a value that is no number at all (``"abc"``, an object) makes
    every comparison false in Pi, so the file is left as it is: None.
    """
    if value is None:
        return 1
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _backup_path(path: Path, version: int) -> Path:
    candidate = path.with_name(f"{path.name}.v{version}.bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.v{version}.{n}.bak")
        n += 1
    return candidate


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


def open_for_writing(path: Path, *, fsync: bool = True) -> tuple[SessionWriter | None, LoadResult]:
    """Lock an existing session file, read it, migrate it if old, and keep it open.

    Args:
        path: An existing file.
        fsync: Durability of later appends.

    Returns:
        The locked writer (None when the file was empty: the caller writes a new session
        there) and what was loaded.

    Raises:
        SessionLockedError: Another process holds the file.
        NotASessionFileError: The file is not a session (nothing is modified).
    """
    writer = SessionWriter(path, fsync=fsync)
    try:
        result = parse_content(writer.read_all(), str(path))
    except BaseException:
        writer.close()
        raise
    if result.header is None:
        return writer, result
    old = migrate(result.header, result.entries)
    if old is None:
        writer.needs_newline = result.missing_newline
        return writer, result
    result.migrated_from = old
    result.lines_end = None  # rewritten without blank lines: entry ``i`` is on line ``i + 2``
    result.backup_path = _backup_path(path, old)
    shutil.copy2(path, result.backup_path)
    write_whole(path, [result.header, *result.entries])
    writer.close()  # the lock was on the old inode
    return SessionWriter(path, fsync=fsync), result


def read_only(path: Path) -> LoadResult:
    """Load (and migrate in memory, without touching the file) a session for reading.

    Args:
        path: The file.

    Returns:
        The loaded content.
    """
    result = parse_content(path.read_bytes(), str(path))
    if result.header is not None:
        result.migrated_from = migrate(result.header, result.entries)
    return result
