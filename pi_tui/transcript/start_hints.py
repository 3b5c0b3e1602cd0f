"""The keys a new session starts with, as Pi shows them: one line of the essentials, and the
whole start-up help (every key, and what was loaded) while tool output is expanded (ctrl+o).

The keys are read from the live keymap, so a ``keybindings.json`` change shows here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from ..keys.keymap import Keymap

_FULL = [
    ("app.interrupt", "to interrupt"),
    ("app.clear", "to clear"),
    ("app.clear", "twice to exit"),
    ("app.exit", "to exit (empty)"),
    ("app.suspend", "to suspend"),
    ("tui.editor.deleteToLineEnd", "to delete to end"),
    ("app.thinking.cycle", "to cycle thinking level"),
    ("app.model.cycleForward|app.model.cycleBackward", "to cycle models"),
    ("app.model.select", "to select model"),
    ("app.tools.expand", "to expand tools"),
    ("app.thinking.toggle", "to expand thinking"),
    ("app.editor.external", "for external editor"),
    ("/", "for commands"),
    ("!", "to run bash"),
    ("!!", "to run bash (no context)"),
    ("app.message.followUp", "to queue follow-up"),
    ("app.message.dequeue", "to edit all queued messages"),
    ("app.clipboard.pasteImage", "to paste images or text"),
    ("pi.search", "to search the transcript"),  # pi's; Alt+S reaches pi in every terminal
    ("", "drop image files to attach"),
]
"""(key ids joined by ``|``, or a literal key; what it does) in Pi's order."""


class StartHints(Static):
    """Shown at the top of an empty session."""

    def __init__(self, keymap: Keymap, *, loaded: list[tuple[str, list[str]]] | None = None,
                 expanded: bool = False, **kwargs: object) -> None:
        super().__init__("", markup=False, classes="start-hints", **kwargs)  # type: ignore[arg-type]
        self.keymap = keymap
        self.loaded = loaded or []
        """(kind, names) of the context files, skills and templates loaded."""
        self._expanded = expanded
        # Drawn with its text from the first frame it is in: set at mount, it was laid out empty
        # first and then again (a second layout of the transcript while the first prompt is typed).
        self.update(self._content())

    @property
    def expanded(self) -> bool:
        return self._expanded

    @expanded.setter
    def expanded(self, value: bool) -> None:
        self._expanded = value
        self.update(self._content())

    def _key(self, ids: str) -> str:
        if not ids or not ids[0].isalpha():
            return ids  # "/", "!": typed, not bound
        return "/".join(k for k in (self.keymap.first_key(i) for i in ids.split("|")) if k)

    def _content(self) -> Text:
        text = Text()
        if not self._expanded:
            k = self._key
            parts = [f"{k('app.interrupt')} interrupt", f"{k('app.clear')}/{k('app.exit')} clear/exit",
                     "/ commands", "! bash", f"{k('app.tools.expand')} more"]
            text.append(" · ".join(p for p in parts if not p.startswith(" ")))
            text.append(f"\nPress {k('app.tools.expand')} to show full startup help and loaded resources.",
                        style="dim")
            return text
        lines = []
        for ids, what in _FULL:
            key = self._key(ids)
            if key or not ids:
                lines.append(f"{key} {what}".strip())
        text.append("\n".join(lines))
        for kind, names in self.loaded:
            if names:
                text.append(f"\n\n{kind}: ", style="bold")
                text.append(", ".join(names), style="dim")
        return text
