"""Small modal dialogs for the navigation screens: one line of text, or a yes/no question."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from .modal import Modal

DIALOG_CSS = """
TextPrompt, ConfirmPrompt, SummarizePrompt { align: center middle; background: transparent; }
.nav-dialog {
    width: 70%;
    max-width: 80;
    height: auto;
    border: round $pi-border-accent;
    background: $pi-bg;
    padding: 0 1;
}
.nav-dialog .dialog-title { color: $pi-accent; text-style: bold; }
.nav-dialog .dialog-hint { color: $pi-dim; }
.nav-dialog .dialog-error { color: $pi-error; }
.nav-dialog Input { border: tall $pi-border-muted; background: $pi-bg; color: $pi-text; }
.nav-dialog Input:focus { border: tall $pi-border-accent; }
"""


class TextPrompt(Modal[str | None]):
    """Asks for one line; returns the text (possibly "") or None when cancelled."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape,ctrl+c", "dismiss(None)", "Cancel", id="tui.select.cancel")]

    def __init__(self, title: str, value: str = "", *, hint: str = "enter to save · esc to cancel",
                 placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.hint = hint
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static(self.hint, classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)


class ConfirmPrompt(Modal[bool]):
    """A yes/no question: y or enter confirms, n or esc declines."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [
        Binding("y,enter", "dismiss(True)", "Yes"),
        Binding("n,escape", "dismiss(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "", *, detail_now: Callable[[], str] | None = None) -> None:
        """``detail_now``, when given, says what the detail is at the moment: the question is
        about a state that can change while it is open (a run that finishes), and the detail is
        read again four times a second."""
        super().__init__()
        self.question = question
        self.detail = detail_now() if detail_now is not None else detail
        self._detail_now = detail_now

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(self.question, classes="dialog-title")
            if self.detail or self._detail_now is not None:
                yield Static(self.detail, classes="dialog-detail")
            yield Static("y / enter: yes · n / esc: no", classes="dialog-hint")

    def on_mount(self) -> None:
        if self._detail_now is not None:
            self.set_interval(0.25, self._refresh_detail)

    def _refresh_detail(self) -> None:
        assert self._detail_now is not None
        detail = self._detail_now()
        if detail != self.detail:
            self.detail = detail
            self.query_one(".dialog-detail", Static).update(detail)
