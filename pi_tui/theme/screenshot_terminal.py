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


def export_svg(app: Any, title: str, simplify: bool) -> str:
    """The whole screen of ``app`` as SVG, drawn in ``screenshot_terminal``'s colours."""
    import io

    from rich.console import Console

    from ..terminal.textual_internals import whole_screen_render

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(whole_screen_render(app, simplify))
    return console.export_svg(title=title, theme=screenshot_terminal(app))
