"""Queued steering and follow-up messages, shown above the editor until delivered."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class QueueView(Static):
    """Lists pending messages, each marked steer or follow-up; hidden when empty."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self.hint_key = "alt+up"
        """Key shown in the hint (from the keymap)."""

    def on_mount(self) -> None:
        self.display = False

    def set_queue(self, steering: list[str], follow_up: list[str]) -> None:
        """Show the kernel's queue (from a ``queue_update`` event)."""
        self.steering, self.follow_up = list(steering), list(follow_up)
        self.display = bool(self.steering or self.follow_up)
        text = Text()
        for label, items in (("steer", self.steering), ("follow-up", self.follow_up)):
            for item in items:
                first = item.strip().splitlines()[0] if item.strip() else ""
                if len(first) > 200:
                    first = first[:199] + "…"
                text.append(f"  {label:>9} ", style="bold")
                text.append(f"{first}\n")
        if self.display:
            text.append(f"  {self.hint_key} to edit queued messages", style="italic")
        self.update(text)
