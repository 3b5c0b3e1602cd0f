"""One queued message in the queue pane: its kind and first line; a click selects it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

if TYPE_CHECKING:
    from pi_runtime.frontend import QueuedMessage

KIND_LABELS = {"steer": "steer", "follow_up": "follow-up"}
MAX_PREVIEW = 200


class QueueRow(Static):
    """A row keyed by the message's id (the pane keeps the selection by id, not by position)."""

    class Clicked(Message):
        """The user clicked this row."""

        def __init__(self, message_id: str) -> None:
            super().__init__()
            self.message_id = message_id

    def __init__(self, item: QueuedMessage) -> None:
        super().__init__("", markup=False, classes="queue-row")
        self.item = item

    def show(self, item: QueuedMessage, selected: bool) -> None:
        self.item = item
        self.set_class(selected, "-selected")
        self.update(row_text(item, selected))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.item.id))


def kind_label(item: QueuedMessage, selected: bool) -> Text:
    """``› follow-up `` (12 cells: the text of every row starts in the same column)."""
    text = Text()
    text.append("› " if selected else "  ", style="bold")
    text.append(f"{KIND_LABELS.get(item.kind, item.kind):>9} ", style="bold")
    return text


def row_text(item: QueuedMessage, selected: bool) -> Text:
    """``› follow-up  first line of the text [+2 images]``."""
    stripped = item.text.strip()
    first = stripped.splitlines()[0] if stripped else ""
    more_lines = len(stripped.splitlines()) > 1
    if len(first) > MAX_PREVIEW:
        first, more_lines = first[:MAX_PREVIEW - 1], True
    text = kind_label(item, selected)
    text.no_wrap, text.overflow = True, "ellipsis"
    text.append(first + ("…" if more_lines else ""))
    if item.images:
        text.append(f"  [+{item.images} image{'s' if item.images > 1 else ''}]", style="italic")
    return text
