"""The session tree as a flat list of rows, for the ``/tree`` browser (no Textual here).

The tree is flattened once, depth first and iteratively (a 10,000-entry linear session is
10,000 levels deep): each row keeps its entry, its one-line text, the guide drawn before it
and the range of rows below it that belong to its subtree. Filters, folds and the search only
recompute which rows are visible (one pass over a list of ints); moving the cursor is an index
change. Guides follow Pi's picture: a chain of single children stays in one column, and only
where an entry has several children do its children get ``├─`` / ``└─`` and one more level.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..transcript.entry_summary import SETTINGS_KINDS, describe, kind_of, textless_answer

FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
"""Filter modes in cycle order (Ctrl+O forward, Shift+Ctrl+O back)."""

MAX_GUIDE_LEVELS = 24
"""Branch levels drawn; deeper branches stay in the last column so rows keep some text."""


@dataclass(slots=True)
class Row:
    """One entry in display order."""

    entry: dict[str, Any]
    entry_id: str
    parent: int
    """Row index of the parent (-1 for a root)."""
    kind: str
    guide: str
    """Tree guide drawn before the text (``│  ├─ ``)."""
    end: int
    """One past the last row of this entry's subtree (rows ``index+1 .. end-1`` descend from it)."""
    children: int
    on_path: bool = False
    """On the active path (root → current leaf)."""
    textless: bool = False
    """An assistant message with no text (only tool calls): shown only while it is the leaf, as
    in Pi's tree (``textless_answer``)."""
    above: Row | None = field(default=None, repr=False, compare=False)
    """For a tool result, the row above it: the call it answers is found from there when the
    text is first built (most rows are never drawn, so it is not looked up before)."""
    _text: str | None = None

    @property
    def text(self) -> str:
        """One-line summary, built on first use (most rows of a long session are never drawn)."""
        if self._text is None:
            self._text = describe(self.entry, _answered_call(self) if self.above is not None else None)[1]
        return self._text


def new_row(entry: dict[str, Any], rows: list[Row], parent: int, guide: str, end: int, children: int) -> Row:
    """The row of ``entry`` under row ``parent`` of ``rows`` (its kind and whether Pi's tree hides
    it are worked out once)."""
    kind = kind_of(entry)
    if kind == "assistant":
        return Row(entry, entry["id"], parent, kind, guide, end, children, textless=textless_answer(entry))
    return Row(entry, entry["id"], parent, kind, guide, end, children,
               above=rows[parent] if kind == "tool" and parent >= 0 else None)


def _answered_call(row: Row) -> dict[str, Any] | None:
    """The ``toolCall`` block the tool result of ``row`` answers: in the assistant message above
    it (past the results of that message's other calls)."""
    call_id = row.entry["message"].get("toolCallId")
    owner = row.above
    while owner is not None and owner.kind == "tool":
        owner = owner.above
    if not call_id or owner is None or owner.kind != "assistant":
        return None
    content = owner.entry["message"].get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == call_id:
            return block
    return None


@dataclass(slots=True)
class Label:
    text: str
    timestamp: str
    """ISO time of the label entry that set it ("" when unknown)."""


def _labels_from_entries(entries: Iterable[dict[str, Any]]) -> dict[str, Label]:
    labels: dict[str, Label] = {}
    for entry in entries:
        if entry.get("type") != "label" or not isinstance(entry.get("targetId"), str):
            continue
        if entry.get("label"):
            labels[entry["targetId"]] = Label(str(entry["label"]), str(entry.get("timestamp", "")))
        else:
            labels.pop(entry["targetId"], None)
    return labels


