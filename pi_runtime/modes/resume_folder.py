"""Resuming a session that was recorded in another folder: it runs in that folder, as in Pi 1.6.

A session's header records the working directory it was created in, and Pi runs the session
there: ``/resume`` of another project's session (the picker's "all" scope) rebuilds everything
bound to a folder (tools, ``@path`` references, context files, project settings, project
extensions, the trust decision) for the session's folder, from the same command line as the
first session (Pi's runtime factory closes over the command line and is called again for each
folder). When the recorded folder no longer exists, the user chooses: continue in the current
folder (asked again next time), fork the session into it, or cancel.

Front ends call :func:`where_to_resume` first, then :func:`build_resumed_session` in a worker
thread (it imports the folder's extensions), or :func:`fork_into` for the "fork" choice.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..cli_args import CliArgs

FolderKind = Literal["here", "elsewhere", "missing"]


@dataclass(frozen=True, slots=True)
class ResumeFolder:
    """Where a session file would run, seen from the folder of the session open now."""

    kind: FolderKind
    """``here`` (the same folder, or none recorded), ``elsewhere`` (another folder that exists)
    or ``missing`` (the recorded folder is gone)."""
    folder: str
    """The recorded folder (``here``: the current one)."""


def where_to_resume(path: str | os.PathLike[str], current: str) -> ResumeFolder:
    """Where the session file ``path`` runs when resumed from ``current``.

    Args:
        path: A session file.
        current: The working directory of the session open now.
    """
    from ..session.listing import header_cwd

    recorded = header_cwd(Path(path))
    if not recorded or _same_folder(recorded, current):
        return ResumeFolder("here", current)
    if not os.path.isdir(recorded):
        return ResumeFolder("missing", recorded)
    return ResumeFolder("elsewhere", recorded)


def missing_folder_choices(recorded: str, current: str) -> list[tuple[str | None, str]]:
    """Pi's question when the recorded folder is gone: ``(choice, label)``; choice None cancels."""
    return [
        ("continue", f"Continue in {current} (asks again next time)"),
        ("fork", f"Fork into {current} (new session ID, original kept)"),
        (None, "Cancel"),
    ]


def resume_args(args: CliArgs, path: str) -> CliArgs:
    """The command line the first session was built from, now opening the session file ``path``:
    what chose or started a session at start-up (``--continue``, ``--fork``, ``--name``, the
    first messages) does not apply again; everything else (models, tools, extensions, skills,
    ``--approve``) does, as Pi applies its command line to each session it opens."""
    return args.replaced(
        session=path, continue_=False, resume=False, fork=None, session_id=None, no_session=False,
        name=None, messages=[], files=[], print_mode=False, mode=None, export=[],
    )


def build_resumed_session(args: CliArgs, path: str, folder: str) -> Any:
    """Build a session for the file ``path`` running in ``folder`` (blocking: run it in a thread).

    Args:
        args: The command line the first session was built from (``resume_args`` is applied);
            its ``approve`` holds the trust decision for ``folder`` when the front end asked.
        path: The session file.
        folder: Where it runs: the recorded folder, or the current one when the user chose to
            continue a session whose folder is gone.

    Returns:
        The ``AgentSession`` (extensions loaded, not started).

    Raises:
        One of ``startup.user_errors()`` (a locked file, a broken file, a bad model choice).
    """
    from .startup import build_session

    return build_session(resume_args(args, path), cwd=folder)


def fork_into(path: str, folder: str, session_dir: str | None) -> str:
    """Copy the session file ``path`` into a new session of ``folder`` (the "fork" choice when the
    recorded folder is gone); returns the new file, which the caller then resumes."""
    from ..session.manager import SessionManager

    manager = SessionManager.fork_from(path, folder, session_dir)
    try:
        return str(manager.session_file)
    finally:
        manager.close()


def _same_folder(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)
