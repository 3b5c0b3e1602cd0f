"""The pop-up list of completions for ``/commands``, ``@files`` and Tab paths above the editor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class Completion:
    """One candidate."""

    value: str
    """Text that replaces the token being completed."""
    label: str
    """What the list shows."""
    description: str = ""
    """Shown dimmed after the label."""


class CompletionMenu(OptionList, can_focus=False):
    """Candidates for the token before the cursor; the editor drives it with its keys."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[Completion] = []
        self.kind = ""
        """slash, file (``@``) or path (Tab)."""
        self.span: tuple[int, int, int] = (0, 0, 0)
        """(row, start column, end column) of the token in the editor."""
        self.on_accept: Callable[[Completion], None] | None = None
        """Applies the chosen completion instead of the editor replacing the token (extension providers)."""
        self.source: tuple[int, str | None] | None = None
        """The editor line (row, text) the candidates were worked out for: keys typed faster than
        the app handles the editor's change messages must not accept a menu of an older text."""
        self.refresh_for_text: Callable[[], None] | None = None
        """Works the candidates out again for the editor's current text (set by the app)."""

    def on_mount(self) -> None:
        self.display = False

    def show(self, items: list[Completion], kind: str, span: tuple[int, int, int], *,
             on_accept: Callable[[Completion], None] | None = None) -> None:
        """Replace the candidates (hides the menu when there are none)."""
        self.items, self.kind, self.span, self.on_accept = items, kind, span, on_accept
        self.clear_options()
        if not items:
            self.display = False
            return
        width = max(len(i.label) for i in items)
        options = []
        for item in items:
            text = Text(item.label.ljust(width + 2))
            if item.description:
                text.append(item.description, style="dim italic")
            options.append(Option(text))
        self.add_options(options)
        self.highlighted = 0
        self.display = True

    def hide(self) -> None:
        self.display = False
        self.items = []
        self.on_accept = None
        self.source = None

    def catch_up(self, row: int, line: str) -> None:
        """Before a key acts on the menu: candidates worked out for another text are worked out
        again now, or, when that takes a worker (extension providers), put away."""
        if not self.is_open or self.source is None or self.source == (row, line):
            return
        if self.refresh_for_text is not None:
            self.refresh_for_text()
        if self.is_open and self.source != (row, line):
            self.hide()

    @property
    def is_open(self) -> bool:
        return bool(self.display and self.items)

    def move(self, step: int) -> None:
        if not self.items:
            return
        current = self.highlighted or 0
        self.highlighted = (current + step) % len(self.items)

    def selected(self) -> Completion | None:
        if not self.items:
            return None
        return self.items[self.highlighted or 0]
