"""A minimal app that shows one navigation screen and exits with its result.

Used by ``pi -r`` before the main app exists (pick a session, then start pi with it), by
the screenshots of the navigation screens and by their tests. It has Pi's themes and
``pi-*`` colour variables and Pi's keymap, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.screen import Screen

from ..keys.keymap import Keymap, load_keymap
from ..theme.theme import default_variables, discover_themes


class NavHostApp(App[Any]):
    """Pushes ``make_screen()`` on mount; the screen's dismiss value becomes the app's return value."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, make_screen: Callable[[], Screen[Any]], *, theme: str = "dark",
                 agent_dir: str | Path | None = None, exit_on_dismiss: bool = True) -> None:
        """
        Args:
            make_screen: Builds the screen to show (called once mounted).
            theme: A Pi theme name.
            agent_dir: Where the user's keybindings.json and themes/ are (none when None).
            exit_on_dismiss: Exit with the screen's result when it is dismissed.
        """
        super().__init__()
        self.make_screen = make_screen
        self.exit_on_dismiss = exit_on_dismiss
        self.results: list[Any] = []
        """Every value the shown screen was dismissed with (tests read it)."""
        folder = Path(agent_dir) if agent_dir else None
        self.keymap: Keymap = load_keymap(folder / "keybindings.json" if folder else None)
        themes, _errors = discover_themes(*([folder / "themes"] if folder else []))
        for pi_theme in themes.values():
            self.register_theme(pi_theme.to_textual())
        self.theme = theme if theme in themes else "dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return default_variables()

    def on_mount(self) -> None:
        self.push_screen(self.make_screen(), self._dismissed)

    def _dismissed(self, result: Any) -> None:
        self.results.append(result)
        if self.exit_on_dismiss:
            self.exit(result)
