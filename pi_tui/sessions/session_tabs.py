"""``SessionTabs``: the bar of open sessions, above the transcript.

Hidden while one session is open (the app then looks as it always did); with two or more it
shows a tab per session (``SessionTab``), the shown one highlighted, and a background tab
that finished, failed or asks something marked until it is shown. A click on a tab posts
``Selected``; the app switches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.containers import Horizontal
from textual.message import Message

from .session_tab import SessionTab

if TYPE_CHECKING:
    from .open_session import OpenSession


class SessionTabs(Horizontal):
    """One tab per open session (none shown for a single session)."""

    DEFAULT_CSS = """
    SessionTabs { height: 1; width: 1fr; background: $pi-bg; display: none; }
    SessionTabs.-several { display: block; }
    """

    class Selected(Message):
        """A tab was clicked: show its session."""

        def __init__(self, entry: OpenSession) -> None:
            super().__init__()
            self.entry = entry

    def sync(self, entries: Sequence[OpenSession], active: OpenSession | None) -> None:
        """Tabs for the open sessions in order, each saying what its session does now."""
        several = len(entries) > 1
        self.set_class(several, "-several")
        tabs = {tab.entry: tab for tab in self.query_children(SessionTab)}
        for entry, gone in tabs.items():
            if entry not in entries or not several:
                gone.remove()
        if not several:
            # The bar is hidden: a lone session's tab would be built, labelled (its usage totals
            # worked out) and restyled at every answer for nothing; it is made when a second opens.
            return
        for position, entry in enumerate(entries, 1):
            tab = tabs.get(entry)
            if tab is None:
                tab = SessionTab(entry)
                self.mount(tab)
            # Numbered by place in the bar (Alt+PageUp/PageDown order), not by how many were opened.
            tab.show_state(entry is active, position)

    def on_session_tab_clicked(self, message: SessionTab.Clicked) -> None:
        message.stop()
        self.post_message(self.Selected(message.entry))
