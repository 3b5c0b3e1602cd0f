"""What headless modes say on stderr about the session file, and how it sets the exit status.

The session manager collects one-line notices (lines skipped when the file was loaded, a save
that failed, a save that works again); headless modes print each once as ``pi: <notice>``.
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


def final_status(session: Any, code: int) -> int:
    """Print what is left to report; 1 when the session file is missing entries.

    A save still failing at the end is said once, in the closing line, not also as the notice
    that was queued when it first failed.
    """
    manager = session.session_manager
    missing = getattr(manager, "unsaved_count", 0)
    for notice in session.take_session_notices():
        if not (missing and notice.startswith("Could not save")):
            print(f"pi: {notice}", file=sys.stderr)
    if not missing:
        return code
    print(f"pi: {manager.save_error}; {missing} session entr{'y is' if missing == 1 else 'ies are'} "
          "not in the file", file=sys.stderr)
    return code or 1
