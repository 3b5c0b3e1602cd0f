"""The app's themes: Pi theme files registered as Textual themes, switched, and reloaded when
their files change on disk (``theme_watch``). A mixin of ``PiApp``, kept apart to keep that
file small; it only touches the app's own state.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App

from .theme import default_variables, discover_themes
from .theme_watch import ThemeWatcher

if TYPE_CHECKING:
    from .app import PiApp

_DEFAULT_VARIABLES: dict[str, str] | None = None


class ThemeHost:
    """Mixin for ``PiApp``: theme loading, switching and live reload."""

    def get_theme_variable_defaults(self: PiApp) -> dict[str, str]:
        global _DEFAULT_VARIABLES
        if _DEFAULT_VARIABLES is None:
            _DEFAULT_VARIABLES = default_variables()
        return _DEFAULT_VARIABLES

    def _theme_folders(self: PiApp) -> list[Path]:
        """User theme folders, later ones winning: the agent dir's, then the project's."""
        return [self.agent_dir / "themes", Path(self.cwd) / ".pi" / "themes"]

    def _load_themes(self: PiApp) -> None:
        self.pi_themes, self.theme_errors = discover_themes(*self._theme_folders())
        for theme in self.pi_themes.values():
            self.register_theme(theme.to_textual())

    def apply_theme(self: PiApp, name: str, *, persist: bool = False, force: bool = False) -> bool:
        """Switch theme; an unknown one falls back to dark with a notification.

        ``force`` applies it again even when it is already current (its file was reloaded).
        """
        self.wanted_theme = name
        if name not in self.pi_themes:
            self.notify(f"Theme '{name}' not found or invalid; using dark", severity="warning", timeout=6)
            self.theme = "dark"
            return False
        if force and self.theme == name:
            self.mutate_reactive(App.theme)  # same name, new colours
        self.theme = name
        if persist and self.session is not None and hasattr(self.session.settings, "set"):
            try:
                self.session.settings.set("theme", name)
            except Exception:  # noqa: BLE001 - persisting is best effort
                pass
        return True

    def _push_colors(self: PiApp) -> None:
        from .markdown_render import markdown_theme, set_code_theme

        self.theme_generation += 1
        v = self.theme_variables
        if getattr(self, "_md_theme_pushed", False):
            self.console.pop_theme()
        self.console.push_theme(markdown_theme(v))
        self._md_theme_pushed = True
        set_code_theme("monokai" if self.current_theme.dark else "friendly")
        colors = {k: v.get(f"pi-{k}", "") for k in ("muted", "dim", "accent", "success", "warning", "error")}
        self.footer_bar.palette = colors
        self.header_bar.palette = colors
        self.footer_bar._render_footer()
        self.header_bar._show()

    def _start_theme_watch(self: PiApp) -> None:
        watcher = ThemeWatcher(self._theme_folders(), lambda paths: self.call_from_thread(self.theme_files_changed, paths))
        if watcher.start():
            self.theme_watcher = watcher

    def theme_files_changed(self: PiApp, paths: set[Path]) -> None:
        """Theme files changed on disk: load them again and re-apply the chosen theme.

        A chosen theme whose file is now invalid (or gone) falls back to dark with the reason;
        once the file is fixed, the next save brings the chosen theme back.
        """
        self._load_themes()
        changed = {str(p) for p in paths}
        for problem in self.theme_errors:
            if any(problem.startswith(path) for path in changed):
                self.notify(problem, severity="error", timeout=8)
        wanted = self.wanted_theme
        if wanted in self.pi_themes:
            self.apply_theme(wanted, force=True)
        elif self.theme != "dark":
            self.notify(f"Theme '{wanted}' is no longer valid; using dark", severity="warning", timeout=6)
            self.theme = "dark"