def entries_from_wire_tree(tree: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Entries (with ``parentId`` as nested) and labels from ``AgentSession.get_tree()["tree"]``."""
    entries: list[dict[str, Any]] = []
    labels: dict[str, str] = {}
    stack: list[tuple[dict[str, Any], str | None]] = [(node, None) for node in reversed(tree)]
    while stack:
        node, parent_id = stack.pop()
        entry = dict(node.get("entry") or {})
        entry["parentId"] = parent_id
        entries.append(entry)
        if node.get("label") and isinstance(entry.get("id"), str):
            labels[entry["id"]] = str(node["label"])
        stack.extend((child, entry.get("id")) for child in reversed(node.get("children") or []))
    return entries, labels


class TreeRows:
    """Flattened rows plus the visible window state (filter, folds, search, cursor)."""

    def __init__(self, entries: list[dict[str, Any]], leaf_id: str | None,
                 labels: dict[str, str] | None = None) -> None:
        """
        Args:
            entries: Entry dicts (file order, or any order with ``parentId`` links).
            leaf_id: The current leaf (``SessionManager.leaf_id``).
            labels: Label per entry id when known (from a wire tree); otherwise computed from
                the label entries, which also gives their timestamps.
        """
        self.labels: dict[str, Label] = _labels_from_entries(entries)
        if labels is not None:
            self.labels = {k: Label(v, self.labels[k].timestamp if k in self.labels else "")
                           for k, v in labels.items()}
        self.rows: list[Row] = []
        self.row_of: dict[str, int] = {}
        self._flatten(entries)
        self.leaf_row = self.row_of.get(leaf_id, -1) if leaf_id else -1
        self._mark_path()
        self.filter = "default"
        self.query = ""
        self.folded: set[int] = set()
        self.visible: list[int] = []
        self.cursor = 0
        self.refresh_visible()
        self.go_to_row(self.display_leaf())

    # ------------------------------------------------------------------ building

    def _flatten(self, entries: list[dict[str, Any]]) -> None:
        by_id: dict[str, dict[str, Any]] = {}
        for entry in entries:
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                by_id[entry_id] = entry
        kids: dict[str | None, list[dict[str, Any]]] = {}
        for entry_id, entry in by_id.items():
            parent = entry.get("parentId")
            if not isinstance(parent, str) or parent not in by_id or parent == entry_id:
                parent = None  # a root, or an orphan of a damaged file
            kids.setdefault(parent, []).append(entry)
        for group in kids.values():
            if len(group) > 1:
                group.sort(key=lambda e: str(e.get("timestamp", "")))
        rows, row_of = self.rows, self.row_of
        # Stack items: (entry, parent row, gutter, connector) or (None, row to close, "", "").
        roots = kids.get(None, [])
        stack: list[tuple[Any, int, str, str]] = []
        self._push_children(stack, roots, -1, "", len(roots) > 1)
        while stack:
            entry, parent, gutter, connector = stack.pop()
            if entry is None:
                rows[parent].end = len(rows)
                continue
            index = len(rows)
            children = kids.get(entry["id"], ())
            rows.append(new_row(entry, rows, parent, gutter + connector, index + 1, len(children)))
            row_of[entry["id"]] = index
            stack.append((None, index, "", ""))
            if not children:
                continue
            # Children sit under this row's text: its gutter plus a bar when siblings follow it.
            cont = gutter + ("│  " if connector == "├─ " else "   " if connector else "")
            if len(cont) > 3 * MAX_GUIDE_LEVELS:
                cont = gutter
            if len(children) > 1:
                self._push_children(stack, children, index, cont, True)
            else:
                stack.append((children[0], index, cont, ""))

    @staticmethod
    def _push_children(stack: list[tuple[Any, int, str, str]], children: list[dict[str, Any]], parent: int,
                       gutter: str, branched: bool) -> None:
        last = len(children) - 1
        for i in range(last, -1, -1):
            connector = ("└─ " if i == last else "├─ ") if branched else ""
            stack.append((children[i], parent, gutter, connector))

    def _mark_path(self) -> None:
        row = self.leaf_row
        while row >= 0:
            self.rows[row].on_path = True
            row = self.rows[row].parent

    # ------------------------------------------------------------------ questions about rows

    def label_of(self, row: int) -> Label | None:
        return self.labels.get(self.rows[row].entry_id)

    def is_segment_start(self, row: int) -> bool:
        """A root, or a child of an entry with several children."""
        parent = self.rows[row].parent
        return parent < 0 or self.rows[parent].children > 1

    def is_segment_end(self, row: int) -> bool:
        """A leaf of the tree or a branch point."""
        return self.rows[row].children != 1

    def passes(self, row: int) -> bool:
        """Whether a row is shown by the current filter and search."""
        r = self.rows[row]
        mode, kind = self.filter, r.kind
        if kind == "usage":  # Pi never shows usage entries in the tree
            return False
        if r.textless and row != self.leaf_row:  # in every mode, as Pi; the leaf stays in sight
            return False
        if mode == "user-only":
            ok = kind == "user"
        elif mode == "labeled-only":
            ok = r.entry_id in self.labels
        elif mode == "all":
            ok = True
        else:
            ok = kind not in SETTINGS_KINDS
            if ok and mode == "no-tools":
                ok = kind != "tool"
        if ok and self.query:
            label = self.labels.get(r.entry_id)
            hay = (r.text + (" " + label.text if label else "")).lower()
            ok = all(token in hay for token in self.query.lower().split())
        return ok

    # ------------------------------------------------------------------ visible window

    def refresh_visible(self) -> None:
        """Recompute the visible rows, keeping the cursor on the same (or nearest earlier) row."""
        anchor = self.visible[self.cursor] if self.visible else -1
        visible: list[int] = []
        rows, folded, passes = self.rows, self.folded, self.passes
        row, count = 0, len(rows)
        while row < count:
            if passes(row):
                visible.append(row)
            row = rows[row].end if row in folded else row + 1
        self.visible = visible
        if anchor >= 0:
            self.go_to_row(anchor)
        else:
            self.cursor = 0

    def recheck(self, row: int) -> None:
        """Show or hide one row after something its visibility depends on changed (the leaf
        moved to or from it), keeping the cursor on the row it was on."""
        if row < 0:
            return
        ancestor, folded = self.rows[row].parent, False
        while self.folded and ancestor >= 0 and not folded:  # (a deep session's walk only under a fold)
            folded = ancestor in self.folded
            ancestor = self.rows[ancestor].parent
        wanted = not folded and self.passes(row)
        if wanted == self.is_visible(row):
            return
        anchor = self.current_row
        if wanted:
            insort(self.visible, row)
        else:
            self.visible.pop(bisect_left(self.visible, row))
        self.go_to_row(anchor)

    def go_to_row(self, row: int) -> None:
        """Put the cursor on ``row`` or, when hidden, the nearest visible row before it."""
        if not self.visible:
            self.cursor = 0
            return
        pos = bisect_right(self.visible, row) - 1
        self.cursor = max(pos, 0)

    def is_visible(self, row: int) -> bool:
        pos = bisect_left(self.visible, row)
        return pos < len(self.visible) and self.visible[pos] == row

    def display_leaf(self) -> int:
        """The row marked as current: the leaf, or, when a filter hides it, its nearest visible
        ancestor. While searching only the leaf itself is marked (-1 when it does not match): an
        ancestor that matches the search is just another match, not where the session is."""
        row = self.leaf_row
        if self.query:
            return row if row >= 0 and self.is_visible(row) else -1
        while row >= 0 and not self.is_visible(row):
            row = self.rows[row].parent
        return row

    @property
    def current_row(self) -> int:
        """Row index under the cursor (-1 when nothing is visible)."""
        return self.visible[self.cursor] if self.visible else -1

    @property
    def current_id(self) -> str | None:
        row = self.current_row
        return self.rows[row].entry_id if row >= 0 else None

    def counter(self) -> str:
        """``12/10000``: cursor position among the visible rows."""
        return f"{self.cursor + 1 if self.visible else 0}/{len(self.visible)}"

    # ------------------------------------------------------------------ actions

    def move(self, delta: int) -> None:
        """Move the cursor by ``delta`` visible rows (clamped)."""
        if self.visible:
            self.cursor = min(max(self.cursor + delta, 0), len(self.visible) - 1)

    def set_filter(self, mode: str) -> None:
        if mode not in FILTERS:
            raise ValueError(f"unknown tree filter '{mode}' (one of {', '.join(FILTERS)})")
        self.filter = mode
        self.refresh_visible()

    def toggle_filter(self, mode: str) -> None:
        """Pi's toggles: choosing the active filter again goes back to default."""
        self.set_filter("default" if self.filter == mode and mode != "default" else mode)

    def cycle_filter(self, direction: int) -> None:
        self.set_filter(FILTERS[(FILTERS.index(self.filter) + direction) % len(FILTERS)])

    def set_query(self, query: str) -> None:
        self.query = query
        self.refresh_visible()

    def fold_or_up(self) -> None:
        """Fold the branch segment starting at the cursor, or jump to the previous segment start."""
        row = self.current_row
        if row < 0:
            return
        if self.is_segment_start(row) and row not in self.folded and self.rows[row].end > row + 1:
            self.folded.add(row)
            self.refresh_visible()
            return
        for pos in range(self.cursor - 1, -1, -1):
            if self.is_segment_start(self.visible[pos]):
                self.cursor = pos
                return
        self.cursor = 0

    def unfold_or_down(self) -> None:
        """Unfold the segment at the cursor, or jump to the next segment start or branch end."""
        row = self.current_row
        if row < 0:
            return
        if row in self.folded:
            self.folded.discard(row)
            self.refresh_visible()
            return
        for pos in range(self.cursor + 1, len(self.visible)):
            candidate = self.visible[pos]
            if self.is_segment_start(candidate) or self.is_segment_end(candidate):
                self.cursor = pos
                return
        self.cursor = len(self.visible) - 1 if self.visible else 0

    def set_label(self, entry_id: str, label: str | None, timestamp: str = "") -> None:
        """Reflect a label change made through the session."""
        if label:
            self.labels[entry_id] = Label(label, timestamp)
        else:
            self.labels.pop(entry_id, None)
        if self.filter == "labeled-only" or self.query:
            self.refresh_visible()

    def hidden_below(self, row: int) -> int:
        """How many rows a fold at ``row`` hides (0 when not folded)."""
        return self.rows[row].end - row - 1 if row in self.folded else 0
