"""``/settings``: every setting of Pi's settings reference that makes sense while pi runs, grouped
(``settings_catalog``), changed in place and saved to settings.json.

Up/Down choose a setting, Enter/Right/Space take its next value, Left the previous one. Typing
searches the labels as Pi's settings list does (its fuzzy match, best first, the groups set aside
while a search is shown); Backspace takes a letter back.
Every change is written at once through ``SettingsManager.set`` (an atomic write-back of
the global file) and applied to the running app where it can be: the theme repaints as it
changes (a live preview), the thinking level, queue modes, auto-compaction and auto-retry
reach the session, display settings re-apply. A value that cannot be saved is shown in red
under the list and the app keeps running with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .modal import Modal
from .pick_list import PICKER_CSS
from .settings_catalog import SettingRow, groups

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort


_TITLE = "Settings (saved to settings.json as they change)"


def _show(value: Any) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


class SettingsScreen(Modal[None]):
    """The settings list, by group; changes are saved as they are made."""

    DEFAULT_CSS = PICKER_CSS.replace("PickList", "SettingsScreen") + """
    SettingsScreen #settings-help { color: $pi-muted; height: auto; }
    SettingsScreen #settings-error { color: $pi-error; height: auto; }
    SettingsScreen > #picker { height: 90%; }
    SettingsScreen #settings-list { height: 1fr; max-height: 100%; }
    SettingsScreen #settings-help { height: 2; }
    """
    BINDINGS = [
        Binding("escape,ctrl+c", "dismiss(None)", "Close", id="tui.select.cancel"),
        Binding("right,space", "change(1)", "Next value", show=False),
        Binding("left", "change(-1)", "Previous value", show=False),
    ]

    def __init__(self, session: SessionPort, sections: list[tuple[str, list[SettingRow]]],
                 values: dict[str, Any]) -> None:
        super().__init__(id="settings-screen")
        self.session = session
        """The session the screen was opened for: its settings are the ones changed."""
        self.grouped: list[SettingRow | str] = []
        """Every row by group: a group title (str) or a setting."""
        for title, rows in sections:
            self.grouped.append(title)
            self.grouped.extend(rows)
        self.lines: list[SettingRow | str] = self.grouped
        """The list's rows in order as shown: every row, or a search's matches."""
        self.search_text = ""
        """What has been typed to search the labels."""
        self.values = values
        """Current value per key (what the list shows)."""

    @property
    def rows(self) -> list[SettingRow]:
        """The settings shown."""
        return [line for line in self.lines if isinstance(line, SettingRow)]

    @property
    def rows_all(self) -> list[SettingRow]:
        """Every setting, shown or not."""
        return [line for line in self.grouped if isinstance(line, SettingRow)]

    def _options(self) -> list[Option]:
        return [Option(Text(line, style="bold underline"), disabled=True) if isinstance(line, str)
                else Option(self._row_text(line)) for line in self.lines]

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(_TITLE, classes="picker-title", id="settings-title")
            yield OptionList(*self._options(), id="settings-list")
            yield Static("", id="settings-help")
            yield Static("", id="settings-error")
            yield Static("type to search · ↑↓ choose · enter/→ next value · ← previous · esc close",
                         classes="picker-hint")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.focus()
        self._highlight_first()

    def _highlight_first(self) -> None:
        listing = self.query_one(OptionList)
        first = next((i for i, line in enumerate(self.lines) if isinstance(line, SettingRow)), None)
        listing.highlighted = first
        if first is None:
            self.query_one("#settings-help", Static).update("No setting matches.")
        else:
            self._show_help(first)

    def on_key(self, event: events.Key) -> None:
        if event.key == "backspace" and self.search_text:
            self._search(self.search_text[:-1])
        elif event.character and event.is_printable and event.character != " ":
            self._search(self.search_text + event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    def _search(self, query: str) -> None:
        from pi_runtime.extensions.fuzzy import fuzzy_filter

        self.search_text = query
        if query.strip():
            matches: list[SettingRow] = fuzzy_filter(self.rows_all, query, lambda row: row.label)
            self.lines = [*matches]
        else:
            self.lines = self.grouped
        title = f"Settings  > {query}" if query else _TITLE
        self.query_one("#settings-title", Static).update(title)
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options(self._options())
        self._highlight_first()

    def _row_text(self, row: SettingRow) -> Text:
        text = Text("  " + row.label.ljust(22), style="bold")
        value = self.values.get(row.key)
        text.append(_show(value).ljust(16))
        choices = "(" + " / ".join(_show(c) for c in row.choices) + ")"
        if len(choices) <= 44:  # longer lists are stepped through; they would wrap the row
            text.append(choices, style="dim")
        return text

    def _row_at(self, index: int | None) -> SettingRow | None:
        if index is None or not 0 <= index < len(self.lines):
            return None
        line = self.lines[index]
        return line if isinstance(line, SettingRow) else None

    def _show_help(self, index: int | None) -> None:
        row = self._row_at(index)
        if row is not None:
            scope = " (agent-directory settings only)" if row.global_only else ""
            self.query_one("#settings-help", Static).update(f"{row.key}{scope}: {row.help}")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_help(event.option_index)

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await self.action_change(1)

    async def action_change(self, step: int) -> None:
        listing = self.query_one(OptionList)
        index = listing.highlighted
        row = self._row_at(index)
        if row is None or index is None or not row.choices:
            return
        current = self.values.get(row.key)
        pos = row.choices.index(current) if current in row.choices else -1
        value = row.choices[(pos + step) % len(row.choices)]
        error = await self.app_change(row, value)
        self.values[row.key] = value
        listing.replace_option_prompt_at_index(index, self._row_text(row))
        self.query_one("#settings-error", Static).update(error or "")

    async def app_change(self, row: SettingRow, value: Any) -> str | None:
        """Save, then apply to the running app. Returns an error message, or None."""
        app: Any = self.app
        session = self.session
        if row.key != "modelThinkingLevels":  # that row writes its own map entry
            try:
                session.settings.set(row.key, value)
            except Exception as exc:  # noqa: BLE001 - SettingsError says which file and why
                return f"{row.label}: {exc}"
        try:
            if row.apply is not None:
                result = row.apply(app, value)
                if hasattr(result, "__await__"):
                    await result
        except Exception as exc:  # noqa: BLE001
            return f"{row.label}: saved, but not applied now ({exc})"
        return None


def current_values(app: Any, session: SessionPort, rows: list[SettingRow]) -> dict[str, Any]:
    """What each row shows: the live value where the app has one, else the setting."""
    values: dict[str, Any] = {}
    for row in rows:
        try:
            values[row.key] = session.settings.get(row.key)
        except Exception:  # noqa: BLE001 - a setting this version does not know
            values[row.key] = row.choices[0] if row.choices else None
    values["defaultThinkingLevel"] = session.thinking_level
    values["theme"] = app.theme
    per_model = session.settings.settings.model_thinking_levels or {}
    values["modelThinkingLevels"] = per_model.get(session.model.ref, "default") if session.model else "default"
    return values


def open_settings(app: Any, session: SessionPort) -> None:
    """Push the settings screen for ``session`` (the tab ``/settings`` was typed in)."""
    sections = groups(app, session)
    rows = [row for _, group in sections for row in group]
    app.push_screen(SettingsScreen(session, sections, current_values(app, session, rows)))
