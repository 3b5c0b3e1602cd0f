"""The terminal a screenshot shows pi in.

pi draws on the terminal's own background (as Pi does), so a screenshot has to pick one: the
theme's page colour, as a user of that theme would have set up the terminal (a light theme in
a light terminal). The sixteen ANSI colours stay Textual's for the theme's appearance.
"""

from __future__ import annotations

from typing import Any

from rich.terminal_theme import TerminalTheme
from textual.color import Color


def screenshot_terminal(app: Any) -> TerminalTheme:
    """A terminal theme with ``app``'s current theme's background and text colour."""
    theme = app.current_theme
    palette = app.ansi_theme.ansi_colors
    colors = [tuple(palette[index]) for index in range(16)]
    background = Color.parse(theme.background or "#000000").rgb
    foreground = Color.parse(theme.foreground or "#ffffff").rgb
    return TerminalTheme(background, foreground, colors[:8], colors[8:])
