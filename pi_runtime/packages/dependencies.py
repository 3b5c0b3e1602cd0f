"""A git or local package's Python dependencies, installed with pip into a folder of the package's own.

Pi runs ``npm install`` in a package it installs so that its extensions can import what they
declare, into the package's own ``node_modules``. A Python package declares its run-time needs in
``pyproject.toml`` (``[project] dependencies``) or a ``requirements.txt``; pi hands both to
``sys.executable -m pip install --target <agent dir>/deps/<package>-<hash>`` and puts that folder
at the end of ``sys.path`` when the package's extensions load, after pi's own modules: a dependency
cannot replace a module of pi (it once could: installed into pi's environment, a dependency wrote
``pi_runtime/zz_evil_marker.py`` into pi's installation). pip's own configuration applies
(``PIP_INDEX_URL``, ``PIP_FIND_LINKS``). pip runs the build code of a dependency that comes as
source (``setup.py``, a build backend); ``pi install`` says so before it starts.

A PyPI package needs none of this: ``pip install --target`` already brings its dependencies.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from ..records import record

REQUIREMENTS_FILE = "requirements.txt"


class DependencyError(Exception):
    """The dependencies could not be read or installed; the message says which and why."""


@record(frozen=True)
class Dependencies:
    """What a package root declares."""

    requirements: tuple[str, ...] = ()
    """PEP 508 strings from ``[project] dependencies``."""
    requirements_file: Path | None = None
    """``requirements.txt`` at the package root, when there is one."""

    def __bool__(self) -> bool:
        return bool(self.requirements) or self.requirements_file is not None

    def describe(self) -> str:
        """For progress lines: the requirements, then the file."""
        parts = list(self.requirements)
        if self.requirements_file is not None:
            parts.append(self.requirements_file.name)
        return ", ".join(parts)


def declared_dependencies(root: Path) -> Dependencies:
    """The dependencies ``root`` declares (empty for a single-file package or none declared).

    Raises:
        DependencyError: ``pyproject.toml`` cannot be read, or its ``dependencies`` is not a list of strings.
    """
    if not root.is_dir():
        return Dependencies()
    requirements: tuple[str, ...] = ()
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project") or {}
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
            # ValueError: an integer of 5,000 digits; RecursionError: arrays nested thousands deep.
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
            raise DependencyError(f"cannot read {pyproject}: {reason}") from None
        listed = project.get("dependencies", []) if isinstance(project, dict) else []
        if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
            raise DependencyError(f"{pyproject}: [project] dependencies must be a list of strings")
        requirements = tuple(item.strip() for item in listed if item.strip())
    requirements_file = root / REQUIREMENTS_FILE
    return Dependencies(requirements, requirements_file if requirements_file.is_file() else None)


def pip_install_command(dependencies: Dependencies, target: Path) -> list[str]:
    """The pip command installing ``dependencies`` into ``target`` (one resolver run for both sources)."""
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input",
               "--target", str(target)]
    command += list(dependencies.requirements)
    if dependencies.requirements_file is not None:
        command += ["-r", str(dependencies.requirements_file)]
    return command
