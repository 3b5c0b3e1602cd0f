"""The app's themes: Pi theme files registered as Textual themes, switched, and reloaded when
their files change on disk (``theme_watch``).

``ThemeService`` owns everything about themes (what was loaded, what the user chose, the
watcher, the generation counter cached renderings check). The app gives it a narrow port:
registering a theme, reading or setting the current one, re-applying it, and notifications.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .theme import BUILTIN_DIR, PiTheme, default_variables, discover_themes, theme_files
from .theme_watch import ThemeWatcher

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.theme import Theme


class ThemeTarget(Protocol):
    """The app as the theme service sees it (its narrow port)."""

    theme: str
    def register_theme(self, theme: Theme) -> None: ...
    def refresh_theme(self) -> None: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

_DEFAULT_VARIABLES: dict[str, str] | None = None


def theme_variable_defaults() -> dict[str, str]:
    """Every ``pi-*`` variable with a fallback value (computed once per process)."""
    global _DEFAULT_VARIABLES
    if _DEFAULT_VARIABLES is None:
        _DEFAULT_VARIABLES = default_variables()
    return _DEFAULT_VARIABLES


def _stamps(files: list[Path]) -> list[tuple[Path, int]]:
    """Each file with its modification time (0 once it is gone)."""
    stamps = []
    for path in files:
        try:
            stamps.append((path, path.stat().st_mtime_ns))
        except OSError:
            stamps.append((path, 0))
    return stamps


class ThemeService:
    """Loads, switches and live-reloads themes for one app.

    Args:
        target: The app: registers themes, has the current one, notifies.
        folders: User theme folders, later ones winning (the agent dir's, then the project's).
    """

    def __init__(self, target: ThemeTarget, folders: list[Path]) -> None:
        self._target = target
        self.folders = folders
        self.themes: dict[str, PiTheme] = {}
        """Valid themes by name (built-in and user)."""
        self.errors: list[str] = []
        """Why each broken theme file was refused (file, line, reason)."""
        self.wanted = "dark"
        """The theme the user chose; shown again when its file becomes valid after an edit."""
        self.generation = 0
        """Bumped whenever colours are (re)applied, so cached renderings know to redo."""
        self.watcher: ThemeWatcher | None = None
        self.save_choice: Callable[[str], None] | None = None
        """Persists a chosen theme (set once a session provides settings)."""
        self.more_paths: Callable[[], list[Path]] = list
        """Theme files and folders the session knows of: packages', extensions' ``themePaths``
        (set once a session is attached; asked at every load)."""
        self.cli_paths: list[Path] = []
        """``--theme`` files and folders (loaded even with ``--no-themes``, as in Pi)."""
        self.discover = True
        """False with ``--no-themes``: no user, project or package themes, only built-in and ``--theme``."""
        self.keep: Callable[[Path], bool] = lambda _path: True
        """Whether a theme file found loads (the settings' ``themes`` overrides, once a session is attached)."""
        self._loaded: list[tuple[Path, int]] | None = None
        """The files of the last ``load`` and their modification times."""

    def load(self) -> None:
        """Read every theme file again and register the valid ones."""
        files = self._files()
        self.themes, self.errors = discover_themes(*files)
        self._loaded = _stamps(files)
        for theme in self.themes.values():
            self._target.register_theme(theme.to_textual())

    def load_if_changed(self) -> None:
        """``load``, unless the theme files to read are the ones last loaded, unchanged on disk
        (a session attached with no theme of its own: the start-up load stands, and the 4-5 files
        are not parsed and registered again while the first prompt is on its way)."""
        if _stamps(self._files()) != self._loaded:
            self.load()

    def _files(self) -> list[Path]:
        """The theme files to read beyond the built-in ones (which ``discover_themes`` always reads),
        as ``theme_files`` finds them, less those the settings turn off."""
        return [path for path in theme_files(*self._sources()) if path.parent != BUILTIN_DIR and self.keep(path)]

    def _sources(self) -> list[Path]:
        found = [*self.more_paths(), *self.folders] if self.discover else []
        return [*found, *self.cli_paths]

    def apply(self, name: str, *, persist: bool = False, force: bool = False) -> bool:
        """Switch theme; an unknown one falls back to dark with a notification.

        Args:
            name: Theme name.
            persist: Save the choice in the settings.
            force: Apply it again even when it is current (its file was reloaded).

        Returns:
            Whether ``name`` was applied.
        """
        self.wanted = name
        target = self._target
        if not self.knows(name):
            target.notify(f"Theme '{name}' not found or invalid; using dark", severity="warning", timeout=6)
            target.theme = "dark"
            return False
        if force and target.theme == name:
            target.refresh_theme()
        target.theme = name
        if persist and self.save_choice is not None:
            try:
                self.save_choice(name)
            except Exception:  # noqa: BLE001 - persisting is best effort; the theme is applied
                pass
        return True

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a theme, reading the files again first if it is not (yet): an
        extension's ``resources_discover`` may have named more theme paths since the last load."""
        if name not in self.themes:
            self.load()
        return name in self.themes

    def colors_applied(self) -> None:
        """The app pushed new colours to its widgets (cached renderings are stale)."""
        self.generation += 1

    # ------------------------------------------------------------------ live reload

    def set_folders(self, folders: list[Path]) -> None:
        """Read themes from ``folders`` from now on (the watcher follows; call ``load`` after)."""
        if folders == self.folders:
            return
        self.folders = folders
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
            self.start_watching()

    def start_watching(self) -> None:
        target = self._target

        def changed(paths: set[Path]) -> None:  # on the watcher's thread
            target.call_from_thread(self.files_changed, paths)

        watcher = ThemeWatcher(self.folders, changed)
        if watcher.start():
            self.watcher = watcher

    def stop_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    def files_changed(self, paths: set[Path]) -> None:
        """Theme files changed on disk: load them again and re-apply the chosen theme.

        A chosen theme whose file is now invalid (or gone) falls back to dark with the reason;
        once the file is fixed, the next save brings the chosen theme back.
        """
        self.load()
        changed = {str(p) for p in paths}
        for problem in self.errors:
            if any(problem.startswith(path) for path in changed):
                self._target.notify(problem, severity="error", timeout=8)
        wanted = self.wanted
        if wanted in self.themes:
            self.apply(wanted, force=True)
        elif self._target.theme != "dark":
            self._target.notify(f"Theme '{wanted}' is no longer valid; using dark", severity="warning", timeout=6)
            self._target.theme = "dark"
