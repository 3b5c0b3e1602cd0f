"""The terminal window's title, as Pi sets it: ``π - <session name> - <folder>``, or
``π - <folder>`` for a session without a name; an extension's ``setTitle`` wins while it is set.

Written when a session is attached or shown (another tab), and when the session's name changes;
which session is shown is the flows' business (``flows/shown_title.py``), so this pane is handed the title.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from .textual_internals import running_driver

if TYPE_CHECKING:
    from textual.reactive import Reactive


class TitledApp(Protocol):
    """What writing the title needs of the app: where it is kept, and whether a terminal shows it."""

    title: str
    @property
    def is_headless(self) -> bool: ...
    def set_reactive(self, reactive: Reactive[str], value: str) -> None: ...


def pi_title(session_name: str | None, cwd: str) -> str:
    folder = os.path.basename(os.path.normpath(cwd)) or cwd
    return f"π - {session_name} - {folder}" if session_name else f"π - {folder}"


def write_title(app: TitledApp, title: str) -> None:
    """Set the window title (OSC 0, as Pi); nothing in a headless run."""
    # Kept in Textual's ``App.title`` (screenshots' title) without its repaint: the reactive
    # redraws the whole screen for Textual's own Header, which pi does not show (1 ms at each
    # attach, while the first prompt is on its way).
    from textual.app import App

    app.set_reactive(App.title, title)
    driver = running_driver(app)
    if driver is not None and not app.is_headless:
        # A control character would end the sequence early and send the rest to the terminal
        # as commands (a session name comes from a file, a title from an extension).
        clean = "".join(ch for ch in title if ch.isprintable())
        driver.write(f"\x1b]0;{clean}\x07")
        driver.flush()

