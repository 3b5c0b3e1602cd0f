"""A one-line (or short) inline notice: errors, retries, aborts, compaction progress."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

KINDS = ("error", "warning", "info", "retry", "status")


class Notice(Static):
    """Inline status text; ``kind`` picks the colour (error, warning, info, retry, status)."""

    def __init__(self, text: str, kind: str = "info", **kwargs) -> None:
        super().__init__(Text(text), classes=f"notice notice-{kind}", markup=False, **kwargs)
        self.kind = kind
        """error, warning, info, retry or status (what the app just did, dim, as Pi's status lines)."""
        self.message = None

    def set_text(self, text: str, kind: str | None = None) -> None:
        """Change the text (and kind) in place, e.g. when a retry ends."""
        if kind and kind != self.kind:
            self.remove_class(f"notice-{self.kind}")
            self.add_class(f"notice-{kind}")
            self.kind = kind
        self.update(Text(text))
