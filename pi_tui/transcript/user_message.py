"""A prompt the user sent, on its own background."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ..editor.paste import display_text


class UserMessage(Static):
    """The user's message text (large pastes shown collapsed)."""

    def __init__(self, text: str, *, message: Any = None, queued: bool = False) -> None:
        super().__init__(Text(display_text(text)), classes="user-message", markup=False)
        self.message = message
        """The kernel's message object (for the transcript window)."""
