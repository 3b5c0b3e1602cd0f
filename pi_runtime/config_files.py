"""Reading the user's config files (settings.json, models.json, auth.json, keybindings.json, themes).

One helper for all of them, so a config path that is not a plain file can neither hang pi nor
fill its memory: the file is opened without blocking (a FIFO with no writer would otherwise
wait forever), anything that is not a regular file (a FIFO, ``/dev/zero``, a socket) is refused,
and so is a file larger than ``MAX_CONFIG_BYTES`` — checked before reading and again while
reading, for a file that grows. A missing file raises ``FileNotFoundError`` as usual; callers
treat that as "nothing configured".
"""

from __future__ import annotations

import os
import stat as stat_mod
from pathlib import Path

MAX_CONFIG_BYTES = 16 * 1024 * 1024
"""No config file is anywhere near this; a larger one is a mistake (or a device)."""


class ConfigFileError(OSError):
    """The path exists but is not something pi reads as a config file."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} is {reason}; it is not read")
        self.reason = reason
        """What the file is instead (``"a FIFO, not a regular file"``)."""


def describe_kind(mode: int) -> str:
    """What a file that is not a regular file is, for messages (``"a FIFO"``)."""
    if stat_mod.S_ISDIR(mode):
        return "a directory"
    if stat_mod.S_ISFIFO(mode):
        return "a FIFO"
    if stat_mod.S_ISCHR(mode):
        return "a character device"
    if stat_mod.S_ISBLK(mode):
        return "a block device"
    if stat_mod.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def read_config_bytes(path: str | os.PathLike[str], max_bytes: int = MAX_CONFIG_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (symlinks followed).

    Raises:
        FileNotFoundError: Nothing is there.
        ConfigFileError: It is a FIFO, device, socket or directory, or it is too large.
        OSError: It cannot be opened or read (permissions...).
    """
    shown = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except IsADirectoryError:
        raise ConfigFileError(shown, "a directory, not a file") from None
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise ConfigFileError(shown, f"{describe_kind(st.st_mode)}, not a regular file")
        if st.st_size > max_bytes:
            raise ConfigFileError(shown, f"{_size(st.st_size)}, more than the {_size(max_bytes)} a config file may be")
        parts: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, 1024 * 1024)
            if not chunk:
                return b"".join(parts)
            total += len(chunk)
            if total > max_bytes:
                raise ConfigFileError(shown, f"growing past the {_size(max_bytes)} a config file may be")
            parts.append(chunk)
    finally:
        os.close(fd)


def read_config_text(path: str | os.PathLike[str], max_bytes: int = MAX_CONFIG_BYTES) -> str:
    """``read_config_bytes`` decoded as UTF-8 (a byte-order mark is dropped).

    Raises:
        UnicodeDecodeError: Not UTF-8 text; plus everything ``read_config_bytes`` raises.
    """
    return read_config_bytes(path, max_bytes).decode("utf-8-sig")
