"""``SearchInput``: the filter field of a pick list, whose typing never re-lays out the dialog.

Textual's ``Input`` sets its virtual size (the text's width) on every change, and ``virtual_size``
asks for a layout of the whole screen. In the model picker that layout cost a frame of its own:
each layout tells every scrolling list its size again, and the list repaints its scrollbar in the
frame after (``ScrollView._size_updated``), so a search keystroke was drawn in two frames where
Pi draws one. The field's box never depends on its text (its width is set by the dialog), and
its horizontal scrolling reads ``virtual_size`` directly, so a repaint is enough.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class SearchInput(Input):
    """An ``Input`` whose text changes repaint it without a layout of the screen."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
    """The text's width (Textual's ``Input`` keeps it), changed without a layout."""
