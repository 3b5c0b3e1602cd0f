"""A scrollable markdown page in a modal: ``/changelog`` (and any long read-only text)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Markdown, Static

from .modal import Modal
from .pick_list import PICKER_CSS

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"
"""pi's own changelog, at the repository root."""


def changelog_head(path: Path = CHANGELOG, sections: int = 3) -> str:
    """The title and the first ``sections`` version sections of a Keep-a-Changelog file.

    Raises:
        OSError: the file cannot be read.
    """
    out: list[str] = []
    seen = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            seen += 1
            if seen > sections:
                break
        out.append(line)
    return "\n".join(out).rstrip() + "\n"


class TextViewer(Modal[None]):
    """Shows markdown; Esc or Ctrl+C (`tui.select.cancel`) closes, arrows and PageUp/PageDown scroll."""

    DEFAULT_CSS = PICKER_CSS.replace("PickList", "TextViewer") + """
    TextViewer > #picker { height: 90%; }
    TextViewer VerticalScroll { height: 1fr; }
    TextViewer Markdown { background: $pi-bg; padding: 0; margin: 0; }
    """
    BINDINGS = [Binding("escape,ctrl+c", "dismiss(None)", "Close", id="tui.select.cancel")]

    def __init__(self, title: str, markdown: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.title_text, classes="picker-title")
            with VerticalScroll():
                yield Markdown(self.markdown)
            yield Static("↑↓ pgup/pgdn scroll · esc close", classes="picker-hint")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
