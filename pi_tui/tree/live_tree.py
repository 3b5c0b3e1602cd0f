"""``LiveTree``: the ``/tree`` browser's rows (``TreeRows``), kept current as the session grows.

The tree pane stays open while the agent works, so its rows cannot be flattened again for
every entry (20,000 entries take tens of milliseconds). After each batch of kernel events the
pane calls ``sync()``, which reads only the entries appended since the last call (the session
only ever appends) and the leaf. An entry that continues a branch at the end of the flattened
order (a turn on the newest branch, the usual case) becomes one more row: its ancestors' subtree
ends move by one and it joins the visible rows if the filter and search pass it. Anything
else (a second child, which redraws the guides of its older sibling's subtree; a branch that
is not last; another session) flattens again once, keeping the filter, search, folds and cursor.
No Textual here.
"""

from __future__ import annotations

from typing import Any

from ..transcript.entry_summary import kind_of
from .tree_rows import MAX_GUIDE_LEVELS, Row, TreeRows

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
        try:
            self.rows.set_filter(filter_mode)
        except ValueError:
            pass
        self.rows.go_to_row(self.rows.display_leaf())

    # ------------------------------------------------------------------ building

    def _flatten(self, previous: TreeRows | None) -> TreeRows:
        manager = self.session.session_manager
        entries = manager.raw_entries()
        rows = TreeRows(entries, manager.leaf_id)
        self.rebuilds += 1
        if previous is not None and manager is self._manager:
            # The same session grew in a way one more row cannot show: keep what the user set.
            cursor_id = previous.current_id
            rows.filter, rows.query = previous.filter, previous.query
            rows.folded = {rows.row_of[previous.rows[r].entry_id] for r in previous.folded
                           if previous.rows[r].entry_id in rows.row_of}
            rows.refresh_visible()
            follow = cursor_id is None or previous.current_row == previous.display_leaf()
            rows.go_to_row(rows.display_leaf() if follow else rows.row_of.get(cursor_id, 0))
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
        """Add ``entry`` as the last row; False when it does not belong at the end (flatten again)."""
        tree = self.rows
        rows, entry_id = tree.rows, entry.get("id")
        if not isinstance(entry_id, str) or entry_id in tree.row_of:
            return not isinstance(entry_id, str)  # a damaged entry is skipped, as flattening skips it
        index = len(rows)
        parent_id = entry.get("parentId")
        if parent_id is None:
            if rows:
                return False  # a second root: the first one's guides change
            guide, parent = "", -1
        else:
            parent = tree.row_of.get(parent_id, -2)
            if parent < 0 or rows[parent].children or rows[parent].end != index:
                return False  # an orphan, a new branch, or a branch that is not the last one
            guide = _continuation(rows[parent].guide)
        rows.append(Row(entry, entry_id, parent, kind_of(entry), guide, index + 1, 0))
        tree.row_of[entry_id] = index
        hidden = False
        ancestor = parent
        if parent >= 0:
            rows[parent].children = 1
        while ancestor >= 0:  # every ancestor's subtree ended at the old last row
            row = rows[ancestor]
            row.end = index + 1
            hidden = hidden or ancestor in tree.folded
            ancestor = row.parent
        if entry.get("type") == "label" and isinstance(entry.get("targetId"), str):
            tree.set_label(entry["targetId"], entry.get("label") or None, str(entry.get("timestamp", "")))
        if not hidden and tree.passes(index):
            tree.visible.append(index)
        return True

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
        tree.leaf_row = new
        self._leaf = leaf_id
        if follow:
            tree.go_to_row(tree.display_leaf())


def _continuation(parent_guide: str) -> str:
    """The guide of an only child: its parent's column, continued (as ``TreeRows`` draws it)."""
    connector = parent_guide[-3:] if parent_guide.endswith(_CONNECTORS) else ""
    gutter = parent_guide[:len(parent_guide) - len(connector)]
    cont = gutter + ("│  " if connector == "├─ " else "   " if connector else "")
    return gutter if len(cont) > 3 * MAX_GUIDE_LEVELS else cont
