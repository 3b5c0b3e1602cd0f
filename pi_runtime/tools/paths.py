"""Turn a path argument from the model into an absolute path.

Models sometimes prefix paths with ``@`` (the editor's file-mention syntax), type ``~``, or
copy file names whose odd spaces got normalised on the way (macOS screenshot names contain
U+202F before AM/PM; some file systems store names decomposed). Relative paths resolve
against the tool's working directory, never the process's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

# Each exotic space becomes a plain one. A translation table rather than a regular expression:
# compiling that character class cost ~2.4 M instructions of every start-up (tools load with it).
_UNICODE_SPACES = dict.fromkeys((0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000), " ")
_NARROW_NBSP = "\u202f"


def expand_path(path: str) -> str:
    """Strip a leading ``@``, normalise exotic spaces and expand ``~``.

    Args:
        path: The raw argument.

    Returns:
        The expanded (still possibly relative) path.
    """
    if path.startswith("@"):
        path = path[1:]
    path = path.translate(_UNICODE_SPACES)
    if path == "~" or path.startswith("~/"):
        return os.path.expanduser("~") + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """Resolve ``path`` against ``cwd`` (absolute paths stay as they are).

    Args:
        path: The raw argument.
        cwd: The tool's working directory.

    Returns:
        A normalised absolute path (symlinks are not resolved).
    """
    expanded = expand_path(path)
    if not os.path.isabs(expanded):
        expanded = os.path.join(cwd, expanded)
    return os.path.normpath(expanded)


def _variants(path: str) -> list[str]:
    import unicodedata  # only for a path that was not found as typed

    out = [re.sub(r" (AM|PM)\.", _NARROW_NBSP + r"\1.", path)]
    out.append(unicodedata.normalize("NFD", path))
    out.append(path.replace("'", "\u2019"))
    return [v for v in out if v != path]


def resolve_read_path(path: str, cwd: str, exists: Callable[[str], bool] = os.path.exists) -> str:
    """Like :func:`resolve_to_cwd`, but try the spellings macOS file names often have.

    Args:
        path: The raw argument.
        cwd: The tool's working directory.
        exists: Existence check (the file operations' one, so remote backends work).

    Returns:
        The first variant that exists, or the plain resolution when none does.
    """
    resolved = resolve_to_cwd(path, cwd)
    if exists(resolved):
        return resolved
    for variant in _variants(resolved):
        if exists(variant):
            return variant
    return resolved
