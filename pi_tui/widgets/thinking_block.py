"""The model's thinking: dim text that collapses to one line (Ctrl+T toggles all)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static


class ThinkingBlock(Static):
    """Thinking text; ``collapsed`` shows only a one-line marker."""

    collapsed: reactive[bool] = reactive(False)
    """Hide the text (the app sets it for every block at once)."""

    def __init__(self, text: str = "", *, message: Any = None, collapsed: bool = False) -> None:
        super().__init__("", classes="thinking", markup=False)
        self.text = text
        """Thinking so far."""
        self.message = message
        self.set_reactive(ThinkingBlock.collapsed, collapsed)

    def on_mount(self) -> None:
        self._show()

    def append(self, delta: str) -> None:
        self.text += delta
        if not self.collapsed:
            self._show()

    def watch_collapsed(self) -> None:
        self._show()

    def _show(self) -> None:
        if self.collapsed:
            lines = len(self.text.splitlines()) or 1
            self.update(Text(f"▸ Thinking ({lines} line{'s' if lines != 1 else ''}, ctrl+t to show)", style="italic"))
        else:
            self.update(Text(self.text.strip() or "Thinking…", style="italic"))
