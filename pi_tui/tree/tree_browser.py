"""``/tree``: browse the whole session tree and pick the entry to continue from.

The screen reads the session's entries once (``session_manager.raw_entries()``, cheap dicts;
``get_tree()`` would build typed models for every entry), flattens them with ``TreeRows`` and
draws only the lines on screen with ``VirtualList``. Enter dismisses with the chosen entry id;
the caller asks "Summarize branch?" and calls ``AgentSession.navigate_tree``. Shift+L labels
the entry under the cursor through ``AgentSession.set_label`` right away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from ..dialogs.modal import Modal
from ..dialogs.text_prompt import TextPrompt
from ..dialogs.virtual_list import VirtualList
from .nav_keys import KeyTable, app_keymap
from .row_keys import FILTER_NAMES, TREE_FIXED_KEYS, TREE_KEYS_BY_ID, TreeRowKeys
from .row_painter import RowPainter
from .tree_rows import TreeRows

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort



class TreeBrowser(TreeRowKeys, Modal[str | None]):
    """Returns the chosen entry id, or None when closed with Esc."""

    DEFAULT_CSS = """
    TreeBrowser { background: $pi-bg; }
    TreeBrowser #tree-title { height: 1; padding: 0 1; color: $pi-accent; text-style: bold; }
    TreeBrowser #tree-status { height: 1; padding: 0 1; color: $pi-muted; }
    TreeBrowser #tree-list { height: 1fr; padding: 0 0; background: $pi-bg; }
    TreeBrowser #tree-hints { height: auto; padding: 0 1; color: $pi-dim; }
    """

    def __init__(self, session: SessionPort, *, rows: TreeRows | None = None) -> None:
        """
        Args:
            session: The ``AgentSession`` (its ``session_manager`` is read; labels are set through it).
            rows: Prebuilt rows (tests, benchmarks); built from the session otherwise.
        """
        super().__init__()
        self.session = session
        if rows is None:
            manager = session.session_manager
            rows = TreeRows(manager.raw_entries(), manager.leaf_id)
        self.tree_rows = rows
        self.painter = RowPainter()
        """Draws the rows (the tree pane draws them the same way)."""
        self._leaf_row = rows.display_leaf()

    def compose(self) -> ComposeResult:
        yield Static("Session tree", id="tree-title")
        yield Static("", id="tree-status", markup=False)  # the search is typed text, not markup
        yield VirtualList(self._render_row, id="tree-list")
        yield Static("", id="tree-hints")

    def on_mount(self) -> None:
        self.keys = KeyTable(app_keymap(self.app), TREE_KEYS_BY_ID, TREE_FIXED_KEYS)
        self.painter.set_colors(self.app.theme_variables)
        self.list = self.query_one(VirtualList)
        self._leaf_row = self.tree_rows.display_leaf()  # the filter may have changed since __init__
        self.list.set_rows(len(self.tree_rows.visible), self.tree_rows.cursor)
        self.list.focus()
        self.query_one("#tree-hints", Static).update(self._hints())
        self._update_status()

    # ------------------------------------------------------------------ drawing

    @property
    def show_label_times(self) -> bool:
        return self.painter.show_label_times

    def _render_row(self, index: int, width: int, selected: bool) -> Strip:
        return self.painter.paint(self.tree_rows, index, width, selected, self._leaf_row)

    def _hints(self) -> str:
        return ("↑↓ move · ←→ page · ctrl+←/→ fold/jump · type to search · L label · T label times · "
                "^D default ^T no tools ^U user ^L labeled ^A all · ^O cycle · enter select · esc close")

    def _update_status(self) -> None:
        tree = self.tree_rows
        parts = [f"filter: {FILTER_NAMES[tree.filter]}"]
        if tree.query:
            parts.append(f"search: {tree.query}▏")
        else:
            parts.append("type to search")
        status = "   ".join(parts)
        counter = tree.counter()
        width = max(self.size.width - 2, len(status) + len(counter) + 2)
        self.query_one("#tree-status", Static).update(status + counter.rjust(width - len(status)))

    def _sync(self, *, full: bool) -> None:
        """Push the model's cursor (and with ``full`` its visible rows) to the list."""
        self._leaf_row = self.tree_rows.display_leaf()
        if full:
            self.list.set_rows(len(self.tree_rows.visible), self.tree_rows.cursor)
        else:
            self.list.move_to(self.tree_rows.cursor)
        self._update_status()

    # ------------------------------------------------------------------ keys

    async def on_key(self, event: events.Key) -> None:
        method = self.keys.method_for(event.key)
        if method is None:
            if event.key == "backspace":
                method = "erase"
            elif event.is_printable and event.character:
                event.stop()
                event.prevent_default()
                self.tree_rows.set_query(self.tree_rows.query + event.character)
                self._sync(full=True)
                return
            else:
                return
        event.stop()
        event.prevent_default()
        result = getattr(self, f"key_{method}")()
        if result is not None:
            await result

    def key_erase(self) -> None:
        if self.tree_rows.query:
            self.tree_rows.set_query(self.tree_rows.query[:-1])
            self._sync(full=True)

    def _rows(self) -> TreeRows:
        return self.tree_rows

    def _after_move(self, *, full: bool) -> None:
        self._sync(full=full)

    def key_select(self) -> None:
        entry_id = self.tree_rows.current_id
        if entry_id is not None:
            self.dismiss(entry_id)

    def key_cancel(self) -> None:
        if self.tree_rows.query:
            self.tree_rows.set_query("")
            self._sync(full=True)
        else:
            self.dismiss(None)

    def key_edit_label(self) -> None:
        entry_id = self.tree_rows.current_id
        if entry_id is None:
            return
        current = self.tree_rows.labels.get(entry_id)

        def done(value: str | None) -> None:
            if value is None:
                return
            self.apply_label(entry_id, value.strip() or None)

        self.app.push_screen(TextPrompt(f"Label for {entry_id}", current.text if current else "",
                                        hint="enter to save (empty clears) · esc to cancel"), done)

    def apply_label(self, entry_id: str, label: str | None) -> None:
        """Set or clear a label through the session and show it."""
        try:
            new_id = self.session.set_label(entry_id, label)
        except Exception as exc:  # noqa: BLE001 - a read-only or locked session: say so, keep the tree
            self.notify(f"Could not set the label: {exc}", severity="error", timeout=6)
            return
        entry = self.session.session_manager.get_entry(new_id) if isinstance(new_id, str) else None
        self.tree_rows.set_label(entry_id, label, getattr(entry, "timestamp", "") or "")
        self._sync(full=True)

    def on_virtual_list_clicked(self, event: VirtualList.Clicked) -> None:
        self.tree_rows.cursor = event.index
        self._update_status()
