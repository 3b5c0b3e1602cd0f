"""Each tab's extensions: their own ``ctx.ui``, on screen while the tab is shown, and the
questions of background tabs.

Every open session's extensions get an ``AppExtensionUI`` of their own, the first session's
included. The shown tab's statuses, widgets, header, footer, editor, working look and title
are on screen; switching tabs puts the previous tab's away (kept) and brings the shown one's
back (``extension_host.show_extension_ui``, called by ``Workspace.show``). An extension of a
background tab that sets a status or a widget changes what its tab will show. Every session's
dialogs (an extension's ``ctx.ui.select``, a tool approval) wait while their tab is in the
background: the tab says "waiting for you", a notification says who asks, and the dialog opens
when the user shows that tab.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .extension_host import (
    bind_shortcuts,
    new_extension_ui,
    reload_as_the_command,
    show_extension_ui,
)

if TYPE_CHECKING:
    from ..sessions.open_session import OpenSession
    from .host import PiHost, Tabs


def dialog_gate(workspace: Tabs, entry: OpenSession) -> Callable[[str], Awaitable[None]]:
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


async def start_tab_extensions(app: PiHost, workspace: Tabs, entry: OpenSession) -> None:
    """Give a tab's extensions their UI and start them (``session_start``); no-op without any."""
    session = entry.session
    runner = session.extension_runner
    if runner is None:
        await _start_served_tab(app, workspace, entry)
        return
    ui = await new_extension_ui(app, entry)
    ui.before_dialog = dialog_gate(workspace, entry)
    entry.extension_ui = ui  # from now on, showing the tab shows what its extensions set
    if entry is workspace.active:
        show_extension_ui(app, ui)
    runner.set_ui(ui, "tui")
    # ctx.shutdown(): quit as /quit does (the runner calls this once the agent is idle).
    runner.on_shutdown_request = lambda: app.call_later(app.request_quit)
    runner.reload_handler = lambda: reload_as_the_command(app, session)
    await runner.start()
    if entry is workspace.active:
        bind_shortcuts(app, session)


async def _start_served_tab(app: PiHost, workspace: Tabs, entry: OpenSession) -> None:
    """A session of a ``pi serve``: its extensions run there (``served_tabs.py``)."""
    from ..sessions.served import is_served

    if is_served(entry.session):
        from .served_tabs import start_served_tab

        await start_served_tab(app, workspace, entry, entry.session)
