"""Live reload of user theme files: a watchfiles watcher on the theme folders.

Editing ``<agent dir>/themes/<name>.json`` (or ``.pi/themes/`` in the project) while pi runs
re-applies the theme at once, so a theme can be tuned with the app open beside the editor.
The watcher runs in its own daemon thread (watchfiles blocks in Rust) and hands the changed
paths to the app's thread; it polls its stop flag every half second so quitting never waits
on it. Folders that do not exist when pi starts are not watched (``/reload`` picks them up).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

DEBOUNCE_MS = 150
"""Editors save in several steps (truncate, write, rename); one reload covers them all."""


def _is_theme_file(_change: object, path: str) -> bool:
    return path.endswith(".json")


class ThemeWatcher:
    """Calls ``on_change(paths)`` (from the watcher thread) when theme files change."""

    def __init__(self, folders: Iterable[Path], on_change: Callable[[set[Path]], None]) -> None:
        self.folders = [f for f in dict.fromkeys(Path(f) for f in folders) if f.is_dir()]
        self._on_change = on_change
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def active(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> bool:
        """Start watching; False when there is no theme folder to watch."""
        if not self.folders or self._thread is not None:
            return False
        self._thread = threading.Thread(target=self._run, name="pi-theme-watch", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        from watchfiles import watch

        try:
            # Themes are files directly in the folder: no recursion (nor links looping back).
            for changes in watch(*self.folders, watch_filter=_is_theme_file, debounce=DEBOUNCE_MS,
                                 step=30, stop_event=self._stop, rust_timeout=500, recursive=False):
                if self._stop.is_set():
                    return
                self._on_change({Path(path) for _change, path in changes})
        except Exception:  # noqa: BLE001 - a vanished folder or inotify limit: live reload just stops
            return
