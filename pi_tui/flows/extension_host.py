"""Connects a session's extensions to the app: dialogs, notifications, statuses, widgets.

Each open session's extensions get their own ``AppExtensionUI`` (``flows/tab_extensions.py``
starts them); the app's extension areas are mounted once and drawn by the shown session's,
which ``show_extension_ui`` changes when another tab is shown. Extension commands reach the
slash menu through the command registry; extension failures arrive as ``extension_error``
events, which the transcript shows inline like any other notice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..extension_ui.extension_area import ExtensionAreas
from .app_extension_ui import AppExtensionUI

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.widget import Widget

    from pi_runtime.frontend import SessionPort

    from ..extension_ui.tab_place import TabPlace


class ExtensionHostApp(Protocol):
    """What hosting extensions' ``ctx.ui`` needs of the app: the shown one, the areas, the keys."""

    extension_ui: AppExtensionUI | None
    """The shown session's extensions' ``ctx.ui``."""
    extension_areas: ExtensionAreas | None
    extension_keys: dict[str, str]
    """Extension shortcuts bound now: Textual key -> the extension's own key name."""
    @property
    def default_editor(self) -> Widget:
        """pi's own editor: the extension areas go above and below it."""
    @property
    def footer_bar(self) -> Widget:
        """pi's footer: the statuses' area goes under it."""
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    async def run_command_now(self, name: str, session: SessionPort, arg: str = "") -> None: ...


async def new_extension_ui(app: ExtensionHostApp, place: TabPlace | None = None) -> AppExtensionUI:
    """A ``ctx.ui`` for one session's extensions, off screen until ``show_extension_ui``."""
    areas = app.extension_areas
    if areas is None:
        # Set before awaiting: the areas are in place at once, a second session need not mount its own.
        areas = app.extension_areas = ExtensionAreas()
        await areas.mount_in(app, app.default_editor, app.footer_bar)
    return AppExtensionUI(app, areas, place)


def show_extension_ui(app: ExtensionHostApp, ui: AppExtensionUI | None) -> None:
    """Put ``ui``'s statuses, widgets, editor and look on screen (None: pi's own), the previous
    session's away (kept for when its tab is shown again)."""
    old = app.extension_ui
    if old is ui:
        return
    if old is not None:
        old.put_away()
    app.extension_ui = ui
    if ui is not None:
        ui.bring_back()


def bind_shortcuts(app: ExtensionHostApp, session: SessionPort) -> None:
    """Bind every extension shortcut (a key Pi's syntax cannot read is reported, not bound)."""
    from ..keys.keymap import KeySyntaxError, to_textual_key
    runner = session.extension_runner
    app.extension_keys = {}
    # A served session's extensions bound theirs in pi serve: the keys are bound here, run there.
    # (Only a served session has ``extension_shortcuts``; read without importing sessions/, above us.)
    keys = list(runner.shortcuts()) if runner is not None else list(getattr(session, "extension_shortcuts", []))
    for key in keys:
        try:
            app.extension_keys[to_textual_key(key)] = key
        except KeySyntaxError as exc:
            app.notify(f"Extension shortcut not bound: {exc}", severity="warning", timeout=6)


async def reload_as_the_command(app: ExtensionHostApp, session: SessionPort) -> None:
    """``ctx.reload()`` in the app: all that ``/reload`` reloads (keybindings, themes, shortcuts), with its notices."""
    await app.run_command_now("reload", session)
