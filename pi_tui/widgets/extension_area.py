"""What extensions publish around the editor: widget lines and footer-style statuses."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


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

    def show(self, widgets: dict[str, tuple[list[str], str]], statuses: dict[str, str]) -> None:
        """Render the widgets placed here (and, below the editor, the statuses)."""
        text = Text()
        for lines, placement in widgets.values():
            if placement != self.placement:
                continue
            for line in lines:
                text.append(line + "\n")
        if self.placement == "belowEditor" and statuses:
            from pi_runtime.frontend import status_line

            text.append(status_line(statuses), style="italic")  # Pi shows the texts, sorted by key
        text.rstrip()  # in place
        self.display = bool(text.plain.strip())
        self.update(text)
