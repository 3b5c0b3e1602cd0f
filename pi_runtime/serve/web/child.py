"""The command each browser connection runs: the one place that decides what a page shows.

A page shows ``pi attach --socket <the server's socket>``: the full app with every session the
server runs, one tab each (a new session when none runs), as a client of the server, so closing
the page leaves every run in ``pi serve``. Until ``pi attach`` can open the app (issue 38: the
app as a client), a page runs the app on its own session in the served folder, built with the
server's flags; the browser side (pairing, ``/ws``, the web driver) is the same either way.

A page narrower than ``PHONE_COLUMNS`` (a phone held upright) gets the phone layout instead
(``pi_tui.phone``): every session's state, last answer and queue, and its open questions.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

PHONE_COLUMNS = 60
"""Below this many columns a page gets the phone layout (a phone upright is about 40 at the page's
16 px font; a tablet upright about 80)."""

# Flags of ``pi serve`` that open a session at start: they are the server's, not each page's.
_SERVER_ONLY_FLAGS = {"-c": 0, "--continue": 0, "-r": 0, "--resume": 0, "--session": 1, "--name": 1}


@dataclass(frozen=True, slots=True)
class BrowserTarget:
    """What a new browser connection attaches to."""

    socket_path: Path
    """The server's Unix socket."""
    session_flags: list[str] = field(default_factory=list)
    """``pi serve``'s session flags (``--model``, ``-e``, …) for a page that runs its own session."""


def page_flags(serve_words: list[str]) -> list[str]:
    """``pi serve``'s words without those that open a session at start (``--continue``, ``--session X``)."""
    out: list[str] = []
    skip = 0
    for word in serve_words:
        if skip:
            skip -= 1
        elif word in _SERVER_ONLY_FLAGS:
            skip = _SERVER_ONLY_FLAGS[word]
        else:
            out.append(word)
    return out


def attach_opens_app() -> bool:
    """Whether ``pi attach`` opens the app: its module (``pi_tui/attach_app.py``) is installed.

    Looked up without importing anything (``find_spec`` of a top-level package does not run it):
    ``pi serve`` never loads the app. Transitional: once the attached app has landed, this and
    the fallback go.
    """
    spec = importlib.util.find_spec("pi_tui")
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    return any((Path(folder) / "attach_app.py").is_file() for folder in folders)


def browser_command(target: BrowserTarget, columns: int) -> list[str]:
    """The argv of the app a browser connection runs (in the served folder, under the web driver),
    for a page ``columns`` wide when it connects."""
    if columns < PHONE_COLUMNS:
        return [sys.executable, "-m", "pi_tui.phone", "--socket", str(target.socket_path)]
    pi = [sys.executable, "-m", "pi_runtime.cli"]
    if attach_opens_app():
        return [*pi, "attach", "--socket", str(target.socket_path)]
    return [*pi, *target.session_flags]
