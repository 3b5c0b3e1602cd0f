"""Stored credentials: ``<agent dir>/auth.json`` in Pi's format.

The file maps a provider id to a credential::

    {"anthropic": {"type": "api_key", "key": "sk-ant-...", "env": {"NAME": "value"}},
     "openai-codex": {"type": "oauth", "access": "...", "refresh": "...", "expires": 0}}

A ``key`` may be literal, ``$NAME`` / a variable name, or ``!command`` (resolved like
models.json values, see ``pi_runtime.ai.credentials``). Entries this version does not
understand (newer types) are kept untouched on every write; OAuth entries are refreshed
through ``refresh_oauth`` (see ``pi_runtime.ai.oauth``).

Safety: the file is created with mode 0600 (an existing file keeps the mode its owner
gave it); every write takes the lock Pi takes (the directory ``auth.json.lock``, see
``dir_lock.py``), re-reads the file, applies the one change and replaces the file atomically
(temp file + fsync + rename), so two processes (pi or Pi) never lose each other's updates and a
crash never leaves half a file. A corrupt file is reported and never overwritten. Keys appear in no repr or message.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat as stat_mod
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import field
from pathlib import Path
from typing import Any

from .ai.credentials import is_resolvable_without_running, resolve_value
from .config_files import ConfigFileError, ConfigJsonError, parse_config_json, read_config_text
from .records import record

FILE_MODE = 0o600
DIR_MODE = 0o700


class AuthFileError(Exception):
    """auth.json cannot be read, parsed or written (the message never holds a key)."""


@record(frozen=True)
class StoredCredential:
    """One provider's entry. ``repr`` shows only the provider and the type."""

    provider: str
    type: str
    key: str | None = field(default=None, repr=False)
    """The configured key (``api_key`` type), unresolved: may be ``$NAME`` or ``!command``."""
    env: dict[str, str] = field(default_factory=dict, repr=False)
    """Provider-scoped environment overrides (Pi's ``env`` object)."""
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    """The whole entry as stored."""


