"""The widgets one session's extensions put on the app's screen, kept while its tab is hidden.

``ctx.ui.set_widget_component`` (a widget above or below the editor), ``set_header`` and
``set_footer`` (a replacement for pi's header or footer line) and ``set_editor_component`` (an
editor in place of pi's) each mount a widget of the extension's own. With several sessions open
these belong to one session: while its tab is in the background they stay mounted but hidden,
keeping their state, and pi's own header, footer and editor are on screen unless the shown
session's extensions replaced them. A widget made while the tab is hidden is mounted hidden.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ORIGINALS = ("#header", "#footer")
"""Component keys of replacements for pi's own lines."""


class ScreenParts:
    """One session's extension widgets, and whether they are on screen."""

    def __init__(self, app: Any, areas: Any) -> None:
        self._app = app
        self._areas = areas
        self.components: dict[str, Any] = {}
        """By widget key; ``#header``/``#footer`` for replacements of pi's lines."""
        self.editor: Any = None
        """The extension's editor (a ``CustomEditor``), None while pi's is the session's."""
        self.shown = False

    def _original(self, key: str) -> Any:
        return self._app.header_bar if key == "#header" else self._app.footer_bar

    def put(self, key: str, widget: Any, placement: str = "aboveEditor") -> None:
        """Mount ``widget`` as component ``key`` (an older one under that key goes)."""
        self.drop(key)
        if widget is None:
            return
        self.components[key] = widget
        if not self.shown:
            widget.display = False
        if key in ORIGINALS:
            original = self._original(key)
            if self.shown:
                original.display = False
            self._app.mount(widget, after=original)
        elif placement == "belowEditor":
            self._app.mount(widget, after=self._areas.below)
        else:
            self._app.mount(widget, before=self._areas.above)

    def drop(self, key: str) -> None:
        """Remove component ``key``; pi's header or footer comes back for a replacement."""
        widget = self.components.pop(key, None)
        if widget is not None and widget.is_attached:
            widget.remove()
        if key in ORIGINALS and self.shown:
            self._original(key).display = True

    def set_editor(self, factory: Callable[..., Any] | None, theme: Any) -> None:
        """The session's editor: ``factory``'s (see ``editor_swap.py``), or pi's for None."""
        from .editor_swap import build_hidden_editor, swap_editor

        if self.shown:
            new = swap_editor(self._app, factory, theme)  # removes the extension editor it replaces
            self.editor = None if factory is None else new
            return
        old = self.editor
        self.editor = None if factory is None else build_hidden_editor(self._app, factory, theme)
        if old is not None and old.is_attached:
            old.remove()

    def hide(self) -> None:
        """Off the screen (the tab goes to the background): pi's own lines and editor come back."""
        from .editor_swap import change_editor

        self.shown = False
        for widget in self.components.values():
            widget.display = False
        for key in ORIGINALS:
            self._original(key).display = True
        if self.editor is not None:
            change_editor(self._app, self._app.default_editor)

    def show(self) -> None:
        """Back on the screen as they were left."""
        from .editor_swap import change_editor

        self.shown = True
        for key, widget in self.components.items():
            widget.display = True
            if key in ORIGINALS:
                self._original(key).display = False
        if self.editor is not None and self.editor.is_attached:
            change_editor(self._app, self.editor)

    def refresh(self) -> None:
        """Redraw the widgets on screen (they read the session as it is now)."""
        if self.shown:
            for widget in self.components.values():
                if widget.is_attached:
                    widget.refresh()

    def discard(self) -> None:
        """Remove every widget (the session closed)."""
        if self.shown:
            self.hide()
        for key in list(self.components):
            self.drop(key)
        if self.editor is not None and self.editor.is_attached:
            self.editor.remove()
        self.editor = None
