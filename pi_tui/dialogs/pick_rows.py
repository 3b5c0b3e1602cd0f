"""The rows of a pick list: group headers and items, drawn only where they are on screen.

A ``PickList`` over 1,700 models made Textual's ``OptionList`` lay out every option on each
keystroke (its heights, wrapping and styles: ~0.3 s per keystroke, ~1 s to open). ``PickRows``
is a ``VirtualList``: it knows the rows, the cursor and how to draw one row, so opening,
filtering and moving cost the same for 10 rows and for 10,000. Items' labels may be made on
demand (``PickItem.label`` as a function), so only the rows drawn are ever built.

Rows are one line each; a label wider than the list is cut. Headers are never the cursor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from .virtual_list import VirtualList


@dataclass
class PickItem:
    """One row of a pick list."""

    value: Any
    """Returned by the screen when picked."""
    label: Text | str | Callable[[], Text]
    """What the row shows, or a function that makes it when the row is first drawn."""
    search: str
    """Text the filter matches against."""
    group: str = ""
    """Group header this item sits under ("" for none)."""
    current: bool = False
    """Marked as the current choice and highlighted first."""
    _made: Text | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> Text:
        """The label, made now if it was given as a function."""
        if isinstance(self.label, Text):
            return self.label
        if self._made is None:
            self._made = Text(self.label) if isinstance(self.label, str) else self.label()
        return self._made


Row = PickItem | str
"""An item, or a group header's title."""


class PickRows(VirtualList):
    """Items under their group headers; the cursor skips headers."""

    COMPONENT_CLASSES = {"pick-rows--highlighted", "pick-rows--header"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(self._paint, id=id)
        self.rows: list[Row] = []
        self._painted: dict[tuple[int, int, Style], tuple[Row, Strip]] = {}
        """Rows drawn before, by (row's identity, width, row style): a search keystroke redraws
        the rows on screen, mostly the same rows as before, each a rich render and five strip copies."""

    def show(self, rows: list[Row], cursor: int | None) -> None:
        """Show ``rows`` with the cursor on row ``cursor`` (None: on nothing)."""
        self.rows = rows
        self.set_rows(len(rows), cursor if cursor is not None else 0)

    @property
    def item(self) -> PickItem | None:
        """The item under the cursor."""
        if not self.rows or not 0 <= self.cursor < len(self.rows):
            return None
        row = self.rows[self.cursor]
        return row if isinstance(row, PickItem) else None

    def step(self, delta: int) -> None:
        """Move by ``delta`` rows, onto the nearest item in that direction (headers are skipped)."""
        if not self.rows:
            return
        target = min(max(self.cursor + delta, 0), len(self.rows) - 1)
        direction = 1 if delta > 0 else -1
        found = self._item_from(target, direction)
        if found is None:
            found = self._item_from(target, -direction)
        if found is not None:
            self.move_to(found)

    def _item_from(self, index: int, direction: int) -> int | None:
        while 0 <= index < len(self.rows):
            if isinstance(self.rows[index], PickItem):
                return index
            index += direction
        return None

    def _paint(self, index: int, width: int, selected: bool) -> Strip:
        row = self.rows[index]
        if isinstance(row, PickItem):
            style = self.get_component_rich_style("pick-rows--highlighted") if selected else Style()
        else:
            style = self.get_component_rich_style("pick-rows--header")
        key = (id(row), width, style)
        drawn = self._painted.get(key)
        if drawn is not None and drawn[0] is row:
            return drawn[1]
        if len(self._painted) > 4096:
            self._painted.clear()
        strip = self._draw(row, width, style)
        self._painted[key] = (row, strip)
        return strip

    def _draw(self, row: Row, width: int, style: Style) -> Strip:
        text = row.text if isinstance(row, PickItem) else Text(row, style="bold")
        console = self.app.console
        strip = Strip(text.render(console, end=""))
        if text.style:  # the label's own style, under its spans (``render`` leaves it out)
            strip = strip.apply_style(console.get_style(text.style))
        strip = strip.crop(0, width)
        # The row's own colours win over the row style, as an option's did in an OptionList.
        return strip.adjust_cell_length(width).apply_style(style)
