"""``/thinking`` without an argument: pick the thinking level from those the model supports.

Each row shows the level in the colour the editor border takes for it (theme tokens
``thinkingOff`` … ``thinkingXhigh``), so the picker doubles as the legend of that colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding

from .pick_list import PickItem, PickList, Saved

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

LEVEL_NOTES = {
    "off": "no reasoning",
    "minimal": "a very small reasoning budget",
    "low": "quick reasoning",
    "medium": "balanced",
    "high": "thorough reasoning",
    "xhigh": "the largest budget the model allows",
}


def thinking_items(levels: list[str], current: str, colors: dict[str, str]) -> list[PickItem]:
    """Rows for ``levels``; ``colors`` maps a level to its border colour ("" for plain)."""
    items = []
    for level in levels:
        label = Text("● " if level == current else "  ")
        label.append("▌ ", style=colors.get(level) or "")
        label.append(level.ljust(8), style="bold")
        label.append(f"  {LEVEL_NOTES.get(level, '')}", style="dim")
        items.append(PickItem(level, label, level, "", level == current))
    return items


class ThinkingPicker(PickList):
    """Returns the chosen level, ``Saved(level)`` with Ctrl+S, or None when cancelled."""

    BINDINGS = [Binding("ctrl+s", "save", "Save as default", id="app.thinking.save")]

    def __init__(self, levels: list[str], current: str, colors: dict[str, str] | None = None) -> None:
        super().__init__("Thinking level", thinking_items(levels, current, colors or {}),
                         hint="↑↓ move · enter select · ctrl+s select and save as default · esc cancel",
                         filterable=False, id="thinking-picker")


def open_thinking_picker(app: Any, session: SessionPort) -> None:
    """Push the picker; the choice is set on ``session`` (clamped to the model), the one it was
    opened for even if another tab is shown by then."""
    levels = session.available_thinking_levels()
    if levels == ["off"]:
        app.notify("This model does not support thinking levels", timeout=3)
        return
    variables = app.theme_variables
    colors = {lv: variables.get(f"pi-thinking-{lv}", "") for lv in levels}

    def chosen(choice: Any) -> None:
        if not choice:
            return
        save = isinstance(choice, Saved)
        level = choice.value if save else choice

        async def apply() -> None:
            applied = await session.set_thinking_level(level)
            if save:
                session.settings.set("defaultThinkingLevel", applied)
                app.notify(f"Thinking level: {applied} (saved as default)", timeout=3)

        app.run_worker(apply(), name="thinking", group="kernel", exit_on_error=False)

    app.push_screen(ThinkingPicker(levels, session.thinking_level, colors), chosen)
