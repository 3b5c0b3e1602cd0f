"""``SteadyScreen``: the app's main screen, laid out again on a Resize only when the size changed.

Textual's screen lays out every widget again for each Resize it gets, whatever its size: as pi
starts, the app's first Resize, the terminal driver's first size report and the Resize the
screen's own first layout sends itself all carry the size that layout used (two or three full
layouts of 3-4 ms each, while the first prompt is typed).
"""

from __future__ import annotations

from textual import events
from textual.screen import Screen


class SteadyScreen(Screen[None]):
    """A screen that takes a Resize to the size it already has as the no-op it is."""

    def on_resize(self, event: events.Resize) -> None:
        # ``outer_size``: the size of the screen's last layout (``size`` already follows the app's).
        if self.is_attached and event.size == self.outer_size:
            # Screen's own handler (a base class's: prevent_default skips it) would lay out again.
            event.prevent_default()
