"""``/settings``: the common preferences, changed in place and saved to settings.json.

Up/Down choose a setting, Enter/Right/Space take its next value, Left the previous one.
Every change is written at once through ``SettingsManager.set`` (an atomic write-back of
the global file) and applied to the running app where it can be: the theme repaints as it
changes (a live preview), the thinking level, queue modes, auto-compaction and auto-retry
reach the session, hidden thinking folds the transcript's thinking blocks. A value that
cannot be saved is shown in red under the list and the app keeps running with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .pick_list import PICKER_CSS


@dataclass
class SettingRow:
    """One editable setting."""

    key: str
    """Dotted settings key (camelCase, as in settings.json)."""
    label: str
    choices: list[Any]
    help: str
    apply: Callable[[Any, Any], Any] | None = None
    """``apply(app, value)``: make the running app follow (may return a coroutine)."""


def _show(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


def setting_rows(app: Any) -> list[SettingRow]:
    """The settings the screen offers, with their choices for this app and model."""
    session = app.session
    themes = sorted(app.themes.themes)

    def thinking(app: Any, level: str) -> Any:
        return app.session.set_thinking_level(level)

    return [
        SettingRow("defaultThinkingLevel", "Thinking level", session.available_thinking_levels(),
                   "Reasoning effort for this session and the start-up default.", thinking),
        SettingRow("theme", "Theme", themes, "Colours of the whole app; the screen repaints as you change it.",
                   lambda app, v: app.themes.apply(v)),
        SettingRow("steeringMode", "Steering mode", ["one-at-a-time", "all"],
                   "How queued steering messages (Enter while the agent works) are delivered.",
                   lambda app, v: app.session.set_steering_mode(v)),
        SettingRow("followUpMode", "Follow-up mode", ["one-at-a-time", "all"],
                   "How queued follow-up messages (Alt+Enter) are delivered.",
                   lambda app, v: app.session.set_follow_up_mode(v)),
        SettingRow("compaction.enabled", "Auto-compaction", [True, False],
                   "Summarise old context automatically when the window fills up.",
                   lambda app, v: app.session.set_auto_compaction(v)),
        SettingRow("retry.enabled", "Auto-retry", [True, False],
                   "Retry transient provider errors (rate limits, overload) with back-off.",
                   lambda app, v: app.session.set_auto_retry(v)),
        SettingRow("hideThinkingBlock", "Hide thinking", [False, True],
                   "Fold thinking blocks in the transcript (Ctrl+T toggles for the moment).",
                   lambda app, v: app.transcript.set_thinking_collapsed(v)),
        SettingRow("doubleEscapeAction", "Double Esc", ["tree", "fork", "none"],
                   "What pressing Esc twice on an empty editor opens."),
        SettingRow("treeFilterMode", "Tree filter", ["default", "no-tools", "user-only", "labeled-only", "all"],
                   "Initial filter of the /tree view."),
        SettingRow("quietStartup", "Quiet start-up", [False, True, "header"],
                   "Hide the start-up header and resource listing ('header' keeps the header)."),
        SettingRow("collapseChangelog", "Short changelog", [False, True],
                   "Show a condensed changelog after an update."),
    ]


class SettingsScreen(ModalScreen[None]):
    """The settings list; changes are saved as they are made."""

    DEFAULT_CSS = PICKER_CSS.replace("PickList", "SettingsScreen") + """
    SettingsScreen #settings-help { color: $pi-muted; height: auto; }
    SettingsScreen #settings-error { color: $pi-error; height: auto; }
    """
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close", id="tui.select.cancel"),
        Binding("right,space", "change(1)", "Next value", show=False),
        Binding("left", "change(-1)", "Previous value", show=False),
    ]

    def __init__(self, rows: list[SettingRow], values: dict[str, Any]) -> None:
        super().__init__(id="settings-screen")
        self.rows = rows
        self.values = values
        """Current value per key (what the list shows)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Settings", classes="picker-title")
            yield OptionList(*(Option(self._row_text(r)) for r in self.rows), id="settings-list")
            yield Static("", id="settings-help")
            yield Static("", id="settings-error")
            yield Static("↑↓ choose · enter/→ next value · ← previous · esc close · saved to settings.json",
                         classes="picker-hint")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.highlighted = 0
        listing.focus()
        self._show_help(0)

    def _row_text(self, row: SettingRow) -> Text:
        text = Text(row.label.ljust(18), style="bold")
        text.append(_show(self.values.get(row.key)).ljust(15), style="")
        others = [c for c in row.choices if c != self.values.get(row.key)]
        if others and len(row.choices) <= 6:
            text.append("(" + " / ".join(_show(c) for c in row.choices) + ")", style="dim")
        return text

    def _show_help(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.rows):
            row = self.rows[index]
            self.query_one("#settings-help", Static).update(f"{row.key}: {row.help}")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_help(event.option_index)

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await self.action_change(1)

    async def action_change(self, step: int) -> None:
        listing = self.query_one(OptionList)
        index = listing.highlighted
        if index is None:
            return
        row = self.rows[index]
        if not row.choices:
            return
        current = self.values.get(row.key)
        pos = row.choices.index(current) if current in row.choices else -1
        value = row.choices[(pos + step) % len(row.choices)]
        error = await self.app_change(row, value)
        self.values[row.key] = value
        listing.replace_option_prompt_at_index(index, self._row_text(row))
        self.query_one("#settings-error", Static).update(error or "")

    async def app_change(self, row: SettingRow, value: Any) -> str | None:
        """Apply to the running app, then save. Returns an error message, or None."""
        app = self.app
        try:
            if row.apply is not None:
                result = row.apply(app, value)
                if hasattr(result, "__await__"):
                    await result
        except Exception as exc:  # noqa: BLE001
            return f"{row.label}: not applied ({exc})"
        session = getattr(app, "session", None)
        if session is None:
            return f"{row.label}: no session"
        try:
            session.settings.set(row.key, value)
        except Exception as exc:  # noqa: BLE001 - SettingsError says which file and why
            return f"{row.label}: {exc}"
        return None


def current_values(app: Any, rows: list[SettingRow]) -> dict[str, Any]:
    """What each row shows: the live value where the app has one, else the setting."""
    values: dict[str, Any] = {}
    for row in rows:
        try:
            values[row.key] = app.session.settings.get(row.key)
        except Exception:  # noqa: BLE001 - a setting this version does not know
            values[row.key] = row.choices[0] if row.choices else None
    values["defaultThinkingLevel"] = app.session.thinking_level
    values["theme"] = app.theme
    return values


def open_settings(app: Any) -> None:
    """Push the settings screen for the running app."""
    rows = setting_rows(app)
    app.push_screen(SettingsScreen(rows, current_values(app, rows)))
