"""The window title for the tab on screen: its extensions' ``setTitle`` while set, else Pi's
``π - <session name> - <folder>``. Here rather than in ``terminal/`` because it reads the shown
session and its extensions' ``ctx.ui``; the terminal pane only writes the title it is handed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..terminal.window_title import pi_title, write_title

if TYPE_CHECKING:
    from textual.reactive import Reactive

    from pi_runtime.frontend import SessionPort


class TitledApp(Protocol):
    """What the title needs of the app: the session shown, its folder, its extensions' ``ctx.ui``."""

    title: str
    @property
    def is_headless(self) -> bool: ...
    def set_reactive(self, reactive: Reactive[str], value: str) -> None: ...
    @property
    def session(self) -> SessionPort | None: ...
    @property
    def cwd(self) -> str: ...
    @property
    def extension_ui(self) -> object:
        """The shown session's extensions' ``ctx.ui`` (its ``title`` wins while set), or None."""


def show_window_title(app: TitledApp) -> None:
    """The title for the session on screen: its extensions' if they set one, else Pi's."""
    extension_title = getattr(app.extension_ui, "title", None)
    if extension_title is not None:
        write_title(app, extension_title)
    elif app.session is not None:
        write_title(app, pi_title(app.session.session_name, str(app.session.cwd or app.cwd)))
