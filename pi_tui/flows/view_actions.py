"""What the app's keys do to the transcript view: search, message selection and copy.

Bound in ``app.py`` as ``pi_cmd(<name>)`` actions; a picker or dialog on top keeps its own keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .host import PiHost


def search_bar(app: PiHost) -> Any:
    """The open search bar, or None."""
    from ..transcript.search_bar import SearchBar

    found = app.query(SearchBar)
    return found.first() if found else None


def open_search(app: PiHost, query: str = "") -> None:
    """Open (or focus) the transcript search bar above the editor."""
    from ..transcript.search_bar import SearchBar

    bar = search_bar(app)
    if bar is None:
        bar = SearchBar(app.transcript)
        app.mount(bar, before=app.editor)
    if query:
        app.call_after_refresh(bar.set_query, query)
    app.call_after_refresh(lambda: bar.query_one("#search-input").focus())


def close_search(app: PiHost) -> bool:
    """Close the search bar; True when one was open."""
    bar = search_bar(app)
    if bar is None:
        return False
    bar.close()
    app.editor.focus()
    return True


def copy_message(app: PiHost) -> None:
    """Copy the current search match or selected message, else the last answer (source text)."""
    from ..terminal.clipboard import copy_text
    from ..transcript.transcript_nav import selected_block, source_text

    bar = search_bar(app)
    widget = (bar.current_widget if bar is not None else None) or selected_block(app.transcript)
    text = source_text(widget) if widget is not None else (app.session.get_last_assistant_text() if app.session else None)
    if not text:
        app.notify("Nothing to copy yet", timeout=2)
        return
    how = copy_text(app, text)
    what = "the selected message" if widget is not None else "the last answer"
    app.notify(f"Copied {what}" + ("" if how else " (no clipboard available)"), timeout=2)


def run_action(app: PiHost, name: str) -> None:
    """Actions the app binds to keys: search, search_next, search_prev, select_prev, select_next, copy."""
    from ..transcript.transcript_nav import move_selection

    if len(app.screen_stack) > 1:  # a picker or dialog is open: its keys win
        return
    if name == "search":
        open_search(app)
    elif name in ("search_next", "search_prev"):
        bar = search_bar(app)
        if bar is None:
            open_search(app)
        else:
            bar.action_step(-1 if name == "search_next" else 1)
    elif name in ("select_prev", "select_next"):
        from ..transcript.search_bar import ensure_highlight_css

        ensure_highlight_css(app)
        move_selection(app.transcript, -1 if name == "select_prev" else 1)
    elif name == "copy":
        copy_message(app)
    elif name in ("tree", "fork", "resume", "new"):
        app.call_later(app.run_command, f"/{name}")
