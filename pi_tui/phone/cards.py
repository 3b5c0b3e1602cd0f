"""A served session as a card: name and state, the last answer, the queue, its open questions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

if TYPE_CHECKING:
    from pi_runtime.frontend import RemoteSession

    from .questions import QuestionBox

ANSWER_CHARS = 600
"""Of the last answer, what a phone screen shows (the end is what matters: where the run got to)."""

STATES = {
    "working": "● working",
    "waiting": "◆ waiting on you",
    "failed": "✗ failed",
    "done": "✓ done",
    "idle": "○ idle",
}


def state_of(row: dict[str, Any], session: RemoteSession | None) -> str:
    """The card's state: the live view's when attached (it is newer), else the listing's."""
    status = str(row.get("status") or "idle")
    if session is not None:
        view_status = session.view.status
        status = "waiting" if session.view.dialogs else (view_status or status)
        if status == "idle" and row.get("status") == "failed":
            status = "failed"
    if status == "idle" and (row.get("lastAnswer") or (session and session.get_last_assistant_text())):
        return "done"
    return status


class SessionCard(Vertical):
    """One session; ``update_row`` and ``refresh_state`` redraw it from the listing and the live view."""

    DEFAULT_CSS = """
    SessionCard { height: auto; border: round $primary; padding: 0 1; margin: 0 0 1 0; }
    SessionCard.-waiting { border: round $warning; }
    SessionCard.-failed { border: round $error; }
    SessionCard .card-head { text-style: bold; }
    SessionCard .card-answer { color: $text-muted; }
    SessionCard .card-queue { color: $text-muted; text-style: italic; }
    """

    def __init__(self, handle: str, row: dict[str, Any]) -> None:
        super().__init__(id=f"session-{handle}")
        self.handle = handle
        self.row = row
        self.session: RemoteSession | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="card-head", markup=False)
        yield Static(classes="card-answer", markup=False)
        yield Static(classes="card-queue", markup=False)

    def on_mount(self) -> None:
        self.refresh_state()

    def update_row(self, row: dict[str, Any]) -> None:
        self.row = row
        self.refresh_state()

    def refresh_state(self) -> None:
        if not self.is_mounted or not self.query(".card-head"):
            return  # not composed yet, or being taken down (a question cancelled as the app quits)
        row, session = self.row, self.session
        state = state_of(row, session)
        name = row.get("name") or (session.session_name if session else None) or self.handle
        model = str(row.get("model") or "").split("/")[-1]
        self.query_one(".card-head", Static).update(f"{name}  {STATES.get(state, state)}  {model}".rstrip())
        for kind in STATES:
            self.set_class(kind == state, f"-{kind}")
        answer = (session.get_last_assistant_text() if session else None) or row.get("lastAnswer") or ""
        if state == "failed" and row.get("error"):
            answer = f"Error: {row['error']}"
        answer = " ".join(str(answer).split())
        if len(answer) > ANSWER_CHARS:
            answer = "…" + answer[-ANSWER_CHARS:]
        self.query_one(".card-answer", Static).update(answer or "(no answer yet)")
        queued = session.queued_messages() if session else []
        lines = [f"{'steer' if item.kind == 'steer' else 'then'}: {item.text}" for item in queued]
        queue = self.query_one(".card-queue", Static)
        queue.update("\n".join(lines))
        queue.display = bool(lines)

    async def add_question(self, box: QuestionBox) -> None:
        await self.mount(box)
        self.refresh_state()
        self.scroll_visible()
