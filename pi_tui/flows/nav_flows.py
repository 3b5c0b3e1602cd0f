"""The flows around the navigation screens: ``/tree`` (and double Esc), ``/fork``, ``/resume``.

``/tree``: the tree browser returns an entry id, the summarize prompt returns whether (and
how) to summarise the branch being left, then ``AgentSession.navigate_tree`` runs in a
worker (a summary calls the model; Esc aborts it). The kernel emits ``session_changed``,
which rebuilds the transcript; a chosen user message comes back into the editor.
``/resume``: the session picker returns a file, ``resume_flows`` opens it (in its own
folder, as Pi does, when that is another one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .bound import put_in_editor

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .host import PiHost


def open_tree(app: PiHost, session: SessionPort) -> None:
    """Push the tree browser for ``session`` (the one ``/tree`` was typed in). It opens while the
    agent works too, as in Pi 1.6: moving to another entry then stops the run first
    (``_navigate``). Everything after the browser acts on ``session``, even if another tab is
    shown by the time the user has chosen."""
    from ..tree.tree_browser import TreeBrowser

    def picked(entry_id: Any) -> None:
        if entry_id:
            navigate_with_choice(app, session, entry_id)

    browser = TreeBrowser(session)
    try:
        from pi_runtime.frontend import typed_settings

        browser.tree_rows.set_filter(typed_settings(session.settings).tree_filter_mode)  # treeFilterMode
    except ValueError:
        pass  # an unknown mode keeps the default filter
    app.push_screen(browser, picked)


def navigate_with_choice(app: PiHost, session: SessionPort, entry_id: str,
                         on_decided: Callable[[], None] | None = None) -> None:
    """Move ``session`` to ``entry_id`` after asking "Summarize branch?" (unless the settings skip
    the question).

    Used by ``/tree`` and the tree pane; ``on_decided`` runs once the move goes ahead (or there
    was nothing to move), not when the question is cancelled.
    """
    decided = on_decided or (lambda: None)
    if entry_id == session.session_manager.leaf_id:
        app.notify("Already at this entry", timeout=2)
        decided()
        return
    from pi_runtime.frontend import typed_settings

    from ..tree.summarize_prompt import SummarizePrompt

    if typed_settings(session.settings).branch_summary.skip_prompt:  # no question, no summary
        decided()
        app.run_worker(_navigate(app, session, entry_id, False), name="navigate", group="kernel",
                       exit_on_error=False)
        return

    def answered(summarize: Any) -> None:
        if summarize is None:
            return
        decided()
        app.run_worker(_navigate(app, session, entry_id, summarize), name="navigate", group="kernel",
                       exit_on_error=False)

    app.push_screen(SummarizePrompt(), answered)


async def _navigate(app: PiHost, session: SessionPort, entry_id: str, summarize: bool | str) -> None:
    """Move ``session`` in its tree. The footer and the editor are touched only while ``session``
    is the one shown: after an await another tab may be on screen, and its footer and editor are
    not this session's (the chosen message then goes into this session's saved draft)."""
    if session.is_streaming:  # Pi stops the run, then moves
        await session.abort()
    said_working = bool(summarize) and app.session is session
    if said_working:
        app.footer_bar.set_working(True, "Summarizing branch")
    try:
        result = await session.navigate_tree(entry_id, summarize=summarize)
    except Exception as exc:  # noqa: BLE001 - the worker would fail silently (exit_on_error=False): say why
        app.notify(f"Could not move in the session tree: {exc}", severity="error", timeout=8)
        return
    finally:
        if said_working and app.session is session:
            app.footer_bar.set_working(False)
    if result.cancelled:
        app.notify("Navigation cancelled by an extension", severity="warning", timeout=4)
        return
    if result.editor_text:
        put_in_editor(app, session, result.editor_text)
    app.show_status("Navigated to selected point" + (" (branch summarised)" if result.summary_entry_id else ""))


def open_resume(app: PiHost, session: SessionPort) -> None:
    """Push the session picker for ``session``'s folder; the choice replaces ``session``."""
    from ..sessions.session_picker import SessionPicker

    manager = session.session_manager
    session_dir = manager.session_dir if getattr(manager, "persist", False) else None
    picker = SessionPicker(app.cwd, session_dir=session_dir, current_path=session.session_file, session=session)

    def picked(path: Any) -> None:
        if path and path != session.session_file:
            from .resume_flows import resume_picked

            resume_picked(app, str(path), new_tab=False, session=session)  # in its own folder if another

    app.push_screen(picker, picked)


def open_fork_picker(app: PiHost, session: SessionPort) -> bool:
    """Push ``/fork``'s picker for ``session``. Returns False (after a notice) when there is
    nothing to fork from."""
    from ..tree.fork_picker import ForkPicker

    messages = session.get_fork_messages()
    if not messages:
        app.notify("No user messages to fork from yet", timeout=3)
        return False

    def chosen(entry_id: Any) -> None:
        if entry_id:
            app.run_worker(fork_at(app, session, entry_id), name="fork", group="kernel", exit_on_error=False)

    app.push_screen(ForkPicker(messages), chosen)
    return True


async def fork_at(app: PiHost, session: SessionPort, entry_id: str) -> None:
    """Fork ``session`` before the user message ``entry_id``; the message goes back to its editor."""
    if session.is_streaming:  # Pi stops the run, then forks
        await session.abort()
    result = await session.fork(entry_id)
    if result.cancelled:
        app.notify("Fork cancelled by an extension", severity="warning", timeout=4)
        return
    put_in_editor(app, session, result.text)
    app.show_status("Forked to new session")
