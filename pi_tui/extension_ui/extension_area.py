"""What extensions publish around the editor: widget lines and footer-style statuses."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static


def _as_text(value: Any) -> Text:
    """Rich text as it is; a string with ANSI colour codes (what Pi's theme makes, and Pi's examples
    write by hand) in those colours; any other value as plain text."""
    if isinstance(value, Text):
        return value
    text = str(value)
    return Text.from_ansi(text) if "\x1b[" in text else Text(text)


def as_extension_text(value: Any) -> Text:
    """See :func:`_as_text` (for other widgets that draw extension strings)."""
    return _as_text(value)


def _one_line(text: Text) -> Text:
    """The text with its line breaks and runs of spaces as single spaces (styles kept)."""
    words = [word for line in text.split("\n") for word in line.split(" ") if word.plain]
    return Text(" ").join(words)


class ExtensionArea(Static):
    """Shows extension widgets (lines) and statuses (their texts, as Pi); hidden when empty."""

    DEFAULT_CSS = """
    ExtensionArea { height: auto; padding: 0 1; color: $pi-muted; }
    """

    def __init__(self, placement: str = "aboveEditor", **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.placement = placement

    def on_mount(self) -> None:
        self.display = False

    def show(self, widgets: dict[str, tuple[list[Any], str]], statuses: dict[str, Any]) -> None:
        """Render the widgets placed here (the ``footer`` area: the statuses, Pi's last line).

        Lines and statuses are strings or Rich text (``ctx.ui.theme``'s colours are kept)."""
        text = Text()
        for lines, placement in widgets.values():
            if placement != self.placement:
                continue
            for line in lines:
                text.append_text(_as_text(line))
                text.append("\n")
        if self.placement == "footer" and statuses:
            # Pi shows the texts (never the keys), sorted by key, each on one line, joined by a space.
            parts = [_one_line(_as_text(status)) for _, status in sorted(statuses.items())]
            text.append_text(Text(" ", style="italic").join(parts))
        text.rstrip()  # in place
        self.display = bool(text.plain.strip())
        self.update(text)
