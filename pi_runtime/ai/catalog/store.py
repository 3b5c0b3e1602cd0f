"""``<agent dir>/models-store.json``: the live catalogues, in the file Pi keeps them in.

Pi and pi share the file. It maps a provider id to what the last refresh got::

    {"openai": {"models": [...Pi model objects...], "checkedAt": 1765000000000,
                "lastModified": 1765000000000, "etag": "\\"abc\\""}}

``checkedAt`` is when the source was last asked (Unix ms); ``lastModified`` and ``etag`` come
from pi.dev's answer (only pi.dev catalogues carry them). How each provider's entry overlays
the shipped catalogue is ``overlay.py``'s business.

Reading takes no lock: pi replaces the file atomically, and a half-written file (Pi writes in
place) reads as no overlay this time. Writing takes the lock Pi takes, a directory
``models-store.json.lock`` made with ``mkdir`` (the ``proper-lockfile`` protocol: a lock older
than 30 s is stale and may be broken), re-reads the file under it and changes one provider.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

STORE_NAME = "models-store.json"
LOCK_STALE_SECONDS = 30.0
"""Pi's ``FileModelsStore`` lock: a holder refreshes it, so one this old was abandoned."""

StoreEntry = dict[str, Any]
"""``{"models": [...], "checkedAt": ms, "lastModified"?: ms, "etag"?: str}``."""


class StoreError(Exception):
    """models-store.json could not be locked or written (the message names the file)."""


def store_path(agent_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<agent dir>/models-store.json`` (the agent dir of ``PI_CODING_AGENT_DIR`` when None)."""
    if agent_dir is None:
        from ...paths import agent_dir as default_agent_dir

        agent_dir = default_agent_dir()
    return Path(agent_dir) / STORE_NAME


_ENTRIES = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ENTRY = msgspec.json.Decoder(dict[str, Any])


def read_raw(path: Path) -> dict[str, msgspec.Raw]:
    """Each provider's entry, still undecoded (a provider's entry is decoded when it is used).

    A missing, empty or unreadable file is no overlay at all.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.strip():
        return {}
    try:
        return _ENTRIES.decode(data.lstrip(b"\xef\xbb\xbf"))
    except msgspec.DecodeError:
        return {}


def decode_entry(raw: msgspec.Raw | None) -> StoreEntry | None:
    """One provider's entry as a dict, or None when it is absent or not an object with models."""
    if raw is None:
        return None
    try:
        entry = _ENTRY.decode(raw)
    except msgspec.DecodeError:
        return None
    if not isinstance(entry.get("models"), list):
        return None
    return entry


def read_entry(path: Path, provider: str) -> StoreEntry | None:
    """``provider``'s entry in the file at ``path``, or None."""
    return decode_entry(read_raw(path).get(provider))


def update_entry(path: Path, provider: str, change: Callable[[StoreEntry | None], StoreEntry | None],
                 timeout: float = LOCK_STALE_SECONDS) -> StoreEntry | None:
    """Replace ``provider``'s entry with ``change(current)`` (None deletes it), under Pi's lock.

    Returns:
        The entry written (None when deleted).

    Raises:
        StoreError: The lock stayed held past ``timeout`` or the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with _DirLock(path, timeout):
        try:
            text = path.read_text(encoding="utf-8-sig")
            current = json.loads(text) if text.strip() else {}
        except FileNotFoundError:
            current = {}
        except (OSError, ValueError):
            current = {}  # a torn or foreign file: rebuilt rather than kept broken
        if not isinstance(current, dict):
            current = {}
        stored = current.get(provider)
        entry = change(stored if isinstance(stored, dict) and isinstance(stored.get("models"), list) else None)
        if entry is None:
            current.pop(provider, None)
        else:
            current[provider] = entry
        _atomic_write(path, json.dumps(current, indent=2, ensure_ascii=False))
    return entry


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp's mode is 0600, as Pi writes it
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StoreError(f"{path}: cannot write: {exc.strerror or type(exc).__name__}") from None


class _DirLock:
    """``<file>.lock`` as a directory, made with ``mkdir``: the lock Pi's proper-lockfile takes."""

    def __init__(self, target: Path, timeout: float) -> None:
        self.path = target.with_name(target.name + ".lock")
        self.timeout = timeout

    def __enter__(self) -> _DirLock:
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        while True:
            try:
                os.mkdir(self.path)
                return self
            except FileExistsError:
                if self._break_if_stale():
                    continue
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot lock: {exc.strerror or type(exc).__name__}") from None
            if time.monotonic() >= deadline:
                raise StoreError(f"{self.path}: another process holds the lock; try again")
            time.sleep(delay)  # another pi or Pi is writing; it holds the lock for milliseconds
            delay = min(delay * 2, 0.5)

    def _break_if_stale(self) -> bool:
        try:
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True  # released meanwhile: try again at once
        if age < LOCK_STALE_SECONDS:
            return False
        try:
            os.rmdir(self.path)
        except OSError as exc:
            if exc.errno not in (errno.ENOENT,):
                raise StoreError(f"{self.path}: a stale lock cannot be removed: {exc.strerror}") from None
        return True

    def __exit__(self, *exc: object) -> None:
        try:
            os.rmdir(self.path)
        except OSError:
            pass
