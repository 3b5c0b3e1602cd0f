"""``PhoneApp``: every session of a ``pi serve`` as a card, for a phone-sized screen.

It is a client of the server like ``pi attach``: it attaches every running session (and those
opened later, found by listing the sessions every few seconds: the server announces no new
session), redraws a card on each of that session's events, and answers extension questions
through the session's UI binding. Quitting detaches; every run goes on in the server.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from .cards import STATES, SessionCard, state_of
from .questions import PhoneQuestions, QuestionBox

if TYPE_CHECKING:
    from pi_runtime.frontend import ServeClient

LIST_EVERY = 3.0
"""Seconds between listings (new and closed sessions, states of sessions without events)."""


class PhoneApp(App[int]):
    """Args:
    socket: The ``pi serve`` socket to attach to.
    """

    TITLE = "pi"
    CSS = """
    Screen { padding: 0 1; }
    #phone-status { color: $text-muted; height: auto; margin: 0 0 1 0; }
    """
    BINDINGS = [
        ("a", "answer(True)", "Approve"),
        ("d", "answer(False)", "Deny"),
        ("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, socket: Path) -> None:
        super().__init__()
        self.socket = socket
        self.client: ServeClient | None = None
        self.cards: dict[str, SessionCard] = {}

    def compose(self) -> ComposeResult:
        yield Static("Connecting to pi serve…", id="phone-status", markup=False)
        yield VerticalScroll(id="cards")

    def on_mount(self) -> None:
        self.run_worker(self._connect(), name="connect", exit_on_error=False)

    async def _connect(self) -> None:
        from pi_runtime.frontend import NoServer, ServeClient

        try:
            self.client = await ServeClient.connect(self.socket, client="pi phone")
        except NoServer as exc:
            self._say(str(exc))
            return
        await self._list()
        self.set_interval(LIST_EVERY, self._list_soon)

    def _say(self, text: str) -> None:
        self.query_one("#phone-status", Static).update(text)

    def _list_soon(self) -> None:
        self.run_worker(self._list(), name="list", group="list", exclusive=True, exit_on_error=False)

    async def _list(self) -> None:
        client = self.client
        if client is None:
            return
        rows = await client.list_sessions()
        seen = {str(row["session"]) for row in rows}
        for handle in [h for h in self.cards if h not in seen]:
            await self.cards.pop(handle).remove()
        for row in rows:
            handle = str(row["session"])
            card = self.cards.get(handle)
            if card is None:
                card = self.cards[handle] = SessionCard(handle, row)
                await self.query_one("#cards", VerticalScroll).mount(card)
                await self._attach_card(client, card)
            else:
                card.update_row(row)
        self._say(self._summary() if rows else "No session is running on this pi serve.")

    def _summary(self) -> str:
        """One line over the cards: how many sessions are in which state, and the answer keys."""
        counts: dict[str, int] = {}
        for card in self.cards.values():
            state = state_of(card.row, card.session)
            counts[state] = counts.get(state, 0) + 1
        parts = [f"{counts[state]} {STATES[state].split(' ', 1)[1]}" for state in STATES if counts.get(state)]
        keys = " · a/d: approve/deny" if counts.get("waiting") else ""
        return ", ".join(parts) + keys

    async def _attach_card(self, client: ServeClient, card: SessionCard) -> None:
        session = await client.attach(card.handle)
        card.session = session
        session.subscribe(lambda _event: card.refresh_state())
        session.ui.bind(PhoneQuestions(card))
        card.refresh_state()

    def action_answer(self, value: Any) -> None:
        """Approve or deny the first open yes/no question (the keys beside the buttons)."""
        for box in self.query(QuestionBox):
            if box.kind == "confirm":
                box.answer(value)
                return
