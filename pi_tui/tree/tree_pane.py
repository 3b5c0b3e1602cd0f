"""``TreePane``: the session tree docked beside the transcript (``/pane tree``), live.

It reads like the ``/tree`` browser (same rows, filters, search and keys) but stays open while
the agent works: after each batch of kernel events ``refresh_rows()`` takes in the new entries
(``LiveTree``) and repaints the lines on screen (``VirtualList``), so a 20,000-entry session
costs the same per event as a short one. What a key means for the session (preview, navigate,
fork, clone, width) goes to the host, which owns the transcript and the kernel calls.

Keys arrive through ``claims()``/``take_key()`` before the app's own bindings: the tree's
Ctrl+T/Ctrl+L/Ctrl+O filters are main-view keys elsewhere. The pane takes keys only once the
user moved into it (F6, a click, Alt+T on the open pane), and says so in its title bar. Esc ends a
search; otherwise it ends the preview and gives the keys back to the editor, as in the queue pane:
it never aborts the run from here (a user tapping Esc to leave a preview must not stop the agent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.strip import Strip
from textual.widgets import Static

from ..dialogs.virtual_list import VirtualList
from .live_tree import LiveTree
from .nav_keys import KeyTable, app_keymap
from .row_keys import FILTER_NAMES, TREE_FIXED_KEYS, TREE_KEYS_BY_ID, TreeRowKeys
from .row_painter import RowPainter

if TYPE_CHECKING:
    from .tree_rows import TreeRows

KEYS_BY_ID = {
    **TREE_KEYS_BY_ID,
    "pi.pane.fork": "fork", "pi.pane.clone": "clone",
    "pi.pane.wider": "wider", "pi.pane.narrower": "narrower",
}
"""Pi's ids (as in the ``/tree`` browser) plus pi's own for what only the pane does."""

NEVER_CLAIMED = frozenset({"ctrl+c"})
"""Keys the pane leaves to the app even when its table has them (Ctrl+C clears / quits)."""


class TreePaneHost(Protocol):
    """What the pane asks of its owner."""

    @property
    def previewing(self) -> bool: ...
    def selection_moved(self, entry_id: str | None) -> None: ...
    def end_preview(self) -> None: ...
    def leave_pane(self) -> None: ...
    def choose(self, entry_id: str) -> None: ...
    def fork(self, entry_id: str) -> None: ...
    def clone(self, entry_id: str) -> None: ...
    def edit_label(self, entry_id: str) -> None: ...
    def resize(self, delta: int) -> None: ...


class TreePane(TreeRowKeys, Vertical):
    """The live tree; the list inside takes the focus."""

    DEFAULT_CSS = """
    TreePane {
        dock: right;
        height: 1fr;
        border-left: vkey $pi-border-muted;
        background: $pi-bg;
    }
    TreePane:focus-within { border-left: vkey $pi-border-accent; }
    TreePane.-overlay { layer: overlay; border-left: outer $pi-border-accent; }
    TreePane #tree-pane-title { height: 1; padding: 0 1; color: $pi-muted; }
    TreePane:focus-within #tree-pane-title { background: $pi-selected-bg; color: $pi-accent; text-style: bold; }
    TreePane #tree-pane-status { height: 1; padding: 0 1; color: $pi-muted; }
    TreePane #tree-pane-list { height: 1fr; background: $pi-bg; }
    TreePane #tree-pane-hints { height: auto; padding: 0 1; color: $pi-dim; }
    """

    def __init__(self, live: LiveTree, host: TreePaneHost, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.live = live
        self.host = host
        self.painter = RowPainter()
        self._leaf_row = live.rows.display_leaf()

    def compose(self) -> ComposeResult:
        yield Static(self._title(False), id="tree-pane-title", markup=False)
        yield Static("", id="tree-pane-status", markup=False)  # the search is typed text, not markup
        yield VirtualList(self._paint, id="tree-pane-list")
        yield Static("", id="tree-pane-hints", markup=False)

    def on_mount(self) -> None:
        self.keys = KeyTable(app_keymap(self.app), KEYS_BY_ID, TREE_FIXED_KEYS)
        self.list = self.query_one(VirtualList)
        self.painter.set_colors(self.app.theme_variables)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._recolor())
        self._mark_focus()
        self._sync(full=True)

    def _recolor(self) -> None:
        self.painter.set_colors(self.app.theme_variables)
        self.list.refresh()

    # ------------------------------------------------------------------ drawing

    @property
    def tree(self) -> Any:
        return self.live.rows

    def _paint(self, index: int, width: int, selected: bool) -> Strip:
        return self.painter.paint(self.live.rows, index, width, selected, self._leaf_row)

    def _title(self, focused: bool) -> str:
        return "▶ Session tree · keys here" if focused else "Session tree"

    def _mark_focus(self) -> None:
        """Title and hints say whether keys come here: the focused pane is plainly marked, and the
        unfocused one says how to move in."""
        focused = self.has_focus_within
        self.query_one("#tree-pane-title", Static).update(self._title(focused))
        focus_key = app_keymap(self.app).first_key("app.pane.tree") or "f6"
        hints = self._hints() if focused else f"{focus_key} or f6: move here"
        self.query_one("#tree-pane-hints", Static).update(hints.replace("shift+", "⇧"))

    def on_descendant_focus(self) -> None:
        self._mark_focus()

    def on_descendant_blur(self) -> None:
        self._mark_focus()

    def _hints(self) -> str:
        first = self.keys.first_key
        return (f"↑↓ move · enter go · esc live · {first('fork')} fork · {first('clone')} clone · "
                f"{first('edit_label')} label · {first('wider')}/{first('narrower')} width · "
                "^U/^T/^L/^A/^D filter · type to search")

    def _update_status(self) -> None:
        tree = self.live.rows
        status = f"filter: {FILTER_NAMES[tree.filter]}"
        status += f" · search: {tree.query}▏" if tree.query else ""
        counter = tree.counter()
        width = max(self.size.width - 3, len(status) + len(counter) + 1)
        self.query_one("#tree-pane-status", Static).update(status + counter.rjust(width - len(status)))

    def _sync(self, *, full: bool) -> None:
        self._leaf_row = self.live.rows.display_leaf()
        if full:
            self.list.set_rows(len(self.live.rows.visible), self.live.rows.cursor)
        else:
            self.list.move_to(self.live.rows.cursor)
        self._update_status()

    def refresh_rows(self) -> str:
        """Take in the session's new entries and leaf (after kernel events); returns ``LiveTree.sync``'s outcome."""
        before = self.live.rows.current_id
        outcome = self.live.sync()
        if outcome != "none":
            self._sync(full=True)
            if self.live.rows.current_id != before:
                self.host.selection_moved(self.live.rows.current_id)
        return outcome

    def use(self, live: LiveTree) -> None:
        """Show another session's rows (the tab shown changed)."""
        self.live = live
        self._sync(full=True)

    def redraw(self) -> None:
        """Repaint after the rows were replaced (``LiveTree.reset``)."""
        self._sync(full=True)

    def cursor_to_leaf(self) -> None:
        tree = self.live.rows
        tree.go_to_row(tree.display_leaf())
        self._sync(full=False)

    def on_resize(self) -> None:
        self._update_status()  # the counter sits at the right edge

    def focus_list(self) -> None:
        self.app.set_focus(self.list)  # at once: focus() would land after keys already queued

    # ------------------------------------------------------------------ keys

    def claims(self, key: str, printable: bool) -> bool:
        """Whether the pane takes ``key`` (it has the focus) before the app's bindings."""
        if key in NEVER_CLAIMED:
            return False
        method = self.keys.method_for(key)
        return method is not None or key == "backspace" or printable

    def take_key(self, key: str, character: str | None) -> None:
        """Act on a key ``claims()`` accepted (not Textual's ``handle_key``: unclaimed keys still bubble)."""
        method = self.keys.method_for(key)
        if method is None:
            if key == "backspace":
                if self.live.rows.query:
                    self.live.rows.set_query(self.live.rows.query[:-1])
                    self._moved(full=True)
            elif character:
                self.live.rows.set_query(self.live.rows.query + character)
                self._moved(full=True)
            return
        getattr(self, f"key_{method}")()

    def _moved(self, *, full: bool) -> None:
        self._sync(full=full)
        self.host.selection_moved(self.live.rows.current_id)

    def _rows(self) -> TreeRows:
        return self.live.rows

    def _after_move(self, *, full: bool) -> None:
        self._moved(full=full)

    def key_cancel(self) -> None:
        tree = self.live.rows
        if tree.query:
            matched = bool(tree.visible)
            tree.set_query("")
            if not matched:  # nothing matched, so no row was selected: back to where the session is
                tree.go_to_row(tree.display_leaf())
            self._moved(full=True)
        else:
            # Back to the live conversation and to the editor at once: a user pressing Esc to get
            # out must not find the next keys typed into the pane's search. Esc in the editor
            # aborts; Esc here never does (twice Esc to leave must not stop the agent).
            if self.host.previewing:
                self.host.end_preview()
            self.host.leave_pane()

    def _with_selection(self, action: Any) -> None:
        entry_id = self.live.rows.current_id
        if entry_id is not None:
            action(entry_id)

    def key_select(self) -> None:
        self._with_selection(self.host.choose)

    def key_fork(self) -> None:
        self._with_selection(self.host.fork)

    def key_clone(self) -> None:
        self._with_selection(self.host.clone)

    def key_edit_label(self) -> None:
        self._with_selection(self.host.edit_label)

    def key_wider(self) -> None:
        self.host.resize(+4)

    def key_narrower(self) -> None:
        self.host.resize(-4)

    def on_virtual_list_clicked(self, event: VirtualList.Clicked) -> None:
        self.live.rows.cursor = event.index
        self._update_status()
        self.host.selection_moved(self.live.rows.current_id)
