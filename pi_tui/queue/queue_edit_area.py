"""The text area that edits one queued message in place: Enter saves, Esc cancels."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEW_LINE_KEYS = ("shift+enter", "ctrl+j")
"""Pi's ``tui.input.newLine`` defaults: a new line inside the edited message."""


class QueueEditArea(TextArea):
    """Edits the text of the queued message ``message_id`` (its original text is kept to compare).

    One area serves every edit (``begin``), so it has the focus the moment an edit starts.
    """

    class Finished(Message):
        """Enter (``text`` to save) or Esc (``text`` is None: cancelled)."""

        def __init__(self, area: QueueEditArea, text: str | None) -> None:
            super().__init__()
            self.area = area
            self.text = text

    def __init__(self) -> None:
        super().__init__("", soft_wrap=True, show_line_numbers=False, classes="queue-edit", compact=True)
        self.message_id = ""
        self.original = ""

    def begin(self, message_id: str, text: str) -> None:
        """Edit ``text``, the text of queued message ``message_id``, with the cursor at its end."""
        self.message_id, self.original = message_id, text
        self.load_text(text)
        self.move_cursor(self.document.end)

    async def _on_key(self, event: events.Key) -> None:
        if event.key in ("enter", "escape"):
            event.stop()
            event.prevent_default()
            self.post_message(self.Finished(self, self.text if event.key == "enter" else None))
            return
        if event.key in NEW_LINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        await super()._on_key(event)
