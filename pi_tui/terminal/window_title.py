"""The terminal window's title, as Pi sets it: ``π - <session name> - <folder>``, or
``π - <folder>`` for a session without a name; an extension's ``setTitle`` wins while it is set.

Written when a session is attached or shown (another tab), and when the session's name changes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from .textual_internals import running_driver

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort


class TitledApp(Protocol):
    """What the title needs of the app: the session shown, its folder, its extensions' ``ctx.ui``."""

    title: str
    @property
    def is_headless(self) -> bool: ...
    @property
    def session(self) -> SessionPort | None: ...
    @property
    def cwd(self) -> str: ...
    @property
    def extension_ui(self) -> object:
        """The shown session's extensions' ``ctx.ui`` (its ``title`` wins while set), or None."""


def pi_title(session_name: str | None, cwd: str) -> str:
    folder = os.path.basename(os.path.normpath(cwd)) or cwd
    return f"π - {session_name} - {folder}" if session_name else f"π - {folder}"


def write_title(app: TitledApp, title: str) -> None:
    """Set the window title (OSC 0, as Pi); nothing in a headless run."""
    app.title = title
    driver = running_driver(app)
    if driver is not None and not app.is_headless:
        # A control character would end the sequence early and send the rest to the terminal
        # as commands (a session name comes from a file, a title from an extension).
        clean = "".join(ch for ch in title if ch.isprintable())
        driver.write(f"\x1b]0;{clean}\x07")
        driver.flush()


def show_window_title(app: TitledApp) -> None:
    """The title for the session on screen: its extensions' if they set one, else Pi's."""
    extension_title = getattr(app.extension_ui, "title", None)
    if extension_title is not None:
        write_title(app, extension_title)
    elif app.session is not None:
        write_title(app, pi_title(app.session.session_name, str(app.session.cwd or app.cwd)))
