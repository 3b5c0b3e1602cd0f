"""The command each browser connection runs: the one place that decides what a page shows.

The goal (issue 38) is the app attached to the server's session, ``pi attach <id>``, so that
closing the page leaves the run in ``pi serve``. Until ``pi attach`` opens the app (it speaks only
``--mode rpc`` so far), a page runs the app on its own session in the served folder, built with
the server's flags: the browser path (pairing, ``/ws``, the web driver) is the same either way,
and switching is this one constant.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

ATTACH_OPENS_APP = False
"""Set when ``pi attach <id> --socket PATH`` opens the full app (issue 38, the app as a client)."""

# Flags of ``pi serve`` that open a session at start: they are the server's, not each page's.
_SERVER_ONLY_FLAGS = {"-c": 0, "--continue": 0, "-r": 0, "--resume": 0, "--session": 1, "--name": 1}


@dataclass(frozen=True, slots=True)
class BrowserTarget:
    """What a new browser connection attaches to."""

    socket_path: Path
    """The server's Unix socket."""
    session: str | None
    """The live session to show (its handle), or None to open a new one."""
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


def browser_command(target: BrowserTarget) -> list[str]:
    """The argv of the app a browser connection runs (in the served folder, under the web driver)."""
    pi = [sys.executable, "-m", "pi_runtime.cli"]
    if ATTACH_OPENS_APP:
        return [*pi, "attach", target.session or "--new", "--socket", str(target.socket_path)]
    return [*pi, *target.session_flags]
