"""The list of ``pi config``: a search line, then resources under their group and kind headings.

It owns what is shown (the items of the scope on screen, the query, the cursor) and the keys that
move, search and act; what a key means for the settings files is the app's business, reached by
messages: ``ToggleRequested``, ``ScopeSwitchRequested``, ``CloseRequested``. Keys follow Pi's
``tui.select.*`` and ``tui.input.tab`` ids (so a user's ``keybindings.json`` applies); Space
toggles too, and any other printable key is typed into the search, as in Pi.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.color import ColorParseError
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from pi_runtime.frontend.app_support import ConfigItem, WriteScope
from pi_tui.keys.keymap import Keymap

KIND_LABELS = {"extensions": "Extensions", "skills": "Skills", "prompts": "Prompts", "themes": "Themes"}

_KEY_IDS = ("tui.select.up", "tui.select.down", "tui.select.pageUp", "tui.select.pageDown",
            "tui.select.confirm", "tui.select.cancel", "tui.input.tab")


@dataclass(frozen=True)
class _Row:
    """One line below the search: a group heading, a kind heading, or an item."""

    text: str
    depth: int
    """0 group heading, 1 kind heading, 2 item."""
    item: ConfigItem | None = None
    inherited: bool = False
    """Under a personal group, seen from project scope (drawn dim, as Pi)."""


class ResourceList(Widget, can_focus=True):
    """Resources to toggle, filtered by what is typed; the cursor only stops on items."""

    DEFAULT_CSS = """
    ResourceList { height: auto; }
    """

    CHROME = 8
    """Lines of the screen that are not the list (as Pi counts them: blank lines, rules, title)."""

    class ToggleRequested(Message):
        """Space or Enter on an item."""

        def __init__(self, item: ConfigItem) -> None:
            super().__init__()
            self.item = item

    class ScopeSwitchRequested(Message):
        """Tab: global <-> project."""

    class CloseRequested(Message):
        """Esc or Ctrl+C: leave ``pi config``."""

    def __init__(self, keymap: Keymap, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keymap = keymap
        self.items: list[ConfigItem] = []
        self.scope: WriteScope = "global"
        self.search_text = ""
        self.rows: list[_Row] = []
        self.cursor = 0
        """Index in :attr:`rows` of the selected item (0 when nothing matches)."""

    # ------------------------------------------------------------------ state

    def show(self, items: Sequence[ConfigItem], scope: WriteScope, *, keep_cursor: bool = False) -> None:
        """Show ``items`` as ``scope`` sees them; ``keep_cursor`` stays on the same row (after a toggle)."""
        previous = self.cursor
        self.items, self.scope = list(items), scope
        self._build()
        if keep_cursor and previous < len(self.rows) and self.rows[previous].item is not None:
            self.cursor = previous
        self.refresh(layout=True)

    @property
    def selected(self) -> ConfigItem | None:
        """The item under the cursor (None when nothing matches)."""
        return self.rows[self.cursor].item if self.cursor < len(self.rows) else None

    def _matches(self, item: ConfigItem) -> bool:
        query = self.search_text.strip().lower()
        return not query or any(query in text.lower() for text in (item.name, item.kind, item.pattern, item.source))

    def _build(self) -> None:
        """Rows of the items that match the query, in groups (personal packages, project packages,
        built-ins) and kinds (extensions, skills, prompts, themes), items by name."""
        groups: dict[str, list[ConfigItem]] = {}
        for item in self.items:
            if self._matches(item):
                groups.setdefault(item.group, []).append(item)
        ordered = sorted(groups.items(), key=lambda g: (g[0] == "Built-in", not g[1][0].personal))
        self.rows = []
        for label, members in ordered:
            inherited = self.scope == "project" and members[0].personal
            self.rows.append(_Row(label + (" · inherited global" if inherited else ""), 0, inherited=inherited))
            for kind, title in KIND_LABELS.items():
                of_kind = sorted((m for m in members if m.kind == kind), key=lambda m: m.name)
                if of_kind:
                    self.rows.append(_Row(title, 1, inherited=inherited))
                    self.rows.extend(_Row(m.name, 2, m, inherited) for m in of_kind)
        self.cursor = next((i for i, row in enumerate(self.rows) if row.item is not None), 0)

    def _move(self, step: int) -> None:
        index = self.cursor + step
        while 0 <= index < len(self.rows):
            if self.rows[index].item is not None:
                self.cursor = index
                return
            index += step

    def _jump(self, step: int) -> None:
        """Page up/down: a screenful away, then the nearest item back towards the cursor."""
        target = max(0, min(len(self.rows) - 1, self.cursor + step * max(1, self._visible())))
        back = -1 if step > 0 else 1
        while 0 <= target < len(self.rows) and self.rows[target].item is None:
            target += back
        if 0 <= target < len(self.rows):
            self.cursor = target

    # ------------------------------------------------------------------ keys

    def on_key(self, event: events.Key) -> None:
        action = self.keymap.action_for_key(event.key, _KEY_IDS)
        event.stop()
        event.prevent_default()
        if event.key == "ctrl+c" or action == "tui.select.cancel":
            self.post_message(self.CloseRequested())
        elif action == "tui.select.up":
            self._move(-1)
        elif action == "tui.select.down":
            self._move(1)
        elif action == "tui.select.pageUp":
            self._jump(-1)
        elif action == "tui.select.pageDown":
            self._jump(1)
        elif action == "tui.input.tab":
            self.post_message(self.ScopeSwitchRequested())
        elif event.key == "space" or action == "tui.select.confirm":
            if self.selected is not None:
                self.post_message(self.ToggleRequested(self.selected))
        elif event.key == "backspace":
            self._search(self.search_text[:-1])
        elif event.is_printable and event.character:
            self._search(self.search_text + event.character)
        self.refresh(layout=True)

    def _search(self, query: str) -> None:
        if query != self.search_text:
            self.search_text = query
            self._build()

    # ------------------------------------------------------------------ drawing

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As tall as the search line and the rows, but no taller than the screen leaves (Pi's
        list also ends where its rows do, and the bottom rule follows it)."""
        return min(max(1, len(self.rows)) + 2, max(5, viewport.height - self.CHROME))

    def _visible(self) -> int:
        """Rows of resources that fit: the widget's height less the search line and the gap."""
        return max(1, self.size.height - 2)

    def _color(self, name: str) -> Style:
        """The theme's ``pi-<name>`` colour (Pi's theme tokens: accent, success, warning, muted, dim)."""
        value = self.app.theme_variables.get(f"pi-{name}")
        try:
            return Style(color=value) if value else Style()
        except ColorParseError:  # a theme's value rich cannot read: the text keeps its colour
            return Style()

    def _checkbox(self, item: ConfigItem) -> Text:
        if self.scope == "project":
            if item.state == "load":
                return Text("[+]", self._color("success"))
            if item.state == "unload":
                return Text("[-]", self._color("warning"))
            return Text("[x]" if item.enabled else "[ ]", self._color("dim"))
        return Text("[x]", self._color("success")) if item.enabled else Text("[ ]", self._color("dim"))

    def _suffix(self, item: ConfigItem, inherited: bool) -> Text:
        if self.scope != "project":
            return Text()
        if item.state != "inherit":
            return Text(f"  project {item.state}", self._color("muted"))
        return Text("  inherited global", self._color("dim")) if inherited else Text()

    def render(self) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("> ", self._color("accent"))
        out.append(self.search_text)
        if self.has_focus:
            out.append(" ", Style(reverse=True))
        out.append("\n\n")
        if not self.rows:
            out.append("  No resources found", self._color("muted"))
            return out
        visible = self._visible()
        many = len(self.rows) > visible
        if many:
            visible = max(1, visible - 1)  # room for the position line
        start = max(0, min(self.cursor - visible // 2, len(self.rows) - visible))
        for index in range(start, min(len(self.rows), start + visible)):
            out.append_text(self._line(self.rows[index], index == self.cursor))
            out.append("\n")
        if many:
            items = [i for i, row in enumerate(self.rows) if row.item is not None]
            position = sum(1 for i in items if i <= self.cursor)
            out.append(f"  ({position}/{len(items)})", self._color("dim"))
        return out

    def _line(self, row: _Row, selected: bool) -> Text:
        if row.item is None:
            if row.depth == 0:
                style = self._color("dim" if row.inherited else "accent") + Style(bold=True)
                return Text.assemble("  ", (row.text, style))
            return Text.assemble("    ", (row.text, self._color("dim" if row.inherited else "muted")))
        item = row.item
        dimmed = self.scope == "project" and row.inherited and item.state == "inherit"
        name_style = self._color("dim") if dimmed else Style(bold=selected)
        return Text.assemble("> " if selected else "  ", "    ", self._checkbox(item), " ", (row.text, name_style),
                             self._suffix(item, row.inherited))
