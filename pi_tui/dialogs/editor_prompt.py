"""A multi-line text dialog (an extension's ``ui.editor``): Ctrl+S saves, Esc cancels."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from .modal import Modal
from .text_prompt import DIALOG_CSS


class EditorPrompt(Modal[str | None]):
    """Returns the edited text, or None when cancelled."""

    DEFAULT_CSS = DIALOG_CSS + """
    EditorPrompt { align: center middle; background: transparent; }
    EditorPrompt TextArea { height: 16; border: tall $pi-border-muted; background: $pi-bg; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "dismiss(None)", "Cancel", priority=True),
    ]

    def __init__(self, title: str, prefill: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prefill = prefill

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield TextArea(self.prefill, id="editor-text")
            yield Static("ctrl+s to save · esc to cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)
