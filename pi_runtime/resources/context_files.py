"""Context files: AGENTS.md / CLAUDE.md instructions from the agent dir and the folders above cwd.

Each folder contributes at most one file, the first that exists of :data:`CANDIDATES`, so an
``AGENTS.override.md`` replaces the ``AGENTS.md`` next to it and nothing else. Folders are read
from the agent dir, then from the filesystem root down to cwd: outermost first, so the closest
instructions come last. Context files do not need project trust (as in Pi); ``-nc`` turns them off.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_runtime.resources.diagnostics import ResourceDiagnostic

from ..records import record

CANDIDATES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


@record(frozen=True, slots=True)
class ContextFile:
    """One loaded context file."""

    path: Path
    """Absolute path of the file."""
    content: str
    """Its text."""


def _pick(folder: Path) -> Path | None:
    names: set[str] | None = None
    for name in CANDIDATES:
        candidate = folder / name
        if not candidate.is_file():
            continue
        # Confirmed against the real listing: on a case-insensitive disk AGENTS.MD would otherwise
        # "exist" as a second spelling of AGENTS.md. Listed only where a candidate answered: every
        # folder from / down to cwd is searched, and listing /tmp or a full home folder cost
        # `pi -p` 17 ms.
        if names is None:
            try:
                names = set(os.listdir(folder))
            except OSError:
                return None
        if name in names:
            return candidate
    return None


def folders_to_search(cwd: Path, agent_dir: Path | None) -> list[Path]:
    """The folders searched, in load order: agent dir, then root down to cwd."""
    cwd = cwd.resolve()
    chain = [cwd, *cwd.parents]
    chain.reverse()
    return ([agent_dir.resolve()] if agent_dir is not None else []) + chain


def load_context_files(
    cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None
) -> tuple[list[ContextFile], list[ResourceDiagnostic]]:
    """Find and read the context files for ``cwd``.

    Args:
        cwd: Working directory.
        agent_dir: Agent dir, searched first; None to skip it.

    Returns:
        The files outermost first (a file reachable twice, e.g. through a symlink, once) and
        warnings for files that could not be read.
    """
    files: list[ContextFile] = []
    warnings: list[ResourceDiagnostic] = []
    seen: set[Path] = set()
    for folder in folders_to_search(Path(cwd), Path(agent_dir) if agent_dir is not None else None):
        path = _pick(folder)
        if path is None:
            continue
        real = path.resolve()
        if real in seen:
            continue
        seen.add(real)
        try:
            content = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            warnings.append(ResourceDiagnostic("context", path, f"cannot read context file ({exc})"))
            continue
        if content.strip():
            files.append(ContextFile(path=path, content=content.replace("\r\n", "\n").strip("\n")))
    return files, warnings
