"""Fast metadata for session pickers: list the sessions of a project or of every project.

A picker over a thousand sessions must not validate a thousand files. Each file is read once
as bytes and its lines are classified by cheap byte checks on the ``"type"`` prefix that Pi
and we always write first; only the header, the first user message, ``session_info`` lines
and the last user/assistant message are decoded with ``json.loads``. Lines written by other
tools (another key order) fall back to a full decode, so the counts stay right.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..records import record
from .paths import SESSION_FILE_SUFFIX, parse_iso, project_session_dir, session_id_from_file_name, sessions_root


@record
class SessionInfo:
    """One row of the session picker."""

    path: Path
    id: str
    cwd: str
    """Working directory the session was started in ("" for very old files)."""
    name: str | None
    """From the latest ``session_info`` entry; None when unnamed or cleared."""
    parent_session_path: str | None
    created: datetime
    modified: datetime
    """Time of the last user or assistant message (header time or file mtime without one)."""
    message_count: int
    first_message: str
    """Text of the first user message, ``(no messages)`` when there is none."""


_PREFIX = b'{"type":"'


def _line_type(line: bytes) -> tuple[str | None, Any]:
    """(entry type, decoded dict or None) for one line, decoding only when the prefix lies."""
    if line.startswith(_PREFIX):
        end = line.find(b'"', len(_PREFIX))
        if end > 0:
            return line[len(_PREFIX):end].decode("ascii", "replace"), None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # a line nested past the limit is only skipped here
        return None, None
    if type(obj) is not dict:
        return None, None
    return obj.get("type"), obj


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        # A damaged file's ``"text": 7`` is left out, not a failure of the whole listing.
        return " ".join(text for b in content
                        if isinstance(b, dict) and b.get("type") == "text" and isinstance(text := b.get("text"), str))
    return ""


def read_session_info(path: Path) -> SessionInfo | None:
    """Metadata of one session file, or None when it is not a session file.

    Args:
        path: A ``.jsonl`` file.

    Returns:
        The info, cheaply computed (see the module docstring).
    """
    try:
        raw = path.read_bytes()
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    first_nl = raw.find(b"\n")
    try:
        header = json.loads(raw if first_nl < 0 else raw[:first_nl])
    except (ValueError, RecursionError):  # a line nested past the limit is only skipped here
        return None
    if type(header) is not dict or header.get("type") != "session" or not isinstance(header.get("id"), str):
        return None
    body = raw[first_nl + 1 :] if first_nl >= 0 else b""
    if body and not body.endswith(b"\n"):
        tail_start = body.rfind(b"\n") + 1
        if _decode(body[tail_start:]) is None:  # a torn last line is not a message
            body = body[:tail_start]
    scan = _fast_scan(body) if body else (0, "", None, None)
    if scan is None:
        scan = _slow_scan(body)
    count, first_message, name, last_activity = scan
    created = parse_iso(header.get("timestamp", "")) or datetime.fromtimestamp(mtime, UTC)
    modified = _activity_time(last_activity) or created
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd := header.get("cwd"), str) else "",
        name=name,
        parent_session_path=parent if isinstance(parent, str) else None,
        created=created,
        modified=modified,
        message_count=count,
        first_message=first_message or "(no messages)",
    )


_MESSAGE_START = b'\n{"type":"message"'
_INFO_START = b'\n{"type":"session_info"'
_USER = b'"role":"user"'
_ASSISTANT = b'"role":"assistant"'


def _line_at(body: bytes, pos: int) -> tuple[int, bytes]:
    start = body.rfind(b"\n", 0, pos) + 1
    end = body.find(b"\n", pos)
    return start, body[start : end if end >= 0 else len(body)]


def _is_message(entry: dict[str, Any] | None, roles: tuple[str, ...]) -> bool:
    message = entry.get("message") if entry and entry.get("type") == "message" else None
    return isinstance(message, dict) and message.get("role") in roles


def _fast_scan(body: bytes) -> tuple[int, str, str | None, bytes | None] | None:
    """Whole-buffer byte searches when every line starts with ``{"type":"`` (files from Pi or us).

    Returns None when some line does not, so the caller classifies line by line.
    """
    padded = b"\n" + body
    lines = padded.count(b"\n") - (1 if padded.endswith(b"\n") else 0)
    if padded.count(b'\n{"type":"') != lines:
        return None
    count = padded.count(_MESSAGE_START)
    name: str | None = None
    pos = padded.find(_INFO_START)
    while pos >= 0:
        info = _decode(_line_at(padded, pos + 1)[1])
        if info is not None:
            value = info.get("name")
            name = value.strip() or None if isinstance(value, str) else None
        pos = padded.find(_INFO_START, pos + 1)
    first_message = ""
    pos = padded.find(_USER)
    while pos >= 0:
        start, line = _line_at(padded, pos)
        entry = _decode(line) if line.startswith(b'{"type":"message"') else None
        if _is_message(entry, ("user",)):
            first_message = _text_of(entry["message"])  # type: ignore[index]
            if first_message:
                break
        pos = padded.find(_USER, start + len(line))
    last: bytes | None = None
    end = len(padded)
    while end > 0:
        pos = max(padded.rfind(_USER, 0, end), padded.rfind(_ASSISTANT, 0, end))
        if pos < 0:
            break
        start, line = _line_at(padded, pos)
        if line.startswith(b'{"type":"message"') and _is_message(_decode(line), ("user", "assistant")):
            last = line
            break
        end = start
    return count, first_message, name, last


def _slow_scan(body: bytes) -> tuple[int, str, str | None, bytes | None]:
    """Line by line for files from other writers: every message line is decoded."""
    count = 0
    first_message = ""
    name: str | None = None
    last_activity: bytes | None = None
    for line in body.split(b"\n"):
        if not line:
            continue
        kind, obj = _line_type(line)
        if kind == "message":
            count += 1
            entry = obj if obj is not None else _decode(line)
            if not _is_message(entry, ("user", "assistant")):
                continue
            last_activity = line
            message = entry["message"]  # type: ignore[index]
            if not first_message and message.get("role") == "user":
                first_message = _text_of(message)
        elif kind == "session_info":
            info = obj if obj is not None else _decode(line)
            if info is not None:
                value = info.get("name")
                name = value.strip() or None if isinstance(value, str) else None
    return count, first_message, name, last_activity


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # a line nested past the limit is only skipped here
        return None
    return obj if type(obj) is dict else None


def _activity_time(line: bytes | None) -> datetime | None:
    if line is None:
        return None
    entry = _decode(line)
    if entry is None:
        return None
    message = entry.get("message")
    stamp = message.get("timestamp") if isinstance(message, dict) else None
    if isinstance(stamp, (int, float)) and stamp > 0:
        return datetime.fromtimestamp(stamp / 1000, UTC)
    return parse_iso(entry.get("timestamp", ""))


def session_files(directory: Path) -> list[Path]:
    """The ``.jsonl`` files directly inside a directory (none when it does not exist)."""
    try:
        with os.scandir(directory) as it:
            return [Path(e.path) for e in it if e.name.endswith(SESSION_FILE_SUFFIX) and e.is_file()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def list_sessions(cwd: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None) -> list[SessionInfo]:
    """Sessions started in ``cwd``, newest activity first.

    Args:
        cwd: Working directory.
        session_dir: Optional sessions root override.

    Returns:
        Session infos sorted by ``modified`` descending.
    """
    infos = [i for i in map(read_session_info, session_files(project_session_dir(cwd, session_dir))) if i]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def project_dirs(session_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every per-project folder under the sessions root."""
    root = sessions_root(session_dir)
    try:
        with os.scandir(root) as it:
            return [Path(e.path) for e in it if e.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def list_all_sessions(session_dir: str | os.PathLike[str] | None = None) -> list[SessionInfo]:
    """Sessions of every project, newest activity first.

    Args:
        session_dir: Optional sessions root override.

    Returns:
        Session infos sorted by ``modified`` descending.
    """
    infos: list[SessionInfo] = []
    for directory in project_dirs(session_dir):
        infos.extend(i for i in map(read_session_info, session_files(directory)) if i)
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def find_session_file(
    id_or_prefix: str, cwd: str | os.PathLike[str] | None = None, session_dir: str | os.PathLike[str] | None = None
) -> Path | None:
    """Find a session by full id or id prefix: the current project first, then all projects.

    Only file names are scanned (they carry the id); the header of a match is checked.

    Args:
        id_or_prefix: A session id or its beginning.
        cwd: Current project (searched first) or None.
        session_dir: Optional sessions root override.

    Returns:
        The most recently modified matching file, or None.
    """
    needle = id_or_prefix.strip().lower()
    if not needle:
        return None
    dirs = [project_session_dir(cwd, session_dir)] if cwd is not None else []
    groups = [dirs, [d for d in project_dirs(session_dir) if d not in dirs]]
    for group in groups:
        matches = []
        for directory in group:
            for file in session_files(directory):
                sid = session_id_from_file_name(file.name)
                if sid and sid.lower().startswith(needle) and header_id(file) == sid:
                    matches.append(file)
        if matches:
            exact = [m for m in matches if session_id_from_file_name(m.name).lower() == needle]  # type: ignore[union-attr]
            pool = exact or matches
            return max(pool, key=lambda p: p.stat().st_mtime)
    return None


def _header(path: Path) -> dict[str, Any] | None:
    """A session file's header line alone (None when it is not a session file)."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 20)
        header = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None
    if type(header) is dict and header.get("type") == "session" and isinstance(header.get("id"), str):
        return header
    return None


def header_id(path: Path) -> str | None:
    """The session id in a file's header line (None when it is not a session file)."""
    header = _header(path)
    return header["id"] if header is not None else None


def header_cwd(path: Path) -> str:
    """The working directory a session file's header records ("" when none or not a session file);
    only the first line is read, so a damaged message further down does not matter."""
    header = _header(path)
    cwd = header.get("cwd") if header is not None else None
    return cwd if isinstance(cwd, str) else ""


def newest_session_in(directory: Path) -> Path | None:
    """The newest valid session file in a folder by modification time, or None."""
    candidates = [p for p in session_files(directory) if header_id(p)]
    return max(candidates, key=lambda p: p.stat().st_mtime) if candidates else None
