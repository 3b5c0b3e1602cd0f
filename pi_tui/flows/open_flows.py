"""Opening and closing tabs: ``/open [new|resume|fork|clone|attach]``, ``/close``, and quitting.

Pi's ``/new``, ``/resume``, ``/fork`` and ``/clone`` replace the session shown, as in Pi; these
open the result in a new tab instead, while the session shown keeps running. The new session
is built beside the shown one by the kernel (``open_sibling_session``: its own file, lock and
extension runner) in a worker thread, since building one imports its extensions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .bound import transcript_of

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .host import PiHost

OPEN_KINDS = ("new", "resume", "fork", "clone", "attach")


async def open_command(app: PiHost, session: SessionPort, arg: str) -> None:
    """``/open`` and its argument, typed in ``session``'s tab: what to open in the new tab (the
    pickers list, and the new session is made from, ``session``)."""
    kind, *rest = arg.split() or ["new"]
    if kind not in OPEN_KINDS:
        await transcript_of(app, session).add_notice(f"/open {kind}: expected one of {', '.join(OPEN_KINDS)}", "warning")
        return
    if kind == "attach":  # a session of this folder's pi serve (served_tabs.py)
        from .served_tabs import attach_served_tab

        app.run_worker(attach_served_tab(app, session, rest[0] if rest else None), name="attach-session", group="sessions",
                       exit_on_error=False)
        return
    if kind == "resume":
        _pick_to_resume(app, session)
    elif kind == "fork":
        _pick_to_fork(app, session)
    elif kind == "clone" and session.session_manager.leaf_id is None:
        app.notify("Nothing to clone yet: the session is empty", timeout=3)
    else:
        start_opening(app, kind, source=session)


def start_opening(app: PiHost, kind: str, *, source: SessionPort, path: str | None = None,
                  entry_id: str | None = None) -> None:
    """Build the session in a thread, then show it in a new tab. ``source``: the session it is
    opened from (its folder, its file for a fork or clone)."""
    from ..sessions.served import is_served

    if is_served(source):  # the new session runs on the same pi serve, beside this one
        from .served_tabs import open_served_tab

        app.run_worker(open_served_tab(app, source, kind, path=path, entry_id=entry_id),
                       name="open-session", group="sessions", exit_on_error=False)
        return
    from pi_runtime.frontend import open_sibling_session

    def build() -> Any:
        return open_sibling_session(source, kind, path=path, entry_id=entry_id)  # type: ignore[arg-type]

    async def build_and_show() -> None:
        import asyncio

        if not await source.sibling_allowed(kind, entry_id):
            app.notify(f"An extension cancelled the {kind}", severity="warning", timeout=5)
            return
        try:
            sibling = await asyncio.to_thread(build)
        except Exception as exc:  # noqa: BLE001 - a locked file, a bad entry: said, nothing opened
            app.notify(f"Could not open the session: {exc}", severity="error", timeout=8)
            return
        await app.workspace.open(sibling.session, editor_text=sibling.editor_text)

    app.run_worker(build_and_show(), name="open-session", group="sessions", exit_on_error=False)


def _pick_to_resume(app: PiHost, session: SessionPort) -> None:
    from ..sessions.session_picker import SessionPicker

    manager = session.session_manager
    session_dir = manager.session_dir if getattr(manager, "persist", False) else None
    picker = SessionPicker(app.cwd, session_dir=session_dir, current_path=session.session_file, session=session)

    def picked(path: Any) -> None:
        if path:
            from .resume_flows import resume_picked

            # In its own folder when that is another one; a file open in a tab shows that tab.
            resume_picked(app, str(path), new_tab=True, session=session)

    app.push_screen(picker, picked)


def _pick_to_fork(app: PiHost, session: SessionPort) -> None:
    from ..tree.fork_picker import ForkPicker

    messages = session.get_fork_messages()
    if not messages:
        app.notify("No user messages to fork from yet", timeout=3)
        return

    def chosen(entry_id: Any) -> None:
        if entry_id:
            start_opening(app, "fork", entry_id=str(entry_id), source=session)

    app.push_screen(ForkPicker(messages), chosen)


async def close_command(app: PiHost, session: SessionPort) -> None:
    """``/close`` typed in ``session``'s tab: end it and show a neighbour (asks first if it is working)."""
    workspace = app.workspace
    entry = workspace.entry_for(session)
    if entry is None or len(workspace.sessions) < 2:
        await transcript_of(app, session).add_notice("This is the only open session (/quit ends pi)", "warning")
        return
    from ..sessions.served import is_served

    if not (entry.working or entry.session.is_streaming) or is_served(entry.session):
        await workspace.close(entry)  # a served session is detached: its run goes on in pi serve
        return
    from ..dialogs.text_prompt import ConfirmPrompt

    def answered(yes: Any) -> None:
        if yes and entry in workspace.sessions:
            app.run_worker(workspace.close(entry), name="close-session", group="sessions", exit_on_error=False)

    app.push_screen(ConfirmPrompt(f"Close {entry.name}?", "It is still working; its run will be stopped."), answered)


def request_quit(app: PiHost) -> None:
    """Quit, asking first when several sessions are open and one of them is still working.

    With a single session pi quits at once, as Pi does (the run is aborted on the way out).
    """
    workspace = app.workspace
    busy = workspace.busy
    if len(workspace.sessions) < 2 or not busy:
        app.exit(0)
        return
    from ..dialogs.text_prompt import ConfirmPrompt

    def detail() -> str:
        # Read again while the question is open: a run may end (or start) meanwhile.
        working = workspace.busy
        if not working:
            return "Nothing is working now."
        names = ", ".join(entry.name for entry in working)
        return f"Still working: {names}. Quitting stops {'it' if len(working) == 1 else 'them'}."

    def answered(yes: Any) -> None:
        if yes:
            app.exit(0)

    if not any(isinstance(screen, ConfirmPrompt) for screen in app.screen_stack):
        question = f"Quit pi with {len(workspace.sessions)} sessions open?"
        app.push_screen(ConfirmPrompt(question, detail_now=detail), answered)
