"""Pi's "↓ Jump to latest message · ctrl+end" label, on the bottom row of the transcript's area
while the reader has scrolled away from the end (new output keeps arriving out of sight).

One label for the app, in the workspace beside the transcripts. While it shows, the transcript
gives up its bottom row for it (a one-row margin: only the height changes, so no text reflows)
instead of the label covering the last line being read; a click on it posts ``Clicked`` and the app
jumps to the end, as the key does.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

LABEL = "↓ Jump to latest message"


class EndOutOfSight(Message):
    """A transcript scrolled away from its end, or back to it (or was resized)."""

    def __init__(self, transcript: Any) -> None:
        super().__init__()
        self.transcript = transcript


def scrolled_away(transcript: Any) -> bool:
    """The reader moved up (the view no longer follows output) and the end is below the view."""
    return bool(transcript.is_anchor_released) and transcript.scroll_y < transcript.max_scroll_y


class JumpToLatest(Static):
    """The label; ``place`` shows it over a transcript or hides it."""

    DEFAULT_CSS = """
    JumpToLatest {
        position: absolute;
        overlay: screen;
        width: auto;
        height: 1;
        display: none;
        background: $pi-selected-bg;
        color: $pi-text;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.key = "ctrl+end"
        """The key that does the same (the app sets it from the keymap)."""

    def place(self, transcript: Any) -> None:
        """Over ``transcript``'s last row, centred, when it is scrolled away; hidden otherwise."""
        show = transcript.display and scrolled_away(transcript) and transcript.region.height > 2
        reserved = transcript.styles.margin.bottom == 1
        if show != reserved:
            # The row under the label is the transcript's until it shows; the resize that follows
            # places the label again.
            transcript.styles.margin = (0, 0, 1 if show else 0, 0)
        if not show:
            self.display = False
            return
        label = f" {LABEL}{' · ' + self.key if self.key else ''} "
        self.update(label)
        width = min(len(label), transcript.region.width)
        parent = self.parent
        origin = parent.content_region if isinstance(parent, Widget) else transcript.region
        self.styles.offset = (transcript.region.x - origin.x + (transcript.region.width - width) // 2,
                              transcript.region.bottom - (0 if reserved else 1) - origin.y)
        self.display = True

    class Clicked(Message):
        """The label was clicked: the shown transcript should jump to its end, as the key does
        (the app does it; this label knows no transcript but the one it is placed over)."""

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked())
