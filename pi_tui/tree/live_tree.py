"""``LiveTree``: the ``/tree`` browser's rows (``TreeRows``), kept current as the session grows.

The tree pane stays open while the agent works, so its rows cannot be flattened again for
every entry (20,000 entries take tens of milliseconds). After each batch of kernel events the
pane calls ``sync()``, which reads only the entries appended since the last call (the session
only ever appends) and the leaf. An entry that continues a branch at the end of the flattened
order (a turn on the newest branch, the usual case) becomes one more row: its ancestors' subtree
ends move by one and it joins the visible rows if the filter and search pass it. On an older
branch (not last in the flattened order) the rows after it move down by one index, one pass
without building anything. Only a second child (it redraws the guides of its older sibling's
subtree) or another session flattens again, keeping the filter, search, folds and cursor.
No Textual here.
"""

from __future__ import annotations

import gc
from bisect import insort
from typing import Any

from .tree_rows import MAX_GUIDE_LEVELS, TreeRows, new_row

_CONNECTORS = ("├─ ", "└─ ")


class LiveTree:
    """The rows of ``session``'s tree, brought up to date by ``sync()``."""

    def __init__(self, session: Any, filter_mode: str = "default") -> None:
        """
        Args:
            session: A ``SessionPort`` (its ``session_manager`` entries and leaf are read).
            filter_mode: The first filter (``treeFilterMode``); an unknown one keeps the default.
        """
        self.session = session
        self.rebuilds = 0
        """How many times the rows were flattened from scratch (tests and the bench read it)."""
        self._manager: Any = None
        self._first: Any = None
        """The first entry seen: fork and clone refill the same manager with other entries."""
        self._seen = 0
        self._leaf: str | None = None
        self.rows: TreeRows = self._flatten(None)
        if filter_mode != self.rows.filter:
            try:
                self.rows.set_filter(filter_mode)
            except ValueError:
                pass
            self.rows.go_to_row(self.rows.display_leaf())

    # ------------------------------------------------------------------ building

    def _flatten(self, previous: TreeRows | None) -> TreeRows:
        manager = self.session.session_manager
        entries = manager.raw_entries()
        # 20,000 rows are 20,000 new objects at once: the collector's passes over the session's
        # big heap meanwhile cost more than the flattening itself (measured: 190 ms vs 50 ms).
        collecting = gc.isenabled()
        gc.disable()
        try:
            rows = TreeRows(entries, manager.leaf_id)
        finally:
            if collecting:
                gc.enable()
        self.rebuilds += 1
        if previous is not None and manager is self._manager:
            # The same session grew in a way one more row cannot show: keep what the user set.
            cursor_id = previous.current_id
            rows.filter, rows.query = previous.filter, previous.query
            rows.folded = {rows.row_of[previous.rows[r].entry_id] for r in previous.folded
                           if previous.rows[r].entry_id in rows.row_of}
            rows.refresh_visible()
            if cursor_id is None or previous.current_row == previous.display_leaf():
                rows.go_to_row(rows.display_leaf())  # it followed the leaf: it still does
            else:
                rows.go_to_row(rows.row_of.get(cursor_id, 0))
        self._manager, self._seen, self._leaf = manager, len(entries), manager.leaf_id
        self._first = entries[0] if entries else None
        return rows

    def rebuild(self) -> None:
        """Flatten again, keeping the filter, search, folds and cursor."""
        self.rows = self._flatten(self.rows)

    def reset(self) -> None:
        """Another session (new, switched, forked, cloned): flatten it, keeping only the filter."""
        mode = self.rows.filter
        self.rows = self._flatten(None)
        self.rows.set_filter(mode)
        self.rows.go_to_row(self.rows.display_leaf())

    # ------------------------------------------------------------------ following the session

    def sync(self) -> str:
        """Take in what changed since the last call.

        Returns:
            ``"none"``, ``"leaf"`` (only the leaf moved), ``"appended"`` (rows were added at the
            end) or ``"rebuilt"`` (flattened again).
        """
        manager = self.session.session_manager
        entries = manager.raw_entries()
        if (manager is not self._manager or len(entries) < self._seen
                or (self._seen and entries[0] is not self._first)):
            self.reset()
            return "rebuilt"
        outcome = "none"
        if len(entries) > self._seen:
            on_leaf = self.rows.current_row == self.rows.display_leaf()
            if not self._seen:
                self._first = entries[0]
            for entry in entries[self._seen:]:
                if not self._append(entry):
                    self.rebuild()
                    return "rebuilt"
            self._seen = len(entries)
            outcome = "appended"
            self._move_leaf(manager.leaf_id, follow=on_leaf)
        elif manager.leaf_id != self._leaf:
            self._move_leaf(manager.leaf_id, follow=self.rows.current_row == self.rows.display_leaf())
            outcome = "leaf"
        return outcome

    def _append(self, entry: dict[str, Any]) -> bool:
        """Add ``entry`` as the only child of its parent; False when that cannot be done in place."""
        tree = self.rows
        rows, entry_id = tree.rows, entry.get("id")
        if not isinstance(entry_id, str) or entry_id in tree.row_of:
            return not isinstance(entry_id, str)  # a damaged entry is skipped, as flattening skips it
        parent_id = entry.get("parentId")
        if parent_id is None:
            if rows:
                return False  # a second root: the first one's guides change
            guide, parent = "", -1
        else:
            parent = tree.row_of.get(parent_id, -2)
            if parent < 0 or rows[parent].children:
                return False  # an orphan, or a new branch (its older sibling's guides change)
            guide = _continuation(rows[parent].guide)
        # An only child comes right after its parent. On the newest branch that is the end of
        # the list; on an older one the rows after it move down by one (one pass, no flattening).
        pos = parent + 1
        anchor = tree.current_row
        if pos < len(rows):
            self._shift_from(pos)
        rows.insert(pos, new_row(entry, rows, parent, guide, pos + 1, 0))
        tree.row_of[entry_id] = pos
        hidden = False
        ancestor = parent
        if parent >= 0:
            rows[parent].children = 1
        while ancestor >= 0:  # every ancestor's subtree now holds one more row
            row = rows[ancestor]
            row.end += 1
            hidden = hidden or ancestor in tree.folded
            ancestor = row.parent
        if not hidden and tree.passes(pos):
            insort(tree.visible, pos)
        if anchor >= 0:
            tree.go_to_row(anchor + 1 if anchor >= pos else anchor)
        if entry.get("type") == "label" and isinstance(entry.get("targetId"), str):
            tree.set_label(entry["targetId"], entry.get("label") or None, str(entry.get("timestamp", "")))
        return True

    def _shift_from(self, pos: int) -> None:
        """Make room at row ``pos``: every index from there on grows by one."""
        tree = self.rows
        rows, row_of = tree.rows, tree.row_of
        for index in range(pos, len(rows)):
            row = rows[index]
            row.end += 1
            if row.parent >= pos:
                row.parent += 1
            row_of[row.entry_id] = index + 1
        tree.visible = [v + 1 if v >= pos else v for v in tree.visible]
        tree.folded = {f + 1 if f >= pos else f for f in tree.folded}
        if tree.leaf_row >= pos:
            tree.leaf_row += 1

    def _move_leaf(self, leaf_id: str | None, *, follow: bool) -> None:
        """Mark the path to the new leaf (only the part that changed) and, with ``follow``, put the cursor on it."""
        tree = self.rows
        rows = tree.rows
        new = tree.row_of.get(leaf_id, -1) if leaf_id else -1
        row = new
        while row >= 0 and not rows[row].on_path:
            rows[row].on_path = True
            row = rows[row].parent
        common = row
        row = tree.leaf_row
        while row >= 0 and row != common:
            rows[row].on_path = False
            row = rows[row].parent
        old, tree.leaf_row = tree.leaf_row, new
        self._leaf = leaf_id
        # A tool-call-only answer is shown only while it is the leaf.
        for changed in (old, new):
            if changed >= 0 and rows[changed].textless:
                tree.recheck(changed)
        if follow:
            tree.go_to_row(tree.display_leaf())


def _continuation(parent_guide: str) -> str:
    """The guide of an only child: its parent's column, continued (as ``TreeRows`` draws it)."""
    connector = parent_guide[-3:] if parent_guide.endswith(_CONNECTORS) else ""
    gutter = parent_guide[:len(parent_guide) - len(connector)]
    cont = gutter + ("│  " if connector == "├─ " else "   " if connector else "")
    return gutter if len(cont) > 3 * MAX_GUIDE_LEVELS else cont
