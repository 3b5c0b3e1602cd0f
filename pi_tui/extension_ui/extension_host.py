"""Connects a session's extensions to the app: dialogs, notifications, statuses, widgets.

Called once a session is attached. Extension commands reach the slash menu through the
command registry; extension failures arrive as ``extension_error`` events, which the
transcript shows inline like any other notice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .extension_area import ExtensionArea
from .extension_ui import AppExtensionUI

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..host import PiHost


async def attach_extensions(app: PiHost, session: SessionPort) -> AppExtensionUI | None:
    """Give the session's extensions the app's UI and start them (no-op without any)."""
    runner = session.extension_runner
    if runner is None:
        return None
    ui = AppExtensionUI(app)
    app.extension_ui = ui
    above, below = ExtensionArea("aboveEditor", id="ext-above"), ExtensionArea("belowEditor", id="ext-below")
    status = ExtensionArea("footer", id="ext-status")  # statuses: the last line, under pi's footer (Pi)
    await app.mount(above, before=app.editor)
    await app.mount(below, after=app.editor)
    await app.mount(status, after=app.footer_bar)

    def changed(_: AppExtensionUI) -> None:
        # Statuses are part of pi's footer: an extension's footer shows them itself, if it
        # wants (footer_data.get_extension_statuses()), as in Pi.
        statuses = {} if "#footer" in ui.components else ui.statuses
        for area in (above, below, status):
            area.show(ui.widgets, statuses)

    ui.on_change = changed
    runner.set_ui(ui, "tui")
    # ctx.shutdown(): quit as /quit does (the runner calls this once the agent is idle).
    runner.on_shutdown_request = lambda: app.call_later(app.action_quit)
    runner.reload_handler = lambda: reload_as_the_command(app, session)
    await runner.start()
    bind_shortcuts(app, session)
    return ui


def bind_shortcuts(app: PiHost, session: SessionPort) -> None:
    """Bind every extension shortcut (a key Pi's syntax cannot read is reported, not bound)."""
    from ..keys.keymap import KeySyntaxError, to_textual_key

    runner = session.extension_runner
    app.extension_keys = {}
    if runner is None:
        return
    for key in runner.shortcuts():
        try:
            app.extension_keys[to_textual_key(key)] = key
        except KeySyntaxError as exc:
            app.notify(f"Extension shortcut not bound: {exc}", severity="warning", timeout=6)


async def reload_as_the_command(app: PiHost, session: SessionPort) -> None:
    """``ctx.reload()`` in the app: all that ``/reload`` reloads (keybindings, themes, shortcuts), with its notices."""
    from ..commands.commands import COMMANDS

    command = COMMANDS.get("reload")
    assert command is not None  # a built-in
    await command.run(app, session, "")
