"""Connects a session's extensions to the app: dialogs, notifications, statuses, widgets.

Called once a session is attached. Extension commands reach the slash menu through the
completion provider; extension failures arrive as ``extension_error`` events, which the
transcript shows inline like any other notice.
"""

from __future__ import annotations

from typing import Any

from .extension_ui import AppExtensionUI
from .widgets.extension_area import ExtensionArea


async def attach_extensions(app: Any, session: Any) -> AppExtensionUI | None:
    """Give the session's extensions the app's UI and start them (no-op without any)."""
    runner = getattr(session, "extension_runner", None)
    if runner is None:
        return None
    ui = AppExtensionUI(app)
    above, below = ExtensionArea("aboveEditor", id="ext-above"), ExtensionArea("belowEditor", id="ext-below")
    await app.mount(above, before=app.editor)
    await app.mount(below, after=app.editor)

    def changed(_: AppExtensionUI) -> None:
        above.show(ui.widgets, ui.statuses)
        below.show(ui.widgets, ui.statuses)

    app.extension_ui_changed = changed
    runner.set_ui(ui, "tui")
    await runner.start()
    return ui


def extension_commands(session: Any) -> list[tuple[str, str]]:
    """``(name, description)`` of every extension command, for the slash menu."""
    runner = getattr(session, "extension_runner", None)
    if runner is None:
        return []
    return [(c["name"], c.get("description") or "") for c in runner.get_commands()]
