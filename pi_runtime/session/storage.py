"""The session file on disk: tolerant loading, durable appends, a writer lock, migration.

Reading never fails on damage inside the file: blank lines are ignored, lines that are not
JSON objects are skipped and counted, and a last line without its newline that does not
parse (a crash in the middle of a write) is reported as torn. The next append then starts on a
fresh line so the damage stays confined to that one line. A file whose first valid line is not
a session header is refused with ``NotASessionFileError`` and never modified.

Writing (durable appends under a lock) is :mod:`pi_runtime.session.file_writer`'s; its errors and
the writer are named here too, as the session package's one face for its file.

Migration: version 1 (linear) and 2 files are rewritten as version 3 after copying the
original to ``<file>.v<N>.bak``.
"""

from __future__ import annotations

import shutil
from dataclasses import field
from pathlib import Path
from typing import Any

from .. import deep_json
from ..records import record
from .entries import CURRENT_SESSION_VERSION, gc_paused
from .file_writer import NotASessionFileError as NotASessionFileError
from .file_writer import SessionFileError as SessionFileError
from .file_writer import SessionLockedError as SessionLockedError
from .file_writer import SessionWriteError as SessionWriteError
from .file_writer import SessionWriter as SessionWriter
from .file_writer import dumps_line as dumps_line
from .file_writer import fsync_dir as fsync_dir
from .file_writer import write_whole as write_whole
from .paths import new_entry_id


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
