"""What happens to a session picked in ``/resume`` or ``/open resume``: it runs in its own folder.

Pi 1.6 runs a session in the folder its header records, so a session of another project (the
picker's "all" scope) runs its tools, ``@path`` references, context files, project settings
and extensions there; the footer shows that folder. A session of the folder shown is resumed
as before: ``/resume`` switches the open session to it, ``/open resume`` opens it in a new tab.
A session of another folder gets a session built for that folder from the ``pi`` command line
(``build_resumed_session``, after Pi's trust question when that folder asks for one):
``/resume`` puts it in the shown tab in place of the old session (extensions may veto that
with ``session_before_switch``, as in Pi), ``/open resume`` in a new tab. When the recorded
folder is gone, Pi's question decides: continue in the current folder, fork into it, or cancel.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from ..dialogs.pick_list import PickItem, PickList
from .bound import transcript_of

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .host import PiHost


class MissingFolderPrompt(PickList):
    """Pi's question when the session's folder no longer exists; returns the choice or None."""

    def __init__(self, recorded: str, current: str) -> None:
        from pi_runtime.frontend.app_support import missing_folder_choices

        items = [PickItem(value, Text(label), label, "", i == 0)
                 for i, (value, label) in enumerate(missing_folder_choices(recorded, current))]
        super().__init__(f"Session cwd does not exist: {recorded}", items,
                         hint="↑↓ navigate · enter select · esc cancel", filterable=False, id="missing-folder-prompt")


def resume_picked(app: PiHost, path: str, *, new_tab: bool, said: str | None = None,
                  session: SessionPort | None = None) -> None:
    """Resume the session file ``path`` the picker returned (in a worker): in place of
    ``session`` (``/resume``; the shown one when None), or in a new tab (``/open resume``). A file
    another tab has open is that tab's (its session holds the file's lock): that tab is shown.
    ``said``: the status line once it is open (``/import``'s). What follows acts on ``session``
    even if another tab is shown meanwhile."""
    session = session if session is not None else app.session
    if session is None:
        return
    for entry in app.workspace.sessions:
        if entry.session.session_file and str(entry.session.session_file) == str(path):
            if entry is not app.workspace.active:
                app.call_later(app.workspace.show, entry)
                app.notify(f"Already open: {entry.name}", timeout=3)
            return
    app.run_worker(_resume(app, session, path, new_tab, said), name="resume-session", group="sessions", exit_on_error=False)


async def _resume(app: PiHost, session: SessionPort, path: str, new_tab: bool, said_here: str | None = None) -> None:
    from pi_runtime.frontend.app_support import where_to_resume

    where = where_to_resume(path, session.cwd)
    if where.kind == "missing":
        choice = await ask_screen(app, MissingFolderPrompt(where.folder, session.cwd))
        if choice is None:
            app.notify("Resume cancelled", timeout=3)
            return
        said = f"Resumed session in {session.cwd}"
        if choice == "fork":
            try:
                path = await asyncio.to_thread(_fork_here, session, path)
            except Exception as exc:  # noqa: BLE001 - a broken or unreadable file: said, nothing opened
                app.notify(f"Could not fork the session: {exc}", severity="error", timeout=8)
                return
            said = f"Forked into new session {_session_id(path)} in {session.cwd}"
        await _resume_here(app, session, path, new_tab, said)
    elif where.kind == "here":
        await _resume_here(app, session, path, new_tab, said_here)
    else:
        await _resume_elsewhere(app, session, path, where.folder, new_tab)


def _fork_here(session: Any, path: str) -> str:
    from pi_runtime.frontend.app_support import fork_into

    manager = session.session_manager
    return fork_into(path, session.cwd, manager.session_dir if getattr(manager, "persist", False) else None)


def _session_id(path: str) -> str:
    from pi_runtime.frontend import read_session_info

    try:
        info = read_session_info(Path(path))
    except Exception:  # noqa: BLE001 - a notice's detail: the file name will do
        info = None
    return info.id if info is not None else Path(path).stem


async def _resume_here(app: PiHost, session: SessionPort, path: str, new_tab: bool, said: str | None) -> None:
    """A session of ``session``'s folder (or one continued or forked here): as ``/resume``
    always did; ``said`` is the notice (None: the session's name)."""
    from .open_flows import start_opening

    if new_tab:
        start_opening(app, "resume", path=path, source=session)
        if said:
            app.notify(said, timeout=4)
        return
    if path == session.session_file:
        return
    try:
        result = await session.switch_session(path)
    except Exception as exc:  # noqa: BLE001 - a locked or broken file: said, the open session stays
        app.notify(f"Could not resume the session: {exc}", severity="error", timeout=8)
        return
    if not result.cancelled:
        app.show_status(said or "Resumed session")


async def _resume_elsewhere(app: PiHost, session: SessionPort, path: str, folder: str, new_tab: bool) -> None:
    """A session of another folder: a session built for that folder, shown in its own tab or in
    place of ``session``."""
    from pi_runtime.frontend.app_support import build_resumed_session, trust_question

    from ..dialogs.trust_prompt import ask_project_trust

    old = app.workspace.entry_for(session)
    if old is None:
        return
    if not new_tab and not await old.session.switch_allowed(path):
        app.notify("An extension cancelled the resume", severity="warning", timeout=5)
        return
    args = _command_line(app)
    declined = False
    if trust_question(args, folder) is not None:
        # Said in the resumed session's transcript once it is shown, not in this one.
        args.approve = await ask_project_trust(app, folder, say_untrusted=False)
        declined = not args.approve
    try:
        resumed = await asyncio.to_thread(build_resumed_session, args, path, folder)
    except Exception as exc:  # noqa: BLE001 - a locked file, a bad model choice: said, nothing opened
        app.notify(f"Could not resume the session: {exc}", severity="error", timeout=8)
        return
    if new_tab or old not in app.workspace.sessions:
        await app.workspace.open(resumed)
    else:
        await app.workspace.replace(old, resumed)
    if declined:
        from ..dialogs.trust_prompt import NOT_TRUSTED

        await transcript_of(app, resumed).add_notice(NOT_TRUSTED, "warning")
    app.show_status(f"Resumed session in {folder}")


def _command_line(app: PiHost) -> Any:
    """A copy of the command line the app was started with (the defaults when it was not the ``pi``
    command): the trust answer for the new folder goes into the copy only."""
    import copy

    from pi_runtime.frontend.app_support import CliArgs

    return copy.deepcopy(app.command_line) if app.command_line is not None else CliArgs()


async def ask_screen(app: PiHost, screen: Any) -> Any:
    """Show ``screen`` and wait for what it is dismissed with."""
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def answered(value: Any) -> None:
        if not answer.done():
            answer.set_result(value)

    app.push_screen(screen, answered)
    return await answer
