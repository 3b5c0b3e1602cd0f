"""The text area that edits one queued message in place: Enter saves, Esc cancels."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from textual import events
from textual.widget import Widget
from textual.widgets import TextArea

NEW_LINE_KEYS = ("shift+enter", "ctrl+j")
"""Pi's ``tui.input.newLine`` defaults: a new line inside the edited message."""


def hand_to_focus(widget: Widget, event: events.Key) -> bool:
    """Give ``event`` to the focused widget when that is no longer ``widget``; True when handed on.

    Textual hands each key to the widget focused when the key is read, before the keys read
    with it are handled. A key that moves the focus (Esc back to the editor, Enter saving an
    edit, ``e`` starting one) leaves the rest of a fast burst queued at the old place; they
    belong where the focus is now, so nothing typed is lost or taken as a list command.
    """
    focused = widget.app.focused
    if focused is None or focused is widget:
        return False
    event.stop()
    event.prevent_default()
    focused.post_message(events.Key(event.key, event.character))
    return True


class QueueEditArea(TextArea):
    """Edits the text of the queued message ``message_id`` (its original text is kept to compare).

    One area serves every edit (``begin``), so it has the focus the moment an edit starts.
    Enter and Esc call ``finish`` at once (the text, or None: cancelled), not through a message,
    so the focus is back in the list before the next key is handled.
    """

    def __init__(self, finish: Callable[[QueueEditArea, str | None], None]) -> None:
        super().__init__("", soft_wrap=True, show_line_numbers=False, classes="queue-edit", compact=True)
        self.finish = finish
        self.message_id = ""
        self.original = ""
        self.keys_seen: deque[events.Key] = deque(maxlen=64)
        """Its latest keys: the pane tells one bubbling up from here from one handed to the list."""

    def begin(self, message_id: str, text: str) -> None:
        """Edit ``text``, the text of queued message ``message_id``, with the cursor at its end."""
        self.message_id, self.original = message_id, text
        self.load_text(text)
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        if hand_to_focus(self, event):
            return
        self.keys_seen.append(event)
        if event.key in ("enter", "escape"):
            event.stop()
            event.prevent_default()
            self.finish(self, self.text if event.key == "enter" else None)
            return
        if event.key in NEW_LINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)
