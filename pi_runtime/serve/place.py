"""Where a folder's ``pi serve`` listens, and the lock that keeps it to one server per folder.

The socket's name is derived from the folder and the agent dir (a hash of both), so a viewer
finds the server of the folder it runs in without asking anyone. It lives in a private
directory (mode 0700): ``$XDG_RUNTIME_DIR/pi`` when that exists (cleared at logout, on a tmpfs),
else ``<agent dir>/serve``; when that path is too long for a Unix socket (about 100 bytes),
``<tmp>/pi-<uid>``. The socket itself is mode 0600: only its owner can connect.

The lock is an ``flock`` on ``<socket>.lock``, held while the server runs (the kernel drops it when
the process dies, so a crashed server never blocks the next one). It records who holds it, so a
second ``pi serve`` for the same folder can say where the first one is.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import stat
import tempfile
from pathlib import Path
from typing import Any

MAX_SOCKET_PATH = 100
"""Longest socket path used (``sun_path`` holds 108 bytes on Linux, 104 on macOS)."""


class ServerPlaceError(Exception):
    """The server's place cannot be used (another server holds it, or a directory is not private)."""


def _private_dir(path: Path) -> Path:
    """``path``, created mode 0700 if missing; refused when someone else owns it or may write in it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = path.stat()
    if info.st_uid != os.getuid():
        raise ServerPlaceError(f"{path} belongs to another user; pi serve will not put its socket there")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        os.chmod(path, 0o700)
    return path


def socket_path(folder: str | os.PathLike[str], agent_dir: str | os.PathLike[str]) -> Path:
    """The socket of the server of ``folder`` (with ``agent_dir``'s sessions and settings).

    Nothing is created: a viewer computes the same path to find the server.
    """
    key = f"{os.path.realpath(folder)}\0{os.path.realpath(agent_dir)}".encode()
    name = hashlib.sha256(key).hexdigest()[:16] + ".sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) / "pi" if runtime and os.path.isdir(runtime) else Path(agent_dir) / "serve"
    path = base / name
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        path = Path(tempfile.gettempdir()) / f"pi-{os.getuid()}" / name
    return path


class ServerLock:
    """The one-server-per-folder lock (``<socket>.lock``), held until :meth:`release`.

    Raises:
        ServerPlaceError: Another live server holds it; the message says which one and where.
    """

    def __init__(self, sock: Path, folder: str) -> None:
        _private_dir(sock.parent)
        self.path = sock.with_name(sock.name + ".lock")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            pid = f" (pid {holder['pid']})" if holder.get("pid") else ""
            raise ServerPlaceError(
                f"a pi serve for {holder.get('folder') or folder} is already running{pid}; "
                f"its socket is {holder.get('socket') or sock}") from None
        self._fd: int | None = fd
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "socket": str(sock), "folder": folder}).encode())

    def release(self) -> None:
        """Let the next server start (the file stays: removing it could race with that server)."""
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = json.loads(os.read(fd, 65536) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def bind_socket(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``, mode 0600 from the moment it exists.

    A file already there is a socket a dead server left (the caller holds the lock): it is removed.
    """
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # the socket is created 0600: never connectable by others, even briefly
    try:
        sock.bind(os.fspath(path))
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(64)
    sock.setblocking(False)
    return sock
