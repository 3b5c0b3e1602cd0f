"""Tabs of sessions that a ``pi serve`` runs (``pi attach``): what differs from a local tab.

Their extensions run in the server: the tab shows their dialogs (a background tab's wait until it
is shown, as a local one's), statuses, widgets and title, and sends the answers back (the first
viewer to answer wins; the others' dialogs close). A dropped connection reconnects from the last
record applied, said in a notification. ``/open new|resume|fork|clone`` from a served tab opens
the new session on the same server, beside the shown one, and attaches it in a new tab.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..extension_ui.extension_host import bind_shortcuts, new_extension_ui, show_extension_ui

if TYPE_CHECKING:
    from pi_runtime.frontend import RemoteSession, Severity

    from ..host import PiHost
    from .open_session import OpenSession
    from .workspace import Workspace


async def start_served_tab(app: PiHost, workspace: Workspace, entry: OpenSession, session: RemoteSession) -> None:
    """Show the served session's extension UI in ``entry``'s tab and keep it attached."""
    from pi_runtime.frontend import keep_attached

    from .tab_extensions import dialog_gate

    ui = await new_extension_ui(app, entry)
    ui.before_dialog = dialog_gate(workspace, entry)
    entry.extension_ui = ui
    if entry is workspace.active:
        show_extension_ui(app, ui)
    session.ui.bind(ui)

    def report(text: str, severity: Severity) -> None:
        app.notify(f"{entry.name}: {text}", severity=severity, timeout=6)

    app.run_worker(keep_attached(session, report), name="keep-attached", group="served", exit_on_error=False)
    # Their commands join the slash menu (typed, they run in the server, as any prompt does), and
    # their shortcuts are bound here (pressed, they run there).
    async def learn_commands() -> None:
        await session.refresh_commands()
        if entry is workspace.active:
            bind_shortcuts(app, session)

    app.run_worker(learn_commands(), name="served-commands", group="served", exit_on_error=False)


async def open_served_tab(app: PiHost, source: RemoteSession, kind: str, *, path: str | None = None,
                          entry_id: str | None = None) -> None:
    """Open a session on ``source``'s server (a new one, the file ``path``, or a fork or clone of
    ``source``) and show it in a new tab; a refusal is said, nothing opened."""
    from pi_runtime.frontend import RemoteError

    client = source.client
    try:
        if kind == "resume":
            row: dict[str, Any] = await client.open_session(session_path=path)
        else:
            row = await client.open_beside(source.handle, kind, entry_id)
        session = await client.attach(str(row["session"]))
    except RemoteError as exc:
        app.notify(f"Could not open the session: {exc}", severity="error", timeout=8)
        return
    await app.workspace.open(session, editor_text=str(row.get("editorText") or ""))
