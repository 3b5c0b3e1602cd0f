"""Transcript search (Alt+S or ``/find``): a bar above the editor, matches highlighted.

Typing searches the source text of every mounted block (case-insensitive, all words);
matching blocks get the ``search-match`` class and the current one ``search-current``, and
the view scrolls to it. The current match starts at the newest; Enter or F3 goes to the
next older match, Shift+Enter or Shift+F3 to the next newer one (both wrap). Esc closes the
bar, clears the highlights and gives the editor its focus back.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Static

from .transcript_nav import SELECTED, source_text

MATCH, CURRENT = "search-match", "search-current"

HIGHLIGHT_CSS = f"""
Transcript > .{MATCH} {{ outline-left: thick $pi-warning 50%; }}
Transcript > .{CURRENT} {{ outline-left: thick $pi-warning; tint: $pi-warning 12%; }}
Transcript > .{SELECTED} {{ outline-left: thick $pi-accent; tint: $pi-accent 10%; }}
"""


def matches_query(text: str, query: str) -> bool:
    """Every word of ``query`` occurs in ``text`` (case-insensitive)."""
    lowered = text.lower()
    words = query.lower().split()
    return bool(words) and all(word in lowered for word in words)


class SearchBar(Horizontal):
    """The search input and a match counter; owns the highlight classes on the transcript."""

    SCOPED_CSS = False
    DEFAULT_CSS = HIGHLIGHT_CSS + """
    SearchBar { height: 3; padding: 0 1; background: $pi-bg; }
    SearchBar > Input { width: 1fr; border: round $pi-warning; background: $pi-bg; color: $pi-text; }
    SearchBar > Input:focus { border: round $pi-warning; }
    SearchBar > #search-count { width: auto; min-width: 28; padding: 1 1 0 1; color: $pi-muted; }
    """
    BINDINGS = [
        Binding("shift+enter,ctrl+shift+g", "step(1)", "Newer match", show=False, id="tui.altScreen.searchPrevious"),
        Binding("ctrl+g", "step(-1)", "Older match", show=False),
    ]

    def __init__(self, transcript: Any, **kwargs: Any) -> None:
        super().__init__(id="search-bar", **kwargs)
        self.transcript = transcript
        self.matches: list[Widget] = []
        self.current = -1
        """Index into ``matches`` of the highlighted one (-1 when none)."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search the transcript", id="search-input")
        yield Static("", id="search-count")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    def set_query(self, text: str) -> None:
        """Put ``text`` in the input (``/find text``) and search for it."""
        self.query_one(Input).value = text
        self.search(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(-1)

    def search(self, query: str) -> None:
        """Find ``query`` in the mounted blocks and show the newest match."""
        self._clear_classes()
        self.matches = [w for w in self.transcript.children if query.strip() and matches_query(source_text(w), query)]
        for widget in self.matches:
            widget.add_class(MATCH)
        self.current = len(self.matches) - 1
        self._show_current()

    def action_step(self, step: int) -> None:
        """Move to the next older (``-1``) or newer (``1``) match, wrapping."""
        # Blocks may have been pruned or replaced since the search: search again first.
        if any(not w.is_attached for w in self.matches):
            self.search(self.query_text)
        if not self.matches:
            return
        self.current = (self.current + step) % len(self.matches)
        self._show_current()

    def _show_current(self) -> None:
        for widget in self.transcript.query(f".{CURRENT}"):
            widget.remove_class(CURRENT)
        count = self.query_one("#search-count", Static)
        if not self.matches:
            count.update("no matches" if self.query_text.strip() else "enter/F3 older · shift+F3 newer")
            return
        target = self.matches[self.current]
        target.add_class(CURRENT)
        self.transcript.release_anchor()
        self.transcript.scroll_to_widget(target, animate=False, top=True)
        count.update(f"{self.current + 1}/{len(self.matches)}  enter/F3 older · shift+F3 newer")

    @property
    def current_widget(self) -> Widget | None:
        """The highlighted match (for copy)."""
        if 0 <= self.current < len(self.matches):
            return self.matches[self.current]
        return None

    def _clear_classes(self) -> None:
        for widget in self.transcript.query(f".{MATCH}, .{CURRENT}"):
            widget.remove_class(MATCH, CURRENT)

    def close(self) -> None:
        """Remove the highlights and the bar."""
        self._clear_classes()
        self.remove()


def ensure_highlight_css(app: Any) -> None:
    """Add the match/selection styles to the app's stylesheet once (no search bar needed)."""
    if getattr(app, "_pi_highlight_css", False):
        return
    app.stylesheet.add_source(HIGHLIGHT_CSS, read_from=("pi_tui/transcript/search_bar.py", "HIGHLIGHT_CSS"))
    app.refresh_css(animate=False)
    app._pi_highlight_css = True
