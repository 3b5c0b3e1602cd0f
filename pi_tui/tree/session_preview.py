"""The end of a resumed conversation on screen before the session is built.

Building a session for a long history takes a second or more (every entry is read and
validated); the app shows its first frame long before that. ``pi --session FILE`` and
``pi -c`` name the file up front, so the last messages of its current branch can be read
from the end of the file (``pi_runtime.session.tail``) and shown at once; when the session
arrives the transcript is loaded from it as usual and replaces the preview.

Only cases where the file is certain are previewed: an existing ``--session`` path, or
``--continue`` with the default session folder (no ``--session-dir`` flag or setting).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PREVIEW_MESSAGES = 30
"""Messages read for the preview (more than a screenful)."""


def may_preview(args: Any) -> bool:
    """Whether the command line opens an existing session (``--session``, ``-c``) that
    ``preview_file`` may find: a new session has nothing to show before it is built."""
    return bool(getattr(args, "session", None) or getattr(args, "continue_", False))


def preview_file(args: Any, agent_dir: Path, cwd: str) -> Path | None:
    """The session file the command line will open, when it is known without building it."""
    if getattr(args, "fork", None) or getattr(args, "no_session", False) or getattr(args, "session_dir", None):
        return None
    session = getattr(args, "session", None)
    if session:
        path = Path(session).expanduser()
        return path if path.is_file() else None
    if not getattr(args, "continue_", False):
        return None
    project = trusted_project_settings(args, agent_dir, cwd)
    if project is None or project.get("sessionDir") or read_json_object(agent_dir / "settings.json").get("sessionDir"):
        return None
    from pi_runtime.frontend import project_session_dir
    from pi_runtime.frontend.app_support import newest_session_in

    return newest_session_in(project_session_dir(cwd))


def read_preview(path: Path) -> list[Any] | None:
    """The last messages of ``path``'s current branch, validated (None: no safe preview)."""
    from pi_runtime.frontend.app_support import parse_messages, read_branch_tail

    found = read_branch_tail(path, PREVIEW_MESSAGES)
    if not found:
        return None
    try:
        return parse_messages(found)
    except ValueError:
        return None


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON file's top-level object ({} when missing, unreadable or not an object); hardened
    like every config read (a FIFO is refused, a 100,000-digit number left out)."""
    from pi_runtime.frontend.app_support import read_json_object as read_object

    data, _ = read_object(path)
    return data or {}


def trusted_project_settings(args: Any, agent_dir: Path, cwd: str) -> dict[str, Any] | None:
    """The project's ``.pi/settings.json`` as it will apply: {} when there is none or the project is
    not trusted, None while its trust is still an open question (the file is then not read)."""
    path = Path(cwd) / ".pi" / "settings.json"
    if not path.exists():
        return {}
    from pi_runtime.frontend.app_support import settled_project_trust

    trusted = settled_project_trust(cwd, agent_dir, getattr(args, "approve", None))
    if trusted is None:
        return None
    return read_json_object(path) if trusted else {}
