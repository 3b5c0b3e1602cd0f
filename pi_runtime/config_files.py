"""Reading the user's config files (settings.json, models.json, auth.json, keybindings.json, themes).

One helper for all of them, so a config path that is not a plain file can neither hang pi nor
fill its memory: the file is opened without blocking (a FIFO with no writer would otherwise
wait forever), anything that is not a regular file (a FIFO, ``/dev/zero``, a socket) is refused,
and so is a file larger than ``MAX_CONFIG_BYTES`` — checked before reading and again while
reading, for a file that grows. A missing file raises ``FileNotFoundError`` as usual; callers
treat that as "nothing configured".

What the file holds is parsed by :func:`parse_config_json`, which no file can crash: a number of
100,000 digits or arrays nested 100,000 deep (a stranger's clone can hold either) become one-line
warnings, and the rest of the file is used.
"""

from __future__ import annotations

import json
import os
import stat as stat_mod
from pathlib import Path
from typing import Any

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


# ----------------------------------------------------------------------------- JSON from a config file

MAX_CONFIG_DEPTH = 64
"""Arrays and objects inside each other: no config file needs more than a handful of levels;
deeper values are dropped (one warning each), so nothing later recurses through them."""
_MAX_NUMBER_DIGITS = 309
"""A longer integer is past any double (JavaScript reads it as Infinity); Python's ``int`` would
refuse it past 4,300 digits with a long message, and slowly before that."""


class ConfigJsonError(ValueError):
    """A config file is not JSON pi can read at all (the message is one line)."""


class DroppedValue:
    """A value left out of a config file: where it was and why. ``str()`` is the one-line message."""

    __slots__ = ("path", "reason")

    def __init__(self, path: tuple[str | int, ...], reason: str) -> None:
        self.path = path
        """Keys and list indexes from the top of the file to the value."""
        self.reason = reason

    def __str__(self) -> str:
        return f"{_path_text(list(self.path))}: {self.reason}; ignored"

    def inside(self, depth: int) -> str:
        """The message for whoever refuses the entry ``depth`` levels down (a server, a model):
        the path below that entry and the reason."""
        below = _path_text(list(self.path[depth:]))
        return f"{below}: {self.reason}" if below else self.reason

    def __repr__(self) -> str:
        return f"DroppedValue({self.path!r}, {self.reason!r})"


