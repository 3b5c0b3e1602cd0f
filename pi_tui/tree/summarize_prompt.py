""""Summarize branch?" — asked after choosing an entry in ``/tree`` before moving the leaf.

Returns what ``AgentSession.navigate_tree(entry_id, summarize=...)`` takes: ``False`` (no
summary), ``True`` (summarize) or the custom instructions (a ``str``); ``None`` when the
user backs out (stay where you are).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..dialogs.modal import Modal
from ..dialogs.text_prompt import DIALOG_CSS

CHOICES = ("No summary", "Summarize", "Summarize with custom prompt")


class SummarizePrompt(Modal[bool | str | None]):
    """Three choices; the third asks for instructions in an input line."""

    DEFAULT_CSS = DIALOG_CSS + """
    SummarizePrompt OptionList { height: auto; border: none; background: $pi-bg; }
    SummarizePrompt OptionList > .option-list--option-highlighted { background: $pi-selected-bg; color: $pi-text; }
    SummarizePrompt #summary-instructions { display: none; }
    SummarizePrompt.custom #summary-instructions { display: block; }
    """
    BINDINGS = [Binding("escape,ctrl+c", "back", "Cancel", id="tui.select.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static("Summarize the branch you are leaving?", classes="dialog-title")
            yield OptionList(*(Option(text) for text in CHOICES), id="summary-choice")
            yield Input(placeholder="what should the summary focus on?", id="summary-instructions")
            yield Static("↑↓ choose · enter confirm · esc cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        choice = self.query_one(OptionList)
        choice.highlighted = 0
        choice.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index == 2:
            self.add_class("custom")
            self.query_one(Input).focus()
        else:
            self.dismiss(event.option_index == 1)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        # Empty instructions mean a plain summary rather than an empty custom prompt.
        self.dismiss(text if text else True)

    def action_back(self) -> None:
        if self.has_class("custom"):
            self.remove_class("custom")
            self.query_one(OptionList).focus()
        else:
            self.dismiss(None)
