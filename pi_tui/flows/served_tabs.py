"""Tabs of sessions that a ``pi serve`` runs (``pi attach``): what differs from a local tab.

Their extensions run in the server: the tab shows their dialogs (a background tab's wait until it
is shown, as a local one's), statuses, widgets and title, and sends the answers back (the first
viewer to answer wins; the others' dialogs close). A dropped connection reconnects from the last
record applied, said in a notification. ``/open new|resume|fork|clone`` from a served tab opens
the new session on the same server, beside the shown one, and attaches it in a new tab;
``/open attach [id]`` attaches a session the folder's ``pi serve`` runs (from any tab, a local
one's included) in a new tab.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from .extension_host import bind_shortcuts, new_extension_ui, show_extension_ui

if TYPE_CHECKING:
    from pi_runtime.frontend import RemoteSession, SessionPort, Severity

    from ..sessions.open_session import OpenSession
    from .host import PiHost, Tabs


async def start_served_tab(app: PiHost, workspace: Tabs, entry: OpenSession, session: RemoteSession) -> None:
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

    # Handed over as functions, not coroutines: a worker the app never starts (it is quitting)
    # then leaves no coroutine behind that was never awaited.
    app.run_worker(partial(keep_attached, session, report), name="keep-attached", group="served",
                   exit_on_error=False)
    # Their commands join the slash menu (typed, they run in the server, as any prompt does), and
    # their shortcuts are bound here (pressed, they run there).
    async def learn_commands() -> None:
        await session.refresh_commands()
        if entry is workspace.active:
            bind_shortcuts(app, session)

    app.run_worker(learn_commands, name="served-commands", group="served", exit_on_error=False)


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


async def attach_served_tab(app: PiHost, shown: SessionPort, ref: str | None) -> None:
    """``/open attach [id]`` typed in ``shown``'s tab: a session of that served tab's server (or of
    this folder's ``pi serve``) that no tab shows yet, in a new tab; several: the user picks one."""
    from pi_runtime.frontend import AttachChoiceError, NoServer, RemoteError, ServeClient, match_session

    from ..sessions.served import is_served

    client = shown.client if is_served(shown) and not shown.client.closed.is_set() else None
    try:
        if client is None:
            client = await ServeClient.connect(folder=app.cwd, client="pi (app)")
        rows = await client.list_sessions()
    except (NoServer, RemoteError) as exc:
        app.notify(str(exc), severity="warning", timeout=6)
        return
    here = {entry.session.handle for entry in app.workspace.sessions
            if is_served(entry.session) and entry.session.client.path == client.path}
    rows = [row for row in rows if row["session"] not in here]
    if ref:
        try:
            rows = [match_session(rows, ref)]
        except AttachChoiceError as exc:
            app.notify(str(exc), severity="warning", timeout=6)
            return
    if not rows:
        app.notify("Every session pi serve runs is open here (/open new starts one)", timeout=4)
        return
    handle = str(rows[0]["session"]) if len(rows) == 1 else await _pick(app, rows)
    if handle is None:
        return
    try:
        session = await client.attach(handle)
    except RemoteError as exc:
        app.notify(f"Could not attach the session: {exc}", severity="error", timeout=8)
        return
    await app.workspace.open(session)


async def _pick(app: PiHost, rows: list[dict[str, Any]]) -> str | None:
    """The user's choice among the served sessions (None: Esc)."""
    from pi_runtime.frontend import terminal_safe

    from ..dialogs.pick_list import PickItem, PickList
    from .resume_flows import ask_screen

    items = []
    for row in rows:
        name = row.get("name") or row.get("lastAnswer") or "(empty)"
        label = terminal_safe(f"{row['session']}  {row.get('status', '')}  {' '.join(str(name).split())[:80]}")
        items.append(PickItem(str(row["session"]), label, label))
    chosen = await ask_screen(app, PickList("Attach a session pi serve runs", items))
    return str(chosen) if chosen else None
