"""``SessionTab``: one session's tab (place, state, name, model, cost); a click shows it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from ..footer.figures import format_cost
from .open_session import TabState

if TYPE_CHECKING:
    from .open_session import OpenSession

STATE_MARKS = {TabState.IDLE: "○", TabState.WORKING: "●", TabState.WAITING: "?", TabState.FAILED: "✗"}
UNSEEN_WORDS = {"done": "done", "failed": "failed", "asks": "waiting for you"}
"""What a background tab says happened while it was not shown (until it is)."""


def tab_label(entry: OpenSession, position: int | None = None) -> str:
    """``1 ● name · working · model · $0.012``: what the tab says, most important first (it is cut
    at the end: with five tabs at 80 columns the number, the state mark and the name's start stay)."""
    state = entry.state
    word = UNSEEN_WORDS.get(entry.unseen or "", state.value) if state is not TabState.WORKING else state.value
    model = entry.session.model
    try:
        cost = entry.session.usage_totals().cost
    except Exception:  # noqa: BLE001 - a tab must draw whatever the ledger says
        cost = 0.0
    number = position if position is not None else entry.number
    return f"{number} {STATE_MARKS[state]} {entry.name} · {word} · {model.id if model else '-'} · {format_cost(cost)}"


class SessionTab(Static):
    """A tab of the session bar (``SessionTabs`` keeps it up to date)."""

    DEFAULT_CSS = """
    SessionTab {
        width: 1fr; max-width: 56; height: 1; padding: 0 1;
        color: $pi-muted; background: $pi-bg;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    SessionTab:hover { color: $pi-text; }
    SessionTab.-active { color: $pi-text; background: $pi-selected-bg; text-style: bold; }
    SessionTab.-unseen { color: $pi-accent; }
    SessionTab.-waiting { color: $pi-warning; }
    SessionTab.-failed { color: $pi-error; }
    """

    class Clicked(Message):
        """The user clicked this tab."""

        def __init__(self, entry: OpenSession) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, entry: OpenSession) -> None:
        super().__init__(markup=False)
        self.entry = entry

    def show_state(self, active: bool, position: int | None = None) -> None:
        entry = self.entry
        self.update(Text(tab_label(entry, position)))
        self.set_class(active, "-active")
        self.set_class(entry.unseen is not None and not active, "-unseen")
        self.set_class(entry.state is TabState.WAITING, "-waiting")
        self.set_class(entry.state is TabState.FAILED or entry.unseen == "failed", "-failed")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.entry))
