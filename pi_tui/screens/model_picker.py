"""Ctrl+L / ``/model``: pick a model from those with credentials (type to filter)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


class ModelPicker(ModalScreen[Any]):
    """Returns the chosen ``Model`` (or None when cancelled)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="tui.select.cancel")]

    def __init__(self, models: list[Any], *, current: str = "") -> None:
        super().__init__()
        self.models = models
        self.current = current
        self._shown: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Select a model", classes="picker-title")
            yield Input(placeholder="type to filter", id="picker-filter")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self._fill("")
        self.query_one(Input).focus()

    def _fill(self, query: str) -> None:
        q = query.lower()
        self._shown = [m for m in self.models if q in m.ref.lower() or q in (m.name or "").lower()]
        options = []
        for model in self._shown:
            text = Text(("● " if model.ref == self.current else "  ") + model.ref, style="bold")
            if model.name:
                text.append(f"  {model.name}", style="italic")
            options.append(Option(text))
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(options)
        if options:
            listing.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_key(self, event) -> None:
        listing = self.query_one(OptionList)
        if event.key in ("up", "down") and self._shown:
            event.stop()
            current = listing.highlighted or 0
            listing.highlighted = (current + (1 if event.key == "down" else -1)) % len(self._shown)

    def on_input_submitted(self) -> None:
        self._choose(self.query_one(OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option_index)

    def _choose(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self._shown):
            self.dismiss(self._shown[index])
