"""The theme's colours where Textual's CSS does not reach: Rich's markdown and code themes (the
transcript renders markdown through the app's console) and the header's and footer's palettes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from textual.theme import Theme

    from ..footer.footer_bar import FooterBar
    from ..footer.header_bar import HeaderBar
    from ..theme.theme_service import ThemeService


class ColorsHost(Protocol):
    """The app as the colours need it."""

    @property
    def console(self) -> Console: ...
    @property
    def theme_variables(self) -> dict[str, str]: ...
    @property
    def current_theme(self) -> Theme: ...
    themes: ThemeService
    footer_bar: FooterBar
    header_bar: HeaderBar


class ThemeColors:
    """Pushes the theme's colours on each theme change; owns the markdown theme it pushed."""

    def __init__(self, app: ColorsHost) -> None:
        self._app = app
        self._markdown_pushed = False
        """A markdown theme of ours is on the console's stack (popped before the next one)."""

    def push(self) -> None:
        """The current theme's colours to the console and the bars (cached renderings go stale)."""
        from ..transcript.markdown_render import markdown_theme, set_code_theme

        app = self._app
        app.themes.colors_applied()
        variables = app.theme_variables
        if self._markdown_pushed:
            app.console.pop_theme()
        app.console.push_theme(markdown_theme(variables))
        self._markdown_pushed = True
        set_code_theme("monokai" if app.current_theme.dark else "friendly")
        colors = {k: variables.get(f"pi-{k}", "") for k in ("muted", "dim", "accent", "success", "warning", "error")}
        app.footer_bar.set_palette(colors)
        app.header_bar.set_palette(colors)
