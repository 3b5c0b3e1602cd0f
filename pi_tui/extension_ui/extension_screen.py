"""``ctx.ui.custom(factory)``: an extension's own Textual widget, shown over the app until it
finishes with a value.

``factory(tui, theme, keybindings, done)`` gets the app, ``ctx.ui.theme``, the live keymap and
``done(value)``; it returns a Textual widget, which is mounted in this screen and focused, or a
component of Pi's shape (``render(width)``), shown in a ``ComponentLinesView``. The
screen is dismissed with the value given to ``done`` (Esc dismisses with None). ``overlay=True``
shows it as a box over the dimmed app; otherwise it takes the space above the footer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget

from ..dialogs.modal import Modal


class ExtensionScreen(Modal[Any]):
    """Hosts one extension widget."""

    DEFAULT_CSS = """
    ExtensionScreen { align: center middle; background: transparent; }
    ExtensionScreen > #extension-host { width: 100%; height: 100%; background: $pi-bg; }
    ExtensionScreen.-overlay > #extension-host {
        width: auto; height: auto; max-width: 90%; max-height: 90%;
        border: round $pi-border-accent; padding: 0 1;
    }
    """
    BINDINGS = [Binding("escape,ctrl+c", "cancel", "Cancel", id="tui.select.cancel")]

    def __init__(self, widget: Widget, *, overlay: bool = False) -> None:
        super().__init__(classes="-overlay" if overlay else "")
        self.widget = widget
        self.finished = False
        self._pending: tuple[Any] | None = None

    def finish(self, value: Any) -> None:
        """End with ``value`` (the extension's ``done``). Textual pops the top screen, so when a
        dialog is up over this one the dismissal waits until this screen is on top again."""
        if self.finished:
            return
        self.finished = True
        if self.is_attached and self.app.screen is self:
            self.dismiss(value)
        else:
            self._pending = (value,)

    def on_screen_resume(self) -> None:
        if self._pending is not None:
            (value,), self._pending = self._pending, None
            self.dismiss(value)

    def action_cancel(self) -> None:
        if not self.finished:
            self.finished = True
            self.dismiss(None)

    def compose(self) -> ComposeResult:
        with Vertical(id="extension-host"):
            yield self.widget

    def on_mount(self) -> None:
        if self.widget.focusable:
            self.widget.focus()
        else:
            self.focus_next()


def build_custom(factory: Callable[..., Any], app: Any, theme: Any, done: Callable[[Any], None]) -> Widget:
    """Call the extension's factory: a Textual widget, or a component of Pi's shape
    (``render(width)``, ``handle_input``: ``local_lines.py``); anything else is an error the caller
    reports."""
    from .local_lines import as_widget

    built = factory(app, theme, getattr(app, "keymap", None), done)
    widget = as_widget(built)
    if widget is None:
        raise TypeError("ctx.ui.custom's factory must return a Textual widget or a component with render(width), "
                        f"not {type(built).__name__}")
    return widget
