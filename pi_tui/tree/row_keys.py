"""The keys ``/tree`` and the tree pane share: moving, folding, filters and timestamps.

Both hold a ``TreeRows`` and a ``VirtualList``; what differs is what follows a move (the pane
also asks for a preview of the row it lands on), so each says that in ``_after_move``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..dialogs.virtual_list import VirtualList
    from .row_painter import RowPainter
    from .tree_rows import TreeRows


FILTER_NAMES = {"default": "default", "no-tools": "no tool results", "user-only": "user messages",
                "labeled-only": "labeled", "all": "all entries"}

TREE_KEYS_BY_ID = {
    "tui.select.up": "up", "tui.select.down": "down",
    "tui.select.pageUp": "page_up", "tui.select.pageDown": "page_down",
    "tui.select.confirm": "select", "tui.select.cancel": "cancel",
    "app.tree.foldOrUp": "fold_or_up", "app.tree.unfoldOrDown": "unfold_or_down",
    "app.tree.editLabel": "edit_label", "app.tree.toggleLabelTimestamp": "toggle_timestamps",
    "app.tree.filter.default": "filter_default", "app.tree.filter.noTools": "filter_no_tools",
    "app.tree.filter.userOnly": "filter_user_only", "app.tree.filter.labeledOnly": "filter_labeled_only",
    "app.tree.filter.all": "filter_all", "app.tree.filter.cycleForward": "cycle_forward",
    "app.tree.filter.cycleBackward": "cycle_backward",
}
"""Pi's key ids for the tree, and the method (``key_<name>``) each runs."""

TREE_FIXED_KEYS = {"left": "page_up", "right": "page_down", "home": "top", "end": "bottom"}
"""Pi pages the tree with left/right; home/end are extras."""


class TreeRowKeys:
    """Mixed into a tree view; it supplies ``_rows()``, ``_after_move()``, ``list`` and ``painter``."""

    list: VirtualList
    painter: RowPainter

    def _rows(self) -> TreeRows:
        raise NotImplementedError

    def _after_move(self, *, full: bool) -> None:
        """Redraw after a change; ``full`` when the visible rows themselves changed (filter, fold)."""
        raise NotImplementedError

    def _move(self, step: int) -> None:
        self._rows().move(step)
        self._after_move(full=False)

    def key_up(self) -> None:
        self._move(-1)

    def key_down(self) -> None:
        self._move(1)

    def key_page_up(self) -> None:
        self._move(-self.list.page_size)

    def key_page_down(self) -> None:
        self._move(self.list.page_size)

    def key_top(self) -> None:
        self._move(-len(self._rows().visible))

    def key_bottom(self) -> None:
        self._move(len(self._rows().visible))

    def key_fold_or_up(self) -> None:
        self._rows().fold_or_up()
        self._after_move(full=True)

    def key_unfold_or_down(self) -> None:
        self._rows().unfold_or_down()
        self._after_move(full=True)

    def key_toggle_timestamps(self) -> None:
        self.painter.show_label_times = not self.painter.show_label_times
        self.list.refresh()

    def _filter(self, mode: str) -> None:
        self._rows().toggle_filter(mode)
        self._after_move(full=True)

    def key_filter_default(self) -> None:
        self._filter("default")

    def key_filter_no_tools(self) -> None:
        self._filter("no-tools")

    def key_filter_user_only(self) -> None:
        self._filter("user-only")

    def key_filter_labeled_only(self) -> None:
        self._filter("labeled-only")

    def key_filter_all(self) -> None:
        self._filter("all")

    def key_cycle_forward(self) -> None:
        self._rows().cycle_filter(1)
        self._after_move(full=True)

    def key_cycle_backward(self) -> None:
        self._rows().cycle_filter(-1)
        self._after_move(full=True)
