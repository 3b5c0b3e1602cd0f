"""A filterable pick list in a modal: the base of the model, thinking, fork and login pickers.

Typing filters with a fuzzy match (every word of the query must appear in order, letters
may be spread out; closer and earlier matches rank first). Items may belong to groups
(providers): a group's header is shown above its items and groups follow their best match.
Up/Down and PageUp/PageDown move while the filter keeps focus; Enter picks; Esc cancels.
The rows are drawn only where they are on screen (``pick_rows.py``), so a list of 1,700
models opens and filters as fast as a list of ten.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from .modal import Modal
from .pick_rows import PickItem, PickRows, Row
from .search_input import SearchInput
from .virtual_list import VirtualList

MAX_ROWS = 24
"""The list's height at most; a longer one scrolls."""

PICKER_CSS = """
PickList { align: center middle; background: transparent; }
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
PickList PickRows { height: auto; max-height: 24; padding: 0 1; background: $pi-bg; color: $pi-text; }
PickList PickRows:focus { background-tint: transparent; }
PickList PickRows > .pick-rows--highlighted { background: $pi-selected-bg; color: $pi-text; }
PickList PickRows:focus > .pick-rows--highlighted { text-style: bold; }
PickList PickRows > .pick-rows--header { color: $pi-muted; }
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
        """The rows shown: an item, or None for a group header."""
        self.filtered_for = ""
        """The filter text the rows were last made for."""
        self._narrowed: tuple[list[PickItem], str, list[tuple[int, PickItem]]] | None = None
        """The last filter's matches (position in ``items``, item) with the items and the query they
        were found for: a query that extends it can only match some of them."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.title_text, classes="picker-title")
            if self.detail:
                yield Static(self.detail, classes="picker-detail")
            if self.filterable:
                yield SearchInput(placeholder=self.placeholder, id="picker-filter")
            yield PickRows(id="picker-list")
            yield Static(self.hint, classes="picker-hint")

    def on_mount(self) -> None:
        self.refill("")
        if self.filterable:
            search = self.query_one(Input)
            # Refilled as the key changes the text, so the echo and the new rows are drawn in one
            # frame: the Input's Changed message arrives after the echo's frame and cost another.
            self.watch(search, "value", self._search_changed, init=False)
            search.focus()
        else:
            self.query_one(PickRows).focus()

    def _search_changed(self, value: str) -> None:
        if value != self.filtered_for:
            self.refill(value)

    # ------------------------------------------------------------------ filtering

    def matching(self, query: str) -> list[PickItem]:
        """Items that match ``query``, best first within their group, groups by best match."""
        if not query.strip():
            return list(self.items)
        candidates: Iterable[tuple[int, PickItem]] = enumerate(self.items)
        last = self._narrowed
        # Every word of a longer query is a word of the shorter one, or that word extended: what did
        # not match before cannot match now (typing a search narrows 1,700 rows to a few hundred).
        if last is not None and last[0] is self.items and query.startswith(last[1]):
            candidates = last[2]
        scored = [(s, i, item) for i, item in candidates if (s := fuzzy_score(query, item.search)) is not None]
        self._narrowed = (self.items, query, [(i, item) for _, i, item in scored])
        best: dict[str, float] = {}
        for s, _, item in scored:
            best[item.group] = max(best.get(item.group, s), s)
        scored.sort(key=lambda t: (-best[t[2].group], t[2].group, -t[0], t[1]))
        return [item for _, _, item in scored]

    def refill(self, query: str) -> None:
        """Show the items matching ``query`` (group headers as rows of their own)."""
        self.filtered_for = query
        rows: list[Row] = []
        self.shown = []
        group = None
        for item in self.matching(query):
            if item.group and item.group != group:
                group = item.group
                rows.append(group)
                self.shown.append(None)
            rows.append(item)
            self.shown.append(item)
        first = next((i for i, it in enumerate(self.shown) if it is not None and it.current), None)
        if first is None or query.strip():
            first = next((i for i, it in enumerate(self.shown) if it is not None), None)
        listing = self.query_one(PickRows)
        listing.styles.height = max(1, min(len(rows), MAX_ROWS, self._room_for_rows()))
        listing.show(rows, first)

    def _room_for_rows(self) -> int:
        """Rows the list may take so that the dialog, within its maximum height, shows the hint too."""
        box = self.query_one("#picker")
        size = self.app.size
        styles = box.styles

        def resolve(value: Any, fallback: int) -> int:
            return int(value.resolve(size, size)) if value is not None else fallback

        width = min(resolve(styles.width, size.width), resolve(styles.max_width, size.width))
        inner = max(10, width - 4)  # less the border and the padding
        lines = lambda text: -(-len(text) // inner) if text else 0  # ceil division
        chrome = 2 + 1 + lines(self.detail) + (3 if self.filterable else 0) + lines(self.hint)
        return resolve(styles.max_height, size.height) - chrome

    @property
    def highlighted(self) -> int | None:
        """The row (index into ``shown``) under the cursor, None when no item is."""
        listing = self.query_one(PickRows)
        return listing.cursor if listing.item is not None else None

    @highlighted.setter
    def highlighted(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.shown) and self.shown[index] is not None:
            self.query_one(PickRows).move_to(index)

    @property
    def highlighted_item(self) -> PickItem | None:
        """The item under the cursor."""
        return self.query_one(PickRows).item

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value != self.filtered_for:
            self.refill(event.value)

    def _catch_up(self) -> None:
        """Rows for the filter as typed so far: the input's ``Changed`` message may still be on
        its way when the next key (a move, Enter) arrives in the same burst."""
        if self.filterable:
            value = self.query_one(Input).value
            if value != self.filtered_for:
                self.refill(value)

    def on_key(self, event) -> None:
        # Moves and Enter act at once, in the order typed (the input's Submitted message would be
        # handled after the rest of a burst: Enter, Down, Enter picked the last row twice).
        listing = self.query_one(PickRows)
        page = listing.page_size
        moves = {"up": -1, "down": 1, "pageup": -page, "pagedown": page}
        if event.key in moves:
            event.stop()
            event.prevent_default()
            self._catch_up()
            listing.step(moves[event.key])
        elif event.key == "enter" and (listing.has_focus or (self.filterable and self.query_one(Input).has_focus)):
            event.stop()
            event.prevent_default()
            self._catch_up()
            self.pick(self.highlighted)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.pick(self.highlighted)

    def on_virtual_list_clicked(self, event: VirtualList.Clicked) -> None:
        event.stop()
        self.pick(event.index)

    def pick(self, index: int | None, *, save: bool = False) -> None:
        """Dismiss with the item at row ``index`` (headers and None are ignored); with
        ``save``, wrapped in ``Saved``."""
        if index is not None and 0 <= index < len(self.shown):
            item = self.shown[index]
            if item is not None:
                self.dismiss(Saved(item.value) if save else item.value)

    def action_save(self) -> None:
        """The save key of pickers that offer one (``app.models.save``, ``app.thinking.save``)."""
        self.pick(self.highlighted, save=True)


__all__ = ["PICKER_CSS", "PickItem", "PickList", "Saved", "fuzzy_score"]
