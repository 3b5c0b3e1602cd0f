"""What headless modes say on stderr about their files, and how the session file sets the exit status.

At start: problems with settings.json (which file and key), models.json and auth.json (also an
auth.json other users can read). During the run the session manager collects one-line notices
(lines skipped when the file was loaded, a save that failed, a save that works again); headless
modes print each once as ``pi: <notice>``.
A run that ends with entries the file could not take exits non-zero, whatever the answer was:
the conversation happened but is not all on disk.
"""

from __future__ import annotations

import sys
from typing import Any


def print_notices(session: Any) -> None:
    """Print the notices nobody has shown yet, one line each."""
    for notice in session.take_session_notices():
        print(f"pi: {notice}", file=sys.stderr)


def startup_problems(session: Any) -> list[str]:
    """Problems with the config files found while starting, one line each (file, key, what pi does).

    Bad settings.json values and files (which key fell back to its default), models.json
    errors, an auth.json pi cannot use or that other users can read.
    """
    problems = [str(w) for w in getattr(session.settings, "warnings", None) or []]
    problems.extend(getattr(session, "startup_warnings", None) or [])  # scope patterns matching nothing
    registry = getattr(session, "model_registry", None)
    problems.extend(str(e) for e in getattr(registry, "errors", None) or [])
    auth = getattr(registry, "auth", None)
    if auth is not None:
        problems.extend(str(e) for e in getattr(auth, "errors", None) or [])
        check = getattr(auth, "permission_problem", None)
        loose = check() if check is not None else None
        if loose:
            problems.append(loose)
    return problems


def print_startup_notices(session: Any) -> None:
    """Headless modes' one chance to say what is wrong with the files they started from."""
    for problem in startup_problems(session):
        print(f"pi: {problem}", file=sys.stderr)
    print_notices(session)


def final_status(session: Any, code: int) -> int:
    """Print what is left to report; 1 when the session file is missing entries.

    A save still failing at the end is said once, in the closing line, not also as the notice
    that was queued when it first failed.
    """
    missing = unsaved_report(session)
    for notice in session.take_session_notices():
        if not (missing and notice.startswith("Could not save")):
            print(f"pi: {notice}", file=sys.stderr)
    if missing is None:
        return code
    print(f"pi: {missing}", file=sys.stderr)
    return code or 1


def unsaved_report(session: object) -> str | None:
    """The closing line for a session whose file lacks entries it could not take (None when the
    file has them all, or the session's file is another process's, as a served one's is)."""
    from ..session.saving import SessionSaving

    manager = getattr(session, "session_manager", None)
    if not isinstance(manager, SessionSaving) or not (missing := manager.unsaved_count):
        return None
    return (f"{manager.save_error}; {missing} session entr{'y is' if missing == 1 else 'ies are'} "
            "not in the file")
