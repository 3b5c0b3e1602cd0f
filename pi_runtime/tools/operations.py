"""The seams between the built-in tools and the machine they act on.

Every tool takes ``file_ops`` (and bash ``shell_ops``) so tests, containers or SSH backends
can swap the machine without touching the tools. File operations are synchronous and the
tools always call them from a worker thread, so a slow backend never blocks the event loop.
The defaults act on the local machine.
"""

from __future__ import annotations

import os
import shutil
import stat as stat_mod
import sys
from collections.abc import Callable, Mapping
from typing import BinaryIO, Protocol, runtime_checkable

from ..ai.abort import AbortSignal
from ..records import record
from .file_write import write_file_content


@record(frozen=True, slots=True)
class FileInfo:
    """What the tools need to know about a path."""

    is_dir: bool
    is_file: bool
    size: int


@runtime_checkable
class FileOperations(Protocol):
    """File system access used by read, edit, write, ls, find and grep's fallback."""

    def stat(self, path: str) -> FileInfo | None:
        """Follow symlinks; ``None`` when nothing is there."""
        ...

    def open_read(self, path: str) -> BinaryIO:
        """Open for streaming binary reads (read keeps only the lines it shows)."""
        ...

    def read_bytes(self, path: str) -> bytes: ...

    def write_bytes(self, path: str, data: bytes) -> None:
        """Replace a regular file's content (creating it); refuse anything else.

        Must not leave a half-written file behind, and must keep the file's mode, owner
        and hard links; raise ``NotRegularFileError`` for FIFOs, devices and sockets.
        """
        ...

    def mkdir(self, path: str) -> None:
        """Create the directory and its parents; fine if it exists."""
        ...

    def list_dir(self, path: str) -> list[str]:
        """Entry names (no ``.``/``..``), in any order."""
        ...

    def real_path(self, path: str) -> str:
        """Canonical path (symlinks resolved) used to key the mutation queue."""
        ...


class LocalFileOperations:
    """The local file system. Writes keep the file what it was (mode, owner, links) and never
    turn a FIFO or device into a regular file (see ``file_write``)."""

    def stat(self, path: str) -> FileInfo | None:
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return FileInfo(stat_mod.S_ISDIR(st.st_mode), stat_mod.S_ISREG(st.st_mode), st.st_size)

    def open_read(self, path: str) -> BinaryIO:
        return open(path, "rb")

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as fh:
            return fh.read()

    def write_bytes(self, path: str, data: bytes) -> None:
        write_file_content(path, data)

    def mkdir(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def list_dir(self, path: str) -> list[str]:
        return os.listdir(path)

    def real_path(self, path: str) -> str:
        return os.path.realpath(path)


# --------------------------------------------------------------------------- shell


@record(slots=True)
class ShellExit:
    """How a command ended."""

    exit_code: int | None
    """Shell exit status; a signal death is reported as 128 + signal number, like a shell."""
    timed_out: bool = False
    aborted: bool = False
    exited_after: float | None = None
    """Seconds until the shell itself exited, when it exited before a timeout fired
    (background processes kept the output open)."""


@runtime_checkable
class ShellOperations(Protocol):
    """Runs one shell command, streaming merged stdout+stderr bytes to ``on_data``."""

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: Mapping[str, str],
    ) -> ShellExit:
        """Run ``command``; raise ``ToolError`` when it cannot start (e.g. missing cwd).

        Must return (not raise) on abort or timeout, with the whole process tree gone.
        """
        ...


# --------------------------------------------------------------------------- ripgrep


def find_ripgrep() -> str | None:
    """Path to ``rg``: on PATH, or next to this interpreter (the ``ripgrep`` wheel puts it there).

    Returns:
        The executable path, or ``None`` when ripgrep is not installed.
    """
    found = shutil.which("rg")
    if found:
        return found
    for directory in {os.path.dirname(sys.executable), os.path.join(sys.prefix, "bin")}:
        candidate = os.path.join(directory, "rg")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
