"""Finding and importing extensions (the finding itself is in ``discovery.py``).

An extension is a Python module file (``name.py``) or a package folder (with
``__init__.py``) that defines ``def extension(pi): ...``. Sources, in load order:

1. ``<agent dir>/extensions/`` (global), one level deep;
2. ``<cwd>/.pi/extensions/``, only when the project is trusted;
3. the ``extensions`` lists of the settings files (global, then project when trusted);
4. ``-e/--extension`` paths (always, even with ``--no-extensions``).

``builtin:<name>`` names one of the bundled extensions (``builtin:permission-gate``).
The same file is loaded once. Nothing here raises for a bad extension: a path that does
not exist or a module that fails to import becomes a :class:`LoadFailure` with the path and
a short traceback summary, and loading goes on with the next one.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from ..records import record
from .discovery import BUILTIN_PREFIX as BUILTIN_PREFIX
from .discovery import BUNDLED as BUNDLED
from .discovery import SettingsFiles, find_extensions


@record(frozen=True, slots=True)
class ExtensionSource:
    """Where one extension comes from."""

    path: str
    """Absolute path of the module/package, or ``builtin:<name>``."""
    scope: str
    """``global``, ``project``, ``settings``, ``cli``, ``builtin`` or ``sdk``."""


@record(frozen=True, slots=True)
class LoadFailure:
    """An extension that could not be loaded (start-up continues without it)."""

    path: str
    """The module, package or setting entry."""
    error: str
    """What went wrong: the exception and the extension's own frames."""


def discover_extensions(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    *,
    settings: SettingsFiles | None = None,
    project_trusted: bool = True,
    paths: Iterable[str] = (),
    no_extensions: bool = False,
) -> tuple[list[ExtensionSource], list[LoadFailure]]:
    """List the extensions to load, in load order: ``discovery.find_extensions`` (the arguments are
    its own), as records. Returns the sources, and failures for entries that do not exist."""
    found, missing = find_extensions(cwd, agent_dir, settings=settings, project_trusted=project_trusted,
                                     paths=paths, no_extensions=no_extensions)
    return [ExtensionSource(path, scope) for path, scope in found], [LoadFailure(path, error) for path, error in missing]


def _module_name(path: str) -> str:
    stem = re.sub(r"\W", "_", Path(path).stem if not path.endswith("__init__.py") else Path(path).parent.name)
    return f"pi_extension_{hashlib.sha1(path.encode()).hexdigest()[:10]}_{stem}"


def import_extension(path: str) -> ModuleType:
    """Import one extension module or package (a fresh module object each call).

    Args:
        path: A ``.py`` file, a package folder, or ``builtin:<name>``.

    Returns:
        The module.

    Raises:
        Exception: Whatever importing raised (see :func:`summarize_error`).
    """
    if path.startswith(BUILTIN_PREFIX):
        return importlib.import_module(BUNDLED[path[len(BUILTIN_PREFIX):]])
    target = Path(path)
    name = _module_name(path)
    if target.is_dir():
        spec = importlib.util.spec_from_file_location(
            name, target / "__init__.py", submodule_search_locations=[str(target)]
        )
    else:
        spec = importlib.util.spec_from_file_location(name, target)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before running so a package's relative imports find their parent.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def forget_modules(paths: Iterable[str]) -> None:
    """Drop the modules of these extensions (and their submodules) so the next import runs them afresh."""
    names = set()
    for path in paths:
        if path.startswith(BUILTIN_PREFIX):
            module = BUNDLED.get(path[len(BUILTIN_PREFIX):])
            if module is not None:
                names.add(module)
        else:
            names.add(_module_name(path))
    for loaded in list(sys.modules):
        if loaded in names or any(loaded.startswith(name + ".") for name in names):
            del sys.modules[loaded]


def describe_load_error(exc: BaseException, path: str) -> str:
    """What went wrong while importing or setting up an extension (exits named as such)."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the extension called sys.exit() while loading"
    if isinstance(exc, KeyboardInterrupt):
        return "KeyboardInterrupt while loading the extension"
    return summarize_error(exc, path)


def summarize_error(exc: BaseException, path: str | None = None, limit: int = 3) -> str:
    """``Type: message`` plus the last frames that belong to the extension.

    Args:
        exc: The exception.
        path: The extension's file or folder; its frames are preferred over pi's own.
        limit: How many frames to keep.

    Returns:
        A few lines, suitable for stderr and for ``extension_error.error``.
    """
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    frames = traceback.extract_tb(exc.__traceback__)
    if path and not path.startswith(BUILTIN_PREFIX):
        root = str(Path(path).parent if Path(path).is_file() else path)
        # Only the extension's own frames help its author; pi's and importlib's are noise
        # (a SyntaxError already names the line in its message).
        frames = [f for f in frames if f.filename.startswith(root)]  # type: ignore[assignment]
    lines = [f'  File "{f.filename}", line {f.lineno}, in {f.name}' for f in list(frames)[-limit:]]
    return "\n".join([head, *lines])
