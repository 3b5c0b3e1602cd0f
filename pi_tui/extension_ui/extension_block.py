"""A transcript block an extension drew: a custom message (``register_message_renderer``) or a
custom entry (``register_entry_renderer``) shown as the renderer's text or Rich renderable."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from textual.widgets import Static


class ExtensionBlock(Static):
    """What an extension's renderer returned for one message."""

    DEFAULT_CSS = "ExtensionBlock { height: auto; margin: 1 0 0 0; padding: 0 1; }"

    def __init__(self, content: RenderableType, *, message: Any = None, entry: Any = None) -> None:
        super().__init__(content, markup=False, classes="extension-block")
        self.message = message
        """The message it shows (for the transcript window and selection)."""
        self.entry = entry
        """The custom session entry it shows (entries are no messages: the window skips them)."""
