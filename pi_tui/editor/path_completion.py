"""Tab completion of filesystem paths in the prompt editor (no Textual here: pure logic).

The token being completed is the run of non-blank characters before the cursor, where a
backslash-escaped blank (``My\\ Files``) belongs to the token, the way a shell reads it.
Relative tokens are resolved against the app's folder; ``~`` and absolute paths work too.
What is inserted keeps the user's spelling of the folder part (``~/``, ``../``) and escapes
blanks in the completed name, so the next Tab sees one token again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .completion_menu import Completion

MAX_CANDIDATES = 200
"""Listed in the menu at most (a huge folder would only slow the menu down)."""


@dataclass(frozen=True)
class PathCompletion:
    """What Tab does with a path token."""

    replacement: str
    """New text for the token (the unique match, or the matches' longest common prefix)."""
    candidates: list[Completion] = field(default_factory=list)
    """Several matches to list in the menu (empty when there was exactly one)."""


def token_start(before: str) -> int:
    """Where the token ending at the end of ``before`` starts (``\\ `` does not end it)."""
    index = len(before)
    while index > 0:
        char = before[index - 1]
        if char in " \t" and not _escaped(before, index - 1):
            break
        index -= 1
    return index


def _escaped(text: str, index: int) -> bool:
    """Whether the character at ``index`` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def unescape(token: str) -> str:
    """``My\\ Files`` -> ``My Files`` (a backslash keeps the character after it)."""
    out, index = [], 0
    while index < len(token):
        if token[index] == "\\" and index + 1 < len(token):
            index += 1
        out.append(token[index])
        index += 1
    return "".join(out)


def escape(name: str) -> str:
    """Backslash before blanks and backslashes, so the name stays one token."""
    return "".join("\\" + c if c in " \t\\" else c for c in name)


def _split(token: str) -> tuple[str, str]:
    """(folder part as typed, including its last ``/``; name part being completed)."""
    slash = token.rfind("/")
    return token[: slash + 1], token[slash + 1:]


def _folder(typed_folder: str, cwd: str) -> str:
    folder = os.path.expanduser(unescape(typed_folder)) if typed_folder else ""
    return os.path.join(cwd, folder) if not os.path.isabs(folder) else folder


def matches(token: str, cwd: str) -> list[tuple[str, bool]]:
    """Entries the token's name part starts, as (name, is folder), sorted by name.

    Hidden entries only match a name part that starts with ``.``; ``..`` itself matches
    ``..`` so ``..`` + Tab becomes ``../``.
    """
    typed_folder, typed_name = _split(token)
    name_part = unescape(typed_name)
    folder = _folder(typed_folder, cwd)
    found: list[tuple[str, bool]] = []
    if name_part == "..":
        found.append(("..", True))
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if not name.startswith(name_part) or (name.startswith(".") and not name_part.startswith(".")):
                    continue
                try:
                    is_dir = entry.is_dir()  # follows symlinks: a link to a folder continues into it
                except OSError:
                    is_dir = False
                found.append((name, is_dir))
                if len(found) >= MAX_CANDIDATES:
                    break
    except OSError:
        return found
    found.sort(key=lambda item: (item[0].lower(), item[0]))
    return found


def candidates(token: str, cwd: str) -> list[Completion]:
    """The menu entries for ``token``: the value replaces the token, folders end in ``/``."""
    return _menu_entries(token, matches(token, cwd))


def _menu_entries(token: str, found: list[tuple[str, bool]]) -> list[Completion]:
    typed_folder, _ = _split(token)
    out = []
    for name, is_dir in found:
        suffix = "/" if is_dir else ""
        out.append(Completion(typed_folder + escape(name) + suffix, name + suffix))
    return out


def complete(token: str, cwd: str) -> PathCompletion | None:
    """What Tab does with ``token`` (None: nothing matches, leave the text alone).

    Args:
        token: The text before the cursor back to the previous unescaped blank.
        cwd: The folder relative tokens are resolved against.

    Returns:
        One match: the full path (``/`` after a folder so Tab continues into it, a space
        after a file). Several: their longest common prefix plus the list for the menu.
    """
    if token == "~":
        return PathCompletion("~/")
    found = matches(token, cwd)
    if not found:
        return None
    typed_folder, _ = _split(token)
    if len(found) == 1:
        name, is_dir = found[0]
        return PathCompletion(typed_folder + escape(name) + ("/" if is_dir else " "))
    common = os.path.commonprefix([name for name, _ in found])  # noqa: RUF071 - a string prefix is what Tab inserts
    return PathCompletion(typed_folder + escape(common), _menu_entries(token, found))
