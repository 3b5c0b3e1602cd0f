"""A cursor list that draws only the lines on screen (Textual's line API), for long lists.

The tree browser (10,000 entries) and the session picker (1,000 sessions) would take
seconds to mount one widget per row. ``VirtualList`` holds a row count and a cursor; the
owner supplies ``render_row(index, width, selected) -> Strip``. Moving the cursor repaints
two lines, or scrolls, so it costs the same at row 5 and row 9,995.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual.css.scalar import Unit
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

RowRenderer = Callable[[int, int, bool], Strip]


class VirtualList(ScrollView, can_focus=True):
    """Rows ``0..count-1`` with one selected; the owner draws each row."""

    DEFAULT_CSS = """
    VirtualList {
        height: 1fr;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
        overflow-x: hidden;
    }
    """

    class Clicked(Message):
        """A row was clicked (the cursor is already on it)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, render_row: RowRenderer, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.render_row = render_row
        self.count = 0
        self.cursor = 0
        self._sized = False

    def on_mount(self) -> None:
        # Textual styles a scrollbar from the stylesheet only once it is shown and its screen is
        # resumed: a picker's second opening then gave its scrollbar all its rules at once, a layout
        # pass and a frame more than the first. Styled now, it has nothing left to change then.
        self.vertical_scrollbar.update_node_styles(animate=False)

    # ------------------------------------------------------------------ state from the owner

    def set_rows(self, count: int, cursor: int) -> None:
        """New row count and cursor (after a filter or search): repaint everything."""
        self.count = count
        self.cursor = min(max(cursor, 0), max(count - 1, 0))
        size = Size(self.size.width, count)
        height = self.scrollable_content_region.height
        if self._sized and self.show_vertical_scrollbar == (count > height):
            # The box and the scrollbar's presence stay: the new length goes to the scrollbar
            # directly. Setting ``virtual_size`` would lay out the whole screen, and the layout
            # makes the scrollbar repaint once more in a frame of its own (a search keystroke
            # was drawn in two frames).
            self.set_reactive(VirtualList.virtual_size, size)
            if self.show_vertical_scrollbar:
                self.vertical_scrollbar.window_virtual_size = count
            self._show_cursor(center=True)
        else:
            self.virtual_size = size
            self._show_cursor(center=True)
            # A list that grew (a search cleared) can only scroll that far once the new size is laid
            # out: until then the scroll is clamped to the old length and the cursor left off screen.
            self.call_after_refresh(self._show_cursor, center=True)
        self.refresh()

    def move_to(self, cursor: int) -> None:
        """Put the cursor on ``cursor`` (clamped), scrolling only when it leaves the view."""
        if not self.count:
            return
        old = self.cursor
        self.cursor = min(max(cursor, 0), self.count - 1)
        if not self._show_cursor(center=False):
            self.refresh_line(old)
            self.refresh_line(self.cursor)

    @property
    def page_size(self) -> int:
        """Rows per page (at least one)."""
        return max(1, self.scrollable_content_region.height - 1)

    def _show_cursor(self, *, center: bool) -> bool:
        """Scroll so the cursor is on screen; True when the view scrolled."""
        height = self._view_height()
        if height <= 0:
            return False
        top = int(self.scroll_offset.y)
        if top <= self.cursor < top + height:
            return False
        if center:
            target = max(0, min(self.cursor - height // 2, self.count - height))
        elif self.cursor < top:
            target = self.cursor
        else:
            target = self.cursor - height + 1
        if target == top:
            return False
        self.scroll_to(y=target, animate=False, immediate=True)
        self.refresh()
        return True

    def _view_height(self) -> int:
        """Rows on screen. Before the first layout, the height set in cells if there is one (a pick
        list sets its own as it fills; the dialog's room may cut it a little): a list that opens
        with its cursor far down is then drawn there in its first frame, not in a frame after."""
        height = self.scrollable_content_region.height
        fixed = self.styles.height
        if height <= 0 and not self._sized and fixed is not None and fixed.unit == Unit.CELLS:
            return max(0, int(fixed.value) - self.styles.gutter.height)
        return height

    # ------------------------------------------------------------------ drawing

    def on_resize(self) -> None:
        # Only the width is new (``set_rows`` keeps the height): the layout that sent this event has
        # sized the scrollbar already, and one more (what setting ``virtual_size`` asks) cost a frame.
        self.set_reactive(VirtualList.virtual_size, Size(self.size.width, self.count))
        # The first real size is when the cursor can be brought into the middle of the view.
        self._show_cursor(center=not self._sized)
        self._sized = True

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if index >= self.count or width <= 0:
            return Strip([Segment(" " * max(width, 0), self.rich_style)], max(width, 0))
        strip = self.render_row(index, width, index == self.cursor)
        # The widget's own colours go underneath, so rows without a background get the list's.
        return strip.adjust_cell_length(width).apply_style(self.rich_style).simplify()

    def on_click(self, event) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < self.count:
            self.move_to(index)
            self.post_message(self.Clicked(index))


def styled_strip(parts: list[tuple[str, Style]], width: int, base: Style) -> Strip:
    """A strip from (text, style) parts, clipped to ``width`` cells and padded with ``base``."""
    segments = [Segment(text, style) for text, style in parts if text]
    strip = Strip(segments)
    if strip.cell_length > width:
        strip = strip.crop(0, width)
    return strip.adjust_cell_length(width, base)
