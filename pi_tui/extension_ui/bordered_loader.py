"""``BorderedLoader``: a spinner and a message in a bordered box, for an extension's slow work
(Pi's ``BorderedLoader``, which its handoff and qna examples show while a model answers).

Use it from ``ctx.ui.custom``: return it from the factory, start the work, pass ``loader.signal``
to the model call and call ``done(value)`` when it is finished. Esc (or the screen closing for any
reason) aborts the signal and runs ``on_abort``, so an abandoned request stops too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widget import Widget

from pi_runtime.frontend import AbortController

from ..footer.footer_bar import SPINNER


class BorderedLoader(Widget, can_focus=True):
    """``BorderedLoader(tui, theme, message, cancellable=True)``; ``signal`` aborts on Esc."""

    DEFAULT_CSS = """
    BorderedLoader { height: auto; border: round $pi-border-accent; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, tui: Any, theme: Any, message: str, *, cancellable: bool = True) -> None:
        super().__init__()
        self._theme = theme
        self.message = message
        self.cancellable = cancellable
        self.on_abort: Callable[[], Any] | None = None
        """Called once when the loader is cancelled (Esc) or goes away before the work is done."""
        self._controller = AbortController()
        self._frame = 0
        self._static = bool(getattr(tui, "static", False))

    @property
    def signal(self) -> Any:
        return self._controller.signal

    def on_mount(self) -> None:
        if not self._static:
            self.set_interval(0.08, self._tick)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self.refresh()

    def render(self) -> Text:
        text = Text()
        text.append(SPINNER[self._frame] + " ", style="bold")
        text.append(self.message)
        if self.cancellable:
            text.append("  (esc to cancel)", style="dim")
        return text

    def action_cancel(self) -> None:
        if not self.cancellable:
            return
        self._abort()
        finish = getattr(self.screen, "finish", None)  # ctx.ui.custom's screen; once only, so
        if finish is not None:  # closing it here is harmless when on_abort already did
            finish(None)

    def on_unmount(self) -> None:
        self._abort()  # closed before the work was done: stop it

    def _abort(self) -> None:
        if self.signal.aborted:
            return
        self._controller.abort("cancelled")
        if self.on_abort is not None:
            self.on_abort()