class AuthStorage:
    """Read and update auth.json.

    Reads are cheap and see other processes' writes (the file is re-read when its mtime or
    size changes). A broken file makes reads return nothing and is listed in ``errors``.

    Args:
        path: The auth file; ``<agent dir>/auth.json`` when None.
        lock_timeout: Seconds a write waits for another process's lock.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, lock_timeout: float = 10.0):
        if path is None:
            from .paths import auth_path

            path = auth_path()
        self.path = Path(path)
        self.lock_timeout = lock_timeout
        self.errors: list[str] = []
        """Why the file could not be used on the last read (empty when fine)."""
        self._data: dict[str, Any] = {}
        self._stamp: tuple[int, int] | None = None
        self._loaded = False
        self._bursts = 0
        """How many ``lookups()`` blocks are open."""
        self._checked = False
        """The file was checked for a change in the open ``lookups()`` block."""

    def __repr__(self) -> str:
        return f"<AuthStorage {self.path} providers={self.list()}>"

    # ------------------------------------------------------------------ reading

    def _target(self) -> Path:
        # Write through a symlink to the real file, and lock by the real path so two agent
        # dirs sharing one auth.json share the lock too.
        return self.path.resolve()

    def _read_file(self) -> dict[str, Any]:
        """Parse the file now. Missing → {}; unreadable or invalid → AuthFileError."""
        try:
            text = read_config_text(self.path)
        except FileNotFoundError:
            return {}
        except ConfigFileError as exc:
            raise AuthFileError(str(exc)) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise AuthFileError(f"{self.path}: cannot read: {type(exc).__name__}") from None
        try:
            # Position only in a message (never the text around an error: it could be a key).
            data, dropped = parse_config_json(text)
        except ConfigJsonError as exc:
            raise AuthFileError(f"{self.path}: {exc}") from None
        if data is None:
            return {}
        if dropped:
            # Never rewritten without what was left out (a login would otherwise save the file
            # back without it): the file is refused with its first problem.
            raise AuthFileError(f"{self.path}: {dropped[0]}; fix or remove it")
        if not isinstance(data, dict):
            raise AuthFileError(f"{self.path}: must be an object keyed by provider id")
        return data

    def permission_problem(self) -> str | None:
        """A warning when the file can be read or written by group or others, else None.

        Like Pi, pi never changes the mode of an existing auth.json (an administrator may
        manage it); it says so instead, once per run, where the front end shows warnings.
        """
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        if not stat_mod.S_ISREG(st.st_mode) or not st.st_mode & 0o077:
            return None
        mode = stat_mod.S_IMODE(st.st_mode)
        return (f"{self.path} is accessible to other users (mode {mode:04o}); the keys in it are exposed. "
                f"Run: chmod 600 {self.path}")

    @contextmanager
    def lookups(self) -> Iterator[None]:
        """A burst of lookups (every provider's key, while a model is chosen or a list is made): the
        file is checked for a change at the first of them only, not once per provider (87 checks
        when pi chooses a model). A lookup after the block checks again, as every lookup does outside one."""
        self._bursts += 1
        try:
            yield
        finally:
            self._bursts -= 1
            if not self._bursts:
                self._checked = False

    def reload(self) -> None:
        """Re-read the file if it changed since the last read (once per ``lookups()`` block)."""
        if self._checked:
            return
        self._checked = self._bursts > 0
        try:
            st = self.path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        except OSError:
            stamp = (-1, -1)
        if self._loaded and stamp == self._stamp:
            return
        self._stamp, self._loaded = stamp, True
        try:
            self._data = self._read_file()
            self.errors = []
        except AuthFileError as exc:
            self._data = {}
            self.errors = [str(exc)]

    def get(self, provider: str) -> StoredCredential | None:
        """The stored entry for ``provider``, or None."""
        self.reload()
        entry = self._data.get(provider)
        if not isinstance(entry, dict):
            return None
        key = entry.get("key")
        env = entry.get("env")
        return StoredCredential(
            provider=provider,
            type=str(entry.get("type", "")),
            key=key if isinstance(key, str) and key else None,
            env={k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {},
            data=dict(entry),
        )

    def get_api_key(self, provider: str) -> str | None:
        """The usable key for ``provider``: a resolved ``api_key``, or an OAuth access token.

        Raises:
            CredentialError: The key is a ``!command`` that failed.
        """
        cred = self.get(provider)
        if cred is None:
            return None
        if cred.type == "api_key" and cred.key:
            # The entry's own env wins over the process environment for this provider.
            env = {**os.environ, **cred.env} if cred.env else None
            return resolve_value(cred.key, where=f"{self.path}: {provider}.key", env=env)
        if cred.type == "oauth":
            access = cred.data.get("access")
            return access if isinstance(access, str) and access else None
        return None

    def has_api_key(self, provider: str) -> bool:
        """Whether a usable key is stored, without running any ``!command``."""
        cred = self.get(provider)
        if cred is None:
            return False
        if cred.type == "api_key":
            env = {**os.environ, **cred.env} if cred.env else None
            return bool(cred.key) and is_resolvable_without_running(cred.key or "", env)
        return cred.type == "oauth" and bool(cred.data.get("access"))

    def list(self) -> list[str]:
        """Provider ids with a stored entry."""
        self.reload()
        return [p for p, entry in self._data.items() if isinstance(entry, dict)]

    # ------------------------------------------------------------------ writing

    def set_api_key(self, provider: str, key: str, env: dict[str, str] | None = None) -> None:
        """Store an API key (literal, ``$NAME`` or ``!command``) for ``provider``.

        Raises:
            AuthFileError: The file is corrupt, locked too long, or cannot be written.
        """
        if not key:
            raise ValueError("an API key must not be empty")
        entry: dict[str, Any] = {"type": "api_key", "key": key}
        if env:
            entry["env"] = dict(env)
        self.set(provider, entry)

    def set(self, provider: str, entry: dict[str, Any]) -> None:
        """Store a raw entry (e.g. an OAuth credential) for ``provider``, replacing any other.

        Raises:
            AuthFileError: The file is corrupt, locked too long, or cannot be written.
        """
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            raise ValueError("an auth entry must be an object with a string 'type'")
        self._update(lambda data: data.__setitem__(provider, dict(entry)))

    def remove(self, provider: str) -> bool:
        """Delete ``provider``'s entry (``/logout``).

        Returns:
            Whether there was one.
        """
        removed: list[bool] = []
        self._update(lambda data: removed.append(data.pop(provider, None) is not None))
        return bool(removed and removed[0])

    def update(self, provider: str, change: Callable[[dict[str, Any] | None], dict[str, Any] | None]) -> None:
        """Replace ``provider``'s entry with ``change(current entry or None)`` under the lock;
        a None result deletes it. Other entries are kept as they are on disk now.

        Raises:
            AuthFileError: The file is corrupt, locked too long, or cannot be written.
        """
        def apply(data: dict[str, Any]) -> None:
            current = data.get(provider)
            new = change(dict(current) if isinstance(current, dict) else None)
            if new is None:
                data.pop(provider, None)
            else:
                data[provider] = dict(new)

        self._update(apply)

    async def refresh_oauth(
        self,
        provider: str,
        needs_refresh: Callable[[dict[str, Any]], bool],
        refresh: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any] | None:
        """Replace ``provider``'s oauth entry with ``await refresh(entry)``, under the lock.

        The lock is taken (in a worker thread, so the event loop keeps running), the file is
        re-read and ``needs_refresh(entry)`` asked again: another process may have refreshed
        while this one waited, and then its entry is returned unchanged. The new entry is
        written atomically before the lock is released.

        Returns:
            The entry now stored, or None when no oauth entry is stored (logged out meanwhile).

        Raises:
            AuthFileError: The file is corrupt, locked too long, or cannot be written.
            Exception: Whatever ``refresh`` raised (nothing is written then).
        """
        target = self._target()
        target.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        lock = _lock(target, self.lock_timeout)
        await asyncio.to_thread(lock.__enter__)
        try:
            data = self._read_file()
            entry = data.get(provider)
            if not isinstance(entry, dict) or entry.get("type") != "oauth":
                return None
            if not needs_refresh(entry):
                return dict(entry)
            new = dict(await refresh(dict(entry)))
            new["type"] = "oauth"
            data[provider] = new
            _atomic_write_json(target, data)
        finally:
            lock.__exit__(None, None, None)
        self._loaded = False
        self.reload()
        return new

    def _update(self, change: Callable[[dict[str, Any]], Any]) -> None:
        target = self._target()
        target.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        with _lock(target, self.lock_timeout):
            data = self._read_file()  # fresh, under the lock: keeps others' updates
            change(data)
            _atomic_write_json(target, data)
        self._loaded = False
        self.reload()


def _lock(target: Path, timeout: float) -> Any:
    """The lock Pi takes on auth.json too (``dir_lock.py``), its timeout an AuthFileError."""
    import contextlib

    from .dir_lock import DirLock, LockTimeout

    @contextlib.contextmanager
    def held() -> Any:
        lock = DirLock(target.with_name(target.name + ".lock"), timeout)
        try:
            lock.__enter__()
        except LockTimeout:
            raise AuthFileError(f"{lock.path}: another process holds the auth lock; try again") from None
        try:
            yield lock
        finally:
            lock.__exit__()

    return held()


def _atomic_write_json(target: Path, data: dict[str, Any]) -> None:
    try:
        mode = target.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = FILE_MODE
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp creates 0600; an existing file keeps the mode its owner chose.
        if mode != FILE_MODE:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise AuthFileError(f"{target}: cannot write: {exc.strerror or type(exc).__name__}") from None
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # the rename is done; a directory fsync is best effort
