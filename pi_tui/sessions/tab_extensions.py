"""The extensions of a session opened in another tab, and the questions of background tabs.

The first session's extensions are started by ``extension_host.attach_extensions`` and draw
in the app's extension areas. A session opened later gets its own ``AppExtensionUI`` (dialogs,
notifications, shortcuts, the editor text) without areas of its own: its statuses and widgets
are kept but not drawn. Every session's dialogs (an extension's ``ctx.ui.select``, a tool
approval) wait while their tab is in the background: the tab says "waiting for you", a
notification says who asks, and the dialog opens when the user shows that tab.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..extension_ui.extension_host import bind_shortcuts, reload_as_the_command
from ..extension_ui.extension_ui import AppExtensionUI

if TYPE_CHECKING:
    from ..host import PiHost
    from .open_session import OpenSession
    from .workspace import Workspace


def dialog_gate(workspace: Workspace, entry: OpenSession) -> Callable[[str], Awaitable[None]]:
    """What ``entry``'s extension UI awaits before a dialog: nothing while its tab is shown."""

    async def wait_until_shown(title: str) -> None:
        if entry.shown.is_set():
            return
        workspace.asked(entry, title)
        try:
            await entry.shown.wait()
        finally:
            workspace.answered(entry)

    return wait_until_shown


def adopt_extension_ui(workspace: Workspace, entry: OpenSession, ui: AppExtensionUI | None) -> None:
    """``ui`` (from ``attach_extensions``) serves ``entry``: its dialogs wait for the tab."""
    if ui is None:
        return
    entry.extension_ui = ui
    ui.before_dialog = dialog_gate(workspace, entry)


async def start_tab_extensions(app: PiHost, workspace: Workspace, entry: OpenSession) -> None:
    """Give a later tab's extensions their UI and start them (``session_start``)."""
    session = entry.session
    runner = session.extension_runner
    if runner is None:
        return
    ui = AppExtensionUI(app)
    adopt_extension_ui(workspace, entry, ui)
    if entry is workspace.active:
        app.extension_ui = ui
    runner.set_ui(ui, "tui")
    runner.on_shutdown_request = lambda: app.call_later(app.request_quit)
    runner.reload_handler = lambda: reload_as_the_command(app, session)
    await runner.start()
    if entry is workspace.active:
        bind_shortcuts(app, session)
