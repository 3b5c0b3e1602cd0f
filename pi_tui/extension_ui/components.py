"""Components Pi's extension examples build their ``ctx.ui.custom`` screens from (pi-tui's
``SettingsList`` and ``Editor``), as Textual widgets.

- :class:`SettingsList`: rows of ``label  value``; Enter or Space moves the highlighted row to its
  next value and calls ``on_change(id, value)``; Esc calls ``on_cancel()``. Pi's tools example
  toggles tools with it.
- :class:`Editor`: a multi-line text box for a component of one's own; Enter calls
  ``on_submit(text)``, Shift+Enter (or Alt+Enter) adds a line, Esc calls ``on_cancel()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option


@dataclass
class SettingItem:
    """One row of a :class:`SettingsList` (Pi's ``SettingItem``)."""

    id: str
    label: str
    current_value: str
    values: Sequence[str] = field(default_factory=tuple)
    description: str = ""


def _item(value: Any) -> SettingItem:
    if isinstance(value, SettingItem):
        return value
    if isinstance(value, dict):  # Pi's shape: {id, label, currentValue, values, description}
        return SettingItem(str(value["id"]), str(value.get("label", value["id"])),
                           str(value.get("currentValue", value.get("current_value", ""))),
                           tuple(str(v) for v in value.get("values", ())), str(value.get("description", "")))
    raise TypeError(f"SettingsList items are SettingItem or dicts, not {type(value).__name__}")


class SettingsList(OptionList):
    """Settings to cycle through (see the module docstring)."""

    BINDINGS = [Binding("space", "select", "Change", show=False), Binding("escape", "cancel", "Close", show=False)]

    def __init__(self, items: Sequence[SettingItem | dict[str, Any]], on_change: Callable[[str, str], Any],
                 on_cancel: Callable[[], Any] | None = None, *, max_visible: int = 10, **kwargs: Any) -> None:
        self.items = [_item(i) for i in items]
        self._on_change = on_change
        self._on_cancel = on_cancel
        super().__init__(*[self._option(i) for i in self.items], **kwargs)
        self.styles.max_height = max_visible + 2

    @staticmethod
    def _option(item: SettingItem) -> Option:
        text = Text.assemble((item.label, "bold"), "  ", item.current_value)
        if item.description:
            text.append(f"  {item.description}", style="dim")
        return Option(text, id=item.id)

    def update_value(self, item_id: str, value: str) -> None:
        """Show ``value`` for ``item_id`` (Pi's ``updateValue``)."""
        for index, item in enumerate(self.items):
            if item.id == item_id:
                item.current_value = value
                self.replace_option_prompt_at_index(index, self._option(item).prompt)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        item = self.items[event.option_index]
        if not item.values:
            return
        values = list(item.values)
        following = values[(values.index(item.current_value) + 1) % len(values)] if item.current_value in values \
            else values[0]
        self.update_value(item.id, following)
        self._on_change(item.id, following)

    def action_cancel(self) -> None:
        if self._on_cancel is not None:
            self._on_cancel()


class Editor(TextArea):
    """A text box for an extension's own component (see the module docstring)."""

    def __init__(self, text: str = "", *, on_submit: Callable[[str], Any] | None = None,
                 on_cancel: Callable[[], Any] | None = None, **kwargs: Any) -> None:
        super().__init__(text, soft_wrap=True, show_line_numbers=False, **kwargs)
        self.on_submit = on_submit
        self.on_cancel = on_cancel

    def get_text(self) -> str:
        """The text (Pi's ``getText``)."""
        return self.text

    def set_text(self, text: str) -> None:
        """Replace the text (Pi's ``setText``)."""
        self.load_text(text)

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter" and self.on_submit is not None:
            event.stop()
            event.prevent_default()
            self.on_submit(self.text)
            return
        if event.key in ("shift+enter", "alt+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "escape" and self.on_cancel is not None:
            event.stop()
            event.prevent_default()
            self.on_cancel()
            return
        await super()._on_key(event)
