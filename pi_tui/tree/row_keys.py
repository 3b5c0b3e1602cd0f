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