class _Dropped:
    """A value the parser refused (a huge number, ``NaN``); dropped with a warning afterwards."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _parse_int(text: str) -> int | _Dropped:
    digits = len(text) - (text[0] == "-")
    if digits > _MAX_NUMBER_DIGITS:
        return _Dropped(f"a number of {digits:,} digits, too large to use")
    return int(text)


def _parse_float(text: str) -> float | _Dropped:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        return _Dropped(f"a number too large to use ({text[:20]}…)" if len(text) > 20
                        else f"a number too large to use ({text})")
    return value


def _parse_constant(name: str) -> _Dropped:
    return _Dropped(f"{name}, which is not a JSON number")


def _path_text(path: list[str | int]) -> str:
    """Where a value is, as a person reads it (``providers.x.models[0].contextWindow``)."""
    from .text_safety import terminal_safe

    shown = path if len(path) <= 8 else path[:6]
    out = ""
    for part in shown:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = terminal_safe(part)
            name = name if len(name) <= 40 else name[:39] + "…"
            out += f".{name}" if out else name
    return out + ("…" if shown is not path else "")


def _screen(data: Any) -> list[DroppedValue]:
    """Drop refused values from ``data`` in place, one message each, and so values nested past
    ``MAX_CONFIG_DEPTH``: those go with the object member holding them (one setting, one
    message). Iterative: a deep value must not exhaust the stack here."""
    problems: list[DroppedValue] = []
    removed: set[int] = set()
    # (container, its path, its depth, the member holding it: (object, key, path length) or None,
    #  ids of the containers above it)
    Member = tuple[dict[Any, Any], Any, int] | None
    stack: list[tuple[Any, list[str | int], int, Member, tuple[int, ...]]] = [(data, [], 1, None, ())]
    while stack:
        node, path, depth, member, above = stack.pop()
        if any(i in removed for i in above):
            continue  # inside something already dropped
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        dropped: list[Any] = []
        for key, value in items:
            if isinstance(value, _Dropped):
                problems.append(DroppedValue((*path, key), value.reason))
                dropped.append(key)
            elif isinstance(value, dict | list) and value:
                holder = (node, key, len(path) + 1) if isinstance(node, dict) else member
                if depth < MAX_CONFIG_DEPTH:
                    stack.append((value, [*path, key], depth + 1, holder, (*above, id(node))))
                    continue
                too_deep = f"nested more than {MAX_CONFIG_DEPTH} levels deep"
                if holder is None:  # lists inside lists from the top: cut here
                    problems.append(DroppedValue((*path, key), too_deep))
                    dropped.append(key)
                    continue
                owner, name, length = holder
                if name in owner:
                    removed.add(id(owner[name]))
                    del owner[name]
                    problems.append(DroppedValue((*path[:length - 1], name), too_deep))
                if owner is not node:
                    dropped = []
                    break  # this container was inside what went: nothing more to screen here
        for key in reversed(dropped):  # list indexes from the end, so the earlier ones stay right
            if isinstance(node, list) or key in node:
                del node[key]
    return problems


def parse_config_json(text: str) -> tuple[Any, list[DroppedValue]]:
    """A config file's text as JSON, made safe to use: what a stranger's file can hold must
    neither stop pi nor reach code that cannot take it.

    A number too large for any setting (hundreds of digits, ``1e999``) and ``NaN``/``Infinity``
    are dropped, and so is a value nested more than ``MAX_CONFIG_DEPTH`` levels deep (read up to
    about 100,000 levels, see ``deep_json``): each gives one message naming where it was (``"theme: a number of 100,000 digits, too large to use;
    ignored"``) and the rest of the file is used.

    Returns:
        The data (None for a blank text) and what was left out (``str()`` of each is its message).

    Raises:
        ConfigJsonError: Not JSON, or nested too deeply to read at all; a one-line message.
    """
    if not text.strip():
        return None, []
    from . import deep_json

    try:
        # Past the recursion limit, deep_json reads on a thread with a large stack: a value
        # nested 100,000 deep is then dropped like any other, instead of losing the whole file.
        data = deep_json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        raise ConfigJsonError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError:  # deeper than even deep_json follows
        raise ConfigJsonError("invalid JSON: arrays or objects nested too deeply to read") from None
    if isinstance(data, _Dropped):
        raise ConfigJsonError(f"{data.reason}, not a JSON object")
    if isinstance(data, dict | list):
        dropped = _screen(data)
        # Inside a file that is not an object nothing is used: the caller says that, alone.
        return data, dropped if isinstance(data, dict) else []
    return data, []


# ----------------------------------------------------------------------------- JSON object files


def atomic_write_json(path: Path, data: Any, indent: int | str = 2) -> None:
    """Write ``data`` as indented JSON so that readers see the old or the new file, never half.

    Args:
        path: Destination; its folder is created if missing.
        data: JSON-serialisable data.
        indent: Spaces, or the indentation text (a file's own, kept when it is rewritten).
    """
    import tempfile  # only when writing (4 ms of imports that --help and reads never need)

    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            # Keep the user's permissions (settings may be kept private).
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json_object(path: Path, dropped: list[DroppedValue] | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """Read a JSON object from ``path`` (hardened: see ``config_files.parse_config_json``).

    Args:
        path: The file.
        dropped: Receives one message per value left out (a number of 100,000 digits, a value
            nested hundreds deep), each starting with the key's path.

    Returns:
        ``({}, None)`` when the file is missing, ``(data, None)`` when it parses, and
        ``(None, problem)`` when it cannot be read or is not a JSON object.
    """
    try:
        text = read_config_text(path)
    except FileNotFoundError:
        return {}, None
    except ConfigFileError as exc:
        return None, f"not read: it is {exc.reason}"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read the file ({exc})"
    try:
        data, problems = parse_config_json(text)
    except ConfigJsonError as exc:
        return None, str(exc)
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, f"expected a JSON object, found {type(data).__name__}"
    if dropped is not None:
        dropped.extend(problems)
    return data, None


def read_json_object_to_rewrite(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``read_json_object`` for a file about to be written back: a file holding a value pi had to
    leave out is not rewritten without it (the user's text is not lost)."""
    dropped: list[DroppedValue] = []
    data, problem = read_json_object(path, dropped)
    if data is not None and dropped:
        return None, f"it holds a value pi cannot keep ({dropped[0]})"
    return data, problem
