"""The flows around the navigation screens: ``/tree`` (and double Esc), ``/resume``.

``/tree``: the tree browser returns an entry id, the summarize prompt returns whether (and
how) to summarise the branch being left, then ``AgentSession.navigate_tree`` runs in a
worker (a summary calls the model; Esc aborts it). The kernel emits ``session_changed``,
which rebuilds the transcript; a chosen user message comes back into the editor.
``/resume``: the session picker returns a file, ``sessions.resume_flows`` opens it (in its own
folder, as Pi does, when that is another one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def open_tree(app: Any) -> None:
    """Push the tree browser. It opens while the agent works too, as in Pi 1.6: moving to another
    entry then stops the run first (``_navigate``)."""
    from ..tree.tree_browser import TreeBrowser

    session = app.session

    def picked(entry_id: Any) -> None:
        if entry_id:
            navigate_with_choice(app, entry_id)

    browser = TreeBrowser(session)
    try:
        from pi_runtime.frontend import typed_settings

        browser.tree_rows.set_filter(typed_settings(session.settings).tree_filter_mode)  # treeFilterMode
    except ValueError:
        pass  # an unknown mode keeps the default filter
    app.push_screen(browser, picked)


def navigate_with_choice(app: Any, entry_id: str, on_decided: Callable[[], None] | None = None) -> None:
    """Move to ``entry_id`` after asking "Summarize branch?" (unless the settings skip the question).

    Used by ``/tree`` and the tree pane; ``on_decided`` runs once the move goes ahead (or there
    was nothing to move), not when the question is cancelled.
    """
    session = app.session
    decided = on_decided or (lambda: None)
    if entry_id == session.session_manager.leaf_id:
        app.notify("Already at this entry", timeout=2)
        decided()
        return
    from pi_runtime.frontend import typed_settings

    from ..tree.summarize_prompt import SummarizePrompt

    if typed_settings(session.settings).branch_summary.skip_prompt:  # no question, no summary
        decided()
        app.run_worker(_navigate(app, entry_id, False), name="navigate", group="kernel", exit_on_error=False)
        return

    def answered(summarize: Any) -> None:
        if summarize is None:
            return
        decided()
        app.run_worker(_navigate(app, entry_id, summarize), name="navigate", group="kernel",
                       exit_on_error=False)

    app.push_screen(SummarizePrompt(), answered)


async def _navigate(app: Any, entry_id: str, summarize: bool | str) -> None:
    if app.session.is_streaming:  # Pi stops the run, then moves
        await app.session.abort()
    if summarize:
        app.footer_bar.set_working(True, "Summarizing branch")
    try:
        result = await app.session.navigate_tree(entry_id, summarize=summarize)
    except Exception as exc:  # noqa: BLE001 - the worker would fail silently (exit_on_error=False): say why
        app.notify(f"Could not move in the session tree: {exc}", severity="error", timeout=8)
        return
    finally:
        app.footer_bar.set_working(False)
    if result.cancelled:
        app.notify("Navigation cancelled by an extension", severity="warning", timeout=4)
        return
    if result.editor_text:
        app.editor.set_text(result.editor_text)
    app.show_status("Navigated to selected point" + (" (branch summarised)" if result.summary_entry_id else ""))


def open_resume(app: Any) -> None:
    """Push the session picker for this folder; the choice replaces the open session."""
    from ..sessions.session_picker import SessionPicker

    session = app.session
    manager = session.session_manager
    session_dir = manager.session_dir if getattr(manager, "persist", False) else None
    picker = SessionPicker(app.cwd, session_dir=session_dir, current_path=session.session_file, session=session)

    def picked(path: Any) -> None:
        if path and path != session.session_file:
            from .resume_flows import resume_picked

            resume_picked(app, str(path), new_tab=False)  # in its own folder when that is another one

    app.push_screen(picker, picked)
