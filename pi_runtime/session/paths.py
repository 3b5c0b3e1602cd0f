"""Where session files live and how they are named, plus the ids and timestamps in them.

Layout (Pi's): ``<sessions>/--<cwd>--/<ISO time>_<session id>.jsonl`` where ``<sessions>`` is
``$PI_CODING_AGENT_SESSION_DIR`` or ``<agent dir>/sessions``; in ``<cwd>`` the leading path
separator is dropped and ``/``, ``\\`` and ``:`` become ``-``; in the time ``:`` and ``.``
become ``-``.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Container
from datetime import UTC, datetime
from pathlib import Path

from .. import paths as _agent_paths

SESSION_FILE_SUFFIX = ".jsonl"


def sessions_root(session_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding one sub-folder per working directory.

    Args:
        session_dir: An explicit override (``--session-dir`` or the ``sessionDir`` setting).

    Returns:
        The override when given, else ``$PI_CODING_AGENT_SESSION_DIR`` or
        ``<agent dir>/sessions``.
    """
    if session_dir is not None:
        return Path(session_dir).expanduser()
    return _agent_paths.sessions_dir()


def encode_cwd(cwd: str | os.PathLike[str]) -> str:
    """The directory name Pi uses for a working directory: ``--home-me-proj--``.

    Args:
        cwd: The session's working directory.

    Returns:
        The encoded folder name.
    """
    text = str(cwd)
    if text[:1] in ("/", "\\"):
        text = text[1:]
    for ch in ("/", "\\", ":"):
        text = text.replace(ch, "-")
    return f"--{text}--"


def project_session_dir(cwd: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder where sessions started in ``cwd`` are stored (not created here).

    Args:
        cwd: Working directory.
        session_dir: Optional override of the sessions root.

    Returns:
        ``<sessions root>/--<encoded cwd>--``.
    """
    return sessions_root(session_dir) / encode_cwd(cwd)


def iso_now(ts: float | None = None) -> str:
    """An ISO 8601 UTC time with milliseconds and ``Z``, the shape JavaScript writes.

    Args:
        ts: Seconds since the epoch; now when omitted.

    Returns:
        For example ``2024-12-03T14:00:00.000Z``.
    """
    moment = datetime.fromtimestamp(time.time() if ts is None else ts, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_iso(value: str) -> datetime | None:
    """Parse an entry timestamp; None when it is not a valid ISO time."""
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<time with : and . replaced by ->_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}{SESSION_FILE_SUFFIX}"


def session_id_from_file_name(name: str) -> str | None:
    """The session id encoded in a file name, or None for names not in Pi's pattern."""
    if not name.endswith(SESSION_FILE_SUFFIX) or "_" not in name:
        return None
    return name[: -len(SESSION_FILE_SUFFIX)].split("_", 1)[1] or None


def new_session_id() -> str:
    """A UUIDv7 (time-ordered) as a string; Python 3.11's uuid module has no uuid7."""
    ms = int(time.time() * 1000) & ((1 << 48) - 1)
    # os.urandom is what secrets.token_bytes returns; importing secrets (hmac, its digests) cost
    # ~1 M instructions of every run for these two calls.
    rand = int.from_bytes(os.urandom(10), "big")
    rand_a = rand >> 68 & 0xFFF
    rand_b = rand & ((1 << 62) - 1)
    value = (ms << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


def new_entry_id(taken: Container[str]) -> str:
    """An 8-hex-digit entry id not yet in ``taken`` (falls back to a full UUID, as Pi does).

    Args:
        taken: Ids already used in this session.

    Returns:
        A fresh id.
    """
    for _ in range(100):
        candidate = os.urandom(4).hex()  # secrets.token_hex(4), without importing secrets
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())
