"""A filterable pick list in a modal: the base of the model, thinking, fork and login pickers.

Typing filters with a fuzzy match (every word of the query must appear in order, letters
may be spread out; closer and earlier matches rank first). Items may belong to groups
(providers): a group's header is shown above its items and groups follow their best match.
Up/Down and PageUp/PageDown move while the filter keeps focus; Enter picks; Esc cancels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from .modal import Modal

PICKER_CSS = """
PickList { align: center middle; background: $background 60%; }
PickList > #picker {
    width: 90%;
    max-width: 110;
    height: auto;
    max-height: 90%;
    border: round $pi-border-accent;
    background: $pi-bg;
    padding: 0 1;
}
PickList .picker-title { color: $pi-accent; text-style: bold; }
PickList .picker-hint { color: $pi-dim; }
PickList .picker-detail { color: $pi-muted; }
PickList Input { border: tall $pi-border-muted; background: $pi-bg; color: $pi-text; }
PickList Input:focus { border: tall $pi-border-accent; }
PickList OptionList { height: auto; max-height: 24; border: none; background: $pi-bg; color: $pi-text; }
PickList OptionList:focus { border: none; background-tint: transparent; }
PickList OptionList > .option-list--option-highlighted,
PickList OptionList:focus > .option-list--option-highlighted { background: $pi-selected-bg; color: $pi-text; }
PickList OptionList > .option-list--option-disabled { color: $pi-muted; }
"""


def fuzzy_score(query: str, text: str) -> float | None:
    """How well ``query`` matches ``text`` (higher is better); None when it does not.

    Args:
        query: What the user typed; words separated by spaces must each match.
        text: The searchable text of an item.
    """
    haystack = text.lower()
    total = 0.0
    for word in query.lower().split():
        found = haystack.find(word)
        if found >= 0:  # a plain substring beats any spread-out match
            total += 100 - min(found, 50) + len(word) * 2
            continue
        pos, gaps, first = 0, 0, -1
        for ch in word:
            nxt = haystack.find(ch, pos)
            if nxt < 0:
                return None
            if first < 0:
                first = nxt
            gaps += nxt - pos if pos else 0
            pos = nxt + 1
        total += 40 - min(gaps, 30) - min(first, 9)
    return total


@dataclass
class PickItem:
    """One row of a pick list."""

    value: Any
    """Returned by the screen when picked."""
    label: Text
    """What the row shows."""
    search: str
    """Text the filter matches against."""
    group: str = ""
    """Group header this item sits under ("" for none)."""
    current: bool = False
    """Marked as the current choice and highlighted first."""


@dataclass(frozen=True)
class Saved:
    """What a picker returns when its save key was pressed: use ``value`` and keep it as the default."""

    value: Any


class PickList(Modal[Any]):
    """Returns the picked item's ``value`` (or None when cancelled)."""

    DEFAULT_CSS = PICKER_CSS
    BINDINGS = [Binding("escape,ctrl+c", "dismiss(None)", "Cancel", id="tui.select.cancel")]

    def __init__(self, title: str, items: list[PickItem], *, hint: str = "", detail: str = "",
                 placeholder: str = "type to filter", filterable: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.items = items
        self.hint = hint or "↑↓ move · enter select · esc cancel"
        self.detail = detail
        self.placeholder = placeholder
        self.filterable = filterable
        self.shown: list[PickItem | None] = []
        """Rows of the option list: an item, or None for a group header."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.title_text, classes="picker-title")
            if self.detail:
                yield Static(self.detail, classes="picker-detail")
            if self.filterable:
                yield Input(placeholder=self.placeholder, id="picker-filter")
            yield OptionList(id="picker-list")
            yield Static(self.hint, classes="picker-hint")

    def on_mount(self) -> None:
        self.refill("")
        if self.filterable:
            self.query_one(Input).focus()
        else:
            self.query_one(OptionList).focus()

    # ------------------------------------------------------------------ filtering

    def matching(self, query: str) -> list[PickItem]:
        """Items that match ``query``, best first within their group, groups by best match."""
        if not query.strip():
            return list(self.items)
        scored = [(s, i, item) for i, item in enumerate(self.items)
                  if (s := fuzzy_score(query, item.search)) is not None]
        best: dict[str, float] = {}
        for s, _, item in scored:
            best[item.group] = max(best.get(item.group, s), s)
        scored.sort(key=lambda t: (-best[t[2].group], t[2].group, -t[0], t[1]))
        return [item for _, _, item in scored]

    def refill(self, query: str) -> None:
        """Show the items matching ``query`` (group headers as disabled rows)."""
        items = self.matching(query)
        options: list[Option] = []
        self.shown = []
        group = None
        for item in items:
            if item.group and item.group != group:
                group = item.group
                options.append(Option(Text(item.group, style="bold"), disabled=True))
                self.shown.append(None)
            options.append(Option(item.label))
            self.shown.append(item)
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(options)
        first = next((i for i, it in enumerate(self.shown) if it is not None and it.current), None)
        if first is None or query.strip():
            first = next((i for i, it in enumerate(self.shown) if it is not None), None)
        listing.highlighted = first

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refill(event.value)

    def on_key(self, event) -> None:
        listing = self.query_one(OptionList)
        moves = {"up": listing.action_cursor_up, "down": listing.action_cursor_down,
                 "pageup": listing.action_page_up, "pagedown": listing.action_page_down}
        if event.key in moves and not listing.has_focus:
            event.stop()
            event.prevent_default()
            moves[event.key]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.pick(self.query_one(OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.pick(event.option_index)

    def pick(self, index: int | None, *, save: bool = False) -> None:
        """Dismiss with the item at option row ``index`` (headers and None are ignored); with
        ``save``, wrapped in ``Saved``."""
        if index is not None and 0 <= index < len(self.shown):
            item = self.shown[index]
            if item is not None:
                self.dismiss(Saved(item.value) if save else item.value)

    def action_save(self) -> None:
        """The save key of pickers that offer one (``app.models.save``, ``app.thinking.save``)."""
        self.pick(self.query_one(OptionList).highlighted, save=True)
