"""The model's thinking: dim text that collapses to one line (Ctrl+T toggles all).

Deltas are only buffered; the text is redrawn at most once per frame, as for answers.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from .streaming_markdown import FRAME_SECONDS


class ThinkingBlock(Static):
    """Thinking text; ``collapsed`` shows only a one-line marker."""

    collapsed: reactive[bool] = reactive(False)
    """Hide the text (the app sets it for every block at once)."""

    hidden_label: reactive[str | None] = reactive(None)
    """An extension's label for the collapsed block (``ctx.ui.set_hidden_thinking_label``); None is
    pi's own marker, ``""`` hides collapsed blocks altogether (no blank row, as in Pi)."""

    def __init__(self, text: str = "", *, message: Any = None, collapsed: bool = False,
                 hidden_label: str | None = None) -> None:
        super().__init__("", classes="thinking", markup=False)
        self.text = text
        """Thinking so far."""
        self.message = message
        self.set_reactive(ThinkingBlock.collapsed, collapsed)
        self.set_reactive(ThinkingBlock.hidden_label, hidden_label)
        self._redraw: Timer | None = None

    def on_mount(self) -> None:
        self._show()

    def append(self, delta: str) -> None:
        """More thinking text; shown with the next frame."""
        self.text += delta
        if self._redraw is None and self.is_mounted:
            self._redraw = self.set_timer(FRAME_SECONDS, self._show)

    def watch_collapsed(self) -> None:
        self._show()

    def watch_hidden_label(self) -> None:
        self._show()

    def _show(self) -> None:
        self._redraw = None
        self.display = not (self.collapsed and self.hidden_label == "")
        if self.collapsed and self.hidden_label:
            self.update(Text(self.hidden_label, style="italic"))
        elif self.collapsed:
            lines = len(self.text.splitlines()) or 1
            self.update(Text(f"▸ Thinking ({lines} line{'s' if lines != 1 else ''}, ctrl+t to show)", style="italic"))
        else:
            self.update(Text(self.text.strip() or "Thinking…", style="italic"))
