"""Messages that are neither prompts nor answers: the user's ``!`` commands, compaction and
branch summaries, extension (custom) messages. Each has a label line and a body."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from .render import OUTPUT_PREVIEW_LINES, tail_lines


class MessagePanel(Vertical):
    """A labelled panel; ``variant`` is bash, compaction, branch or custom (CSS picks colours)."""

    def __init__(self, label: str, body: str, variant: str, *, message: Any = None, expanded: bool = False) -> None:
        super().__init__(classes=f"message-panel panel-{variant}")
        self.label = label
        self.body = body
        self.variant = variant
        self.message = message
        self.expanded = expanded
        """Show the whole body (bash output is otherwise cut to its last lines)."""

    def compose(self) -> ComposeResult:
        yield Static(Text(self.label, style="bold"), classes="panel-label", markup=False)
        yield Static(self._body_text(), classes="panel-body", markup=False)

    def _body_text(self) -> RenderableType:
        if self.variant == "bash" and not self.expanded:
            shown, hidden = tail_lines(self.body, OUTPUT_PREVIEW_LINES)
            prefix = f"… {hidden} earlier lines\n" if hidden else ""
            return Text(prefix + shown)
        return Text(self.body)

    def append_output(self, delta: str) -> None:
        """More live output of a running ``!`` command."""
        self.body += delta
        if self.is_mounted:
            self.query_one(".panel-body", Static).update(self._body_text())

    def set_label(self, label: str) -> None:
        self.label = label
        if self.is_mounted:
            self.query_one(".panel-label", Static).update(Text(label, style="bold"))

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        if self.is_mounted:
            self.query_one(".panel-body", Static).update(self._body_text())
