"""Small modal dialogs for the navigation screens: one line of text, or a yes/no question."""

from __future__ import annotations

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

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(self.question, classes="dialog-title")
            if self.detail:
                yield Static(self.detail)
            yield Static("y / enter: yes · n / esc: no", classes="dialog-hint")
