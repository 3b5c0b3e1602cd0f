"""``QueuePane``: the queued steering and follow-up messages above the editor, as a list to edit.

While the agent works, each message the user queued is a row (steers first, then follow-ups:
the order they will be delivered in). ``pi.queue.focus`` or a click moves into the list; there
Up/Down select, Enter or ``e`` edits the selected message in place, Delete or ``d`` deletes it,
Ctrl+Up/Down or ``K``/``J`` move it, ``t`` turns a steer into a follow-up and back, Esc goes
back to the editor.

The pane shows what the kernel says: every ``queue_update`` event's ``items`` and every
operation's returned list. Rows and the selection are keyed by the messages' ids, so the
selection stays on its message through reorders, and moves to the neighbouring row when the
agent takes it. Text the user typed is never lost: an edit of a message the agent took in the
meantime goes back to the main editor with a notice (``EditorWanted``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from .queue_edit_area import QueueEditArea, hand_to_focus
from .queue_order import step_target, surviving_selection, toggled_kind_target
from .queue_row import QueueRow, kind_label

if TYPE_CHECKING:
    from pi_runtime.frontend import QueuedMessage, SessionPort

LIST_ACTIONS = frozenset({"select", "edit", "delete", "move", "toggle_kind", "leave"})

_FATE_WORDS = {"sent": "was already sent", "removed": "was removed from the queue",
               "unknown": "is no longer queued"}

APP_ACTIONS_KEPT_FROM_THE_LIST = frozenset({"interrupt", "exit_if_empty"})
"""App actions whose keys mean something else in the pane: Esc leaves the list (it must not
abort the run) and Ctrl+D deletes forward in the edited text (it must not quit)."""


class QueuePane(Vertical, can_focus=True):
    """The queue as a list: rows, the text area of an edit in progress, and a hint line."""

    DEFAULT_CSS = """
    QueuePane { height: auto; max-height: 16; }
    QueuePane #queue-rows { height: auto; max-height: 13; }
    QueuePane .queue-row { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    QueuePane:focus .queue-row.-selected { background: $pi-selected-bg; color: $pi-text; }
    QueuePane .queue-editing { height: auto; }
    QueuePane .queue-edit-label { width: 12; height: 1; }
    QueuePane .queue-edit { width: 1fr; height: auto; max-height: 8; padding: 0; background: $pi-selected-bg; }
    QueuePane #queue-hint { height: 1; color: $pi-dim; }
    """

    BINDINGS = [
        Binding("up", "select(-1)", "Previous", show=False),
        Binding("down", "select(1)", "Next", show=False),
        Binding("enter,e", "edit", "Edit", show=False),
        Binding("delete,d", "delete", "Delete", show=False),
        Binding("ctrl+up,K,shift+k", "move(-1)", "Move up", show=False),
        Binding("ctrl+down,J,shift+j", "move(1)", "Move down", show=False),
        Binding("t", "toggle_kind", "Steer / follow-up", show=False),
        Binding("escape", "leave", "Back to the editor", show=False),
    ]

    class EditorWanted(Message):
        """Focus goes back to the main editor, with ``text`` put before its draft and ``notice`` shown."""

        def __init__(self, text: str | None = None, notice: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.notice = notice

    # (LIST_KEYS, below the class, is built from these.)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: SessionPort | None = None
        """The session whose queue this is (set when one is attached)."""
        self.items: list[QueuedMessage] = []
        self.selected: str | None = None
        """Id of the selected message (kept while it is queued, wherever it moves)."""
        self.focus_key = "alt+q"
        self.restore_key = "alt+up"
        """Keys named in the hint (from the keymap)."""
        self.return_focus: Callable[[], None] = lambda: None
        """Puts the focus in the main editor at once (the app sets it): ``focus()`` and messages land
        after the keys already typed, and those must reach the editor, not the list."""
        self._rows: dict[str, QueueRow] = {}
        self._shown_hint: Text | None = None
        """The hint line as shown."""
        self._edit: QueueEditArea | None = None
        """The text area while a message is edited (None otherwise)."""
        # Built once and shown in place of the edited row: a text area mounted per edit would
        # take the focus a frame late, and the keys typed right after Enter would be lost. It is
        # mounted with the first queued message, not with the app: a second text area's styles
        # before the first frame cost about as much as the editor's.
        self._edit_area = QueueEditArea(self._edit_finished)
        self._edit_label = Static("", classes="queue-edit-label")
        self._edit_box = Horizontal(self._edit_label, self._edit_area, classes="queue-editing")
        self._edit_box.display = False

    def compose(self):
        self._list = Vertical(id="queue-rows")
        self._hint = Static("", markup=False, id="queue-hint")
        yield self._list
        yield self._hint

    def on_mount(self) -> None:
        self.display = False

    # ------------------------------------------------------------------ what the kernel says

    def attach(self, session: SessionPort) -> None:
        """Show ``session``'s queue (a session was attached or switched to)."""
        self.session = session
        self.show_items(session.queued_messages())

    def show_items(self, items: list[QueuedMessage]) -> None:
        """The queue as it is now (a ``queue_update`` event's items, or an operation's result)."""
        old, self.items = self.items, list(items)
        self.selected = surviving_selection(old, self.items, self.selected)
        edit = self._edit
        if edit is not None and all(item.id != edit.message_id for item in self.items):
            self._edit_lost(edit, "sent" if self.session is not None and self.session.is_streaming else "removed")
        self._render_rows()
        had_focus = self.has_focus_within
        self.display = bool(self.items)
        if had_focus and not self.items:
            self._want_editor()

    def _render_rows(self) -> None:
        if self.items and self._edit_box.parent is None:
            self._list.mount(self._edit_box)
        for message_id in [i for i in self._rows if all(item.id != i for item in self.items)]:
            self._rows.pop(message_id).remove()
        focused = self.has_focus_within
        previous: Widget | None = None
        for item in self.items:
            row = self._rows.get(item.id)
            if row is None:
                row = self._rows[item.id] = QueueRow(item)
                self._list.mount(row)
            row.show(item, focused and item.id == self.selected)
            row.display = self._edit is None or self._edit.message_id != item.id
            self._place(row, previous)
            previous = row
            if self._edit is not None and self._edit.message_id == item.id:
                self._place(self._edit_box, row)
                previous = self._edit_box
        hint = self._hint_text()
        if hint != self._shown_hint:
            self._shown_hint = hint
            # One row always (``#queue-hint``'s height): no layout pass of the whole screen (focus
            # moving in and out at start-up asked for one each time).
            self._hint.update(hint, layout=False)

    def _place(self, widget: Widget, after: Widget | None) -> None:
        if after is None:
            self._list.move_child(widget, before=0)
        else:
            self._list.move_child(widget, after=after)

    def _hint_text(self) -> Text:
        if self._edit is not None:
            # Ctrl+J too: tmux without extended keys sends Shift+Enter as a plain Enter (which saves).
            words = "enter save · shift+enter/ctrl+j new line · esc cancel"
        elif self.has_focus_within:
            words = "↑↓ select · enter edit · d delete · K/J move · t steer⇄follow-up · esc back"
        else:
            words = f"{self.focus_key} to edit the queue · {self.restore_key} to take it all back into the editor"
        return Text(f"  {words}", style="italic")

    @property
    def editing(self) -> str | None:
        """Id of the message being edited, if one is."""
        return self._edit.message_id if self._edit is not None else None

    # ------------------------------------------------------------------ focus

    def take_focus(self) -> bool:
        """Move into the list (``pi.queue.focus``); False when nothing is queued."""
        if not self.items:
            return False
        if self.selected is None:
            self.selected = self.items[0].id
        self.app.set_focus(self)
        return True

    def takes_app_action(self, action: str) -> bool:
        """True when the app's ``action`` must leave its key to the pane (the pane has focus)."""
        if not self.has_focus_within:
            return False
        return action in APP_ACTIONS_KEPT_FROM_THE_LIST or (action == "dequeue" and self._edit is not None)

    def on_focus(self) -> None:
        self._render_rows()

    def on_blur(self) -> None:
        self._render_rows()

    def on_descendant_focus(self) -> None:
        self._render_rows()

    def on_descendant_blur(self) -> None:
        self._render_rows()

    async def _on_key(self, event: events.Key) -> None:
        from_edit = any(seen is event for seen in self._edit_area.keys_seen)  # bubbling up: not the list's
        if not from_edit and hand_to_focus(self, event):
            return
        focused = self.app.focused
        action = LIST_KEYS.get(event.key) if focused is self else None
        if action is not None and self.check_action(action.split("(")[0], ()):
            # Acted on here and now, not when the key has bubbled up to the app's binding check:
            # by then the next keys of the burst were already handed to the list, whatever this
            # one does with the focus (Esc, deleting the last message, Enter starting an edit).
            event.stop()
            event.prevent_default()
            await self.run_action(action)
            return
        await super()._on_key(event)

    def on_queue_row_clicked(self, message: QueueRow.Clicked) -> None:
        if self._edit is None:
            self.selected = message.message_id
            self.app.set_focus(self)
            self._render_rows()

    def on_click(self, event: events.Click) -> None:
        if self._edit is None:
            self.take_focus()

    # ------------------------------------------------------------------ list keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While a message is edited its text area has the keys (Ctrl+Up must not move the row).
        return not (action in LIST_ACTIONS and (self._edit is not None or not self.items))

    def _selected_item(self) -> QueuedMessage | None:
        return next((item for item in self.items if item.id == self.selected), None)

    def action_select(self, step: int) -> None:
        ids = [item.id for item in self.items]
        at = ids.index(self.selected) if self.selected in ids else 0
        self.selected = ids[max(0, min(len(ids) - 1, at + step))]
        self._render_rows()

    def action_leave(self) -> None:
        self._want_editor()

    def action_edit(self) -> None:
        item = self._selected_item()
        if item is None:
            return
        self._edit = self._edit_area
        self._edit.begin(item.id, item.text)
        self._edit_label.update(kind_label(item, selected=True))
        self._edit_box.display = True
        self._render_rows()
        self.app.set_focus(self._edit)

    def action_delete(self) -> None:
        item = self._selected_item()
        if item is not None:
            self._apply(item, lambda session: session.remove_queued(item.id))

    def action_move(self, step: int) -> None:
        item = self._selected_item()
        target = step_target(self.items, item.id, step) if item is not None else None
        if item is not None and target is not None:
            index, kind = target
            self._apply(item, lambda session: session.move_queued(item.id, index, kind))

    def action_toggle_kind(self) -> None:
        item = self._selected_item()
        if item is not None:
            index, kind = toggled_kind_target(item)
            self._apply(item, lambda session: session.move_queued(item.id, index, kind))

    def _apply(self, item: QueuedMessage, operation: Callable[[SessionPort], list[QueuedMessage]]) -> None:
        """Run a kernel queue operation on ``item`` and show the list it returns."""
        from pi_runtime.frontend import QueueEditError

        if self.session is None:
            return
        try:
            self.show_items(operation(self.session))
        except QueueEditError as exc:
            self.app.notify(f"That message {_FATE_WORDS[exc.fate]}", timeout=4)
            self.show_items(self.session.queued_messages())

    # ------------------------------------------------------------------ editing

    def _edit_finished(self, edit: QueueEditArea, text: str | None) -> None:
        """Enter in the edit (``text`` to save) or Esc (None)."""
        if edit is not self._edit:
            return
        if text is None:
            self._close_edit()
            return
        from pi_runtime.frontend import QueueEditError

        session = self.session
        if session is None:
            return
        try:
            if text.strip():
                items = session.edit_queued(edit.message_id, text)
            else:
                items = session.remove_queued(edit.message_id)  # saving nothing deletes the message
        except QueueEditError as exc:
            self._edit_lost(edit, exc.fate)
            self.show_items(session.queued_messages())
            return
        self._close_edit()
        self.show_items(items)

    def leave_session(self) -> str | None:
        """Another tab is about to be shown: an open edit is saved into this session's queue, as
        Enter would save it (the next session's queue has messages of its own, even the same ids).

        Returns:
            The edited text when it could not be saved (the message left the queue meanwhile): it
            belongs in this session's draft. None otherwise (an empty or unchanged edit is dropped).
        """
        from pi_runtime.frontend import QueueEditError

        edit, session = self._edit, self.session
        if edit is None or session is None:
            return None
        had_focus = edit.has_focus
        self._drop_edit()
        if had_focus:
            self.app.set_focus(self)  # the list, until the next session's queue says where focus goes
        text = edit.text
        if not text.strip() or text == edit.original:
            return None
        try:
            session.edit_queued(edit.message_id, text)
        except QueueEditError:
            return text
        return None

    def _want_editor(self, text: str | None = None, notice: str | None = None) -> None:
        """Back to the main editor: the focus now, the text and notice through ``EditorWanted``."""
        self.return_focus()
        self.post_message(self.EditorWanted(text, notice))

    def _drop_edit(self) -> None:
        self._edit_box.display = False
        self._edit = None

    def _close_edit(self) -> None:
        self._drop_edit()
        self._render_rows()
        if self.items:
            self.app.set_focus(self)

    def _edit_lost(self, edit: QueueEditArea, fate: str) -> None:
        """The edited message left the queue (the agent took it): the typed text goes to the editor."""
        self._drop_edit()
        changed = edit.text.strip() != edit.original.strip()
        if changed:
            notice = f"The queued message {_FATE_WORDS.get(fate, 'left the queue')}: your edit is back in the editor"
        else:
            notice = f"The queued message {_FATE_WORDS.get(fate, 'left the queue')} while you edited it"
        self._want_editor(edit.text if changed else None, notice)


LIST_KEYS = {key.strip(): binding.action for binding in QueuePane.BINDINGS if isinstance(binding, Binding)
             for key in binding.key.split(",")}
"""Key -> action of the list (its ``BINDINGS``), run by ``QueuePane._on_key`` as each key comes."""
