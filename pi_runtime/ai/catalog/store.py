"""``<agent dir>/models-store.json``: the live catalogues, in the file Pi keeps them in.

Pi and pi share the file. It maps a provider id to what the last refresh got::

    {"openai": {"models": [...Pi model objects...], "checkedAt": 1765000000000,
                "lastModified": 1765000000000, "etag": "\\"abc\\""}}

``checkedAt`` is when the source was last asked (Unix ms); ``lastModified`` and ``etag`` come
from pi.dev's answer (only pi.dev catalogues carry them). How each provider's entry overlays
the shipped catalogue is ``overlay.py``'s business.

Reading takes no lock: pi replaces the file atomically, and a half-written file (Pi writes in
place) reads as no overlay this time. Writing takes the lock Pi takes (``pi_runtime.dir_lock``:
the directory ``models-store.json.lock``), re-reads the file under it and changes one provider.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

STORE_NAME = "models-store.json"
LOCK_TIMEOUT_SECONDS = 30.0
"""How long a write waits for Pi (or another pi) to finish writing."""

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
                 timeout: float = LOCK_TIMEOUT_SECONDS) -> StoreEntry | None:
    """Replace ``provider``'s entry with ``change(current)`` (None deletes it), under Pi's lock.

    Returns:
        The entry written (None when deleted).

    Raises:
        StoreError: The lock stayed held past ``timeout`` or the file cannot be written.
    """
    from ...dir_lock import DirLock, LockTimeout

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with DirLock(path.with_name(path.name + ".lock"), timeout):
            current = _read_for_update(path)
            stored = current.get(provider)
            entry = change(stored if isinstance(stored, dict) and isinstance(stored.get("models"), list) else None)
            if entry is None:
                current.pop(provider, None)
            else:
                current[provider] = entry
            _atomic_write(path, json.dumps(current, indent=2, ensure_ascii=False))
    except LockTimeout as exc:
        raise StoreError(f"{exc}; try again") from None
    return entry


def _read_for_update(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
        current = json.loads(text) if text.strip() else {}
    except (OSError, ValueError):
        current = {}  # missing, torn or foreign: rebuilt rather than kept broken
    return current if isinstance(current, dict) else {}


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
