"""``ServedComponentView``: an extension's component that runs in ``pi serve``, drawn in an attached
tab from the lines the server renders at this widget's width.

The widget tells the server its width whenever its size changes and, when it takes keys (a
``ctx.ui.custom`` component), sends every key typed into it, Esc included: the component decides
what a key does, as in the app that runs the extension itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widget import Widget

from ..terminal.terminal_input import editor_key


class ServedLines(Protocol):
    """What the widget needs of a served component (``pi_runtime.remote.remote_component``)."""

    def lines(self, width: int) -> list[str]: ...

    def show_at(self, width: int) -> None: ...

    def key(self, data: str) -> None: ...

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]: ...


class ServedComponentView(Widget):
    """Shows a served component (see the module docstring)."""

    DEFAULT_CSS = """
    ServedComponentView { width: 1fr; height: auto; }
    ExtensionScreen.-overlay ServedComponentView { width: 80; }
    """

    def __init__(self, component: ServedLines, *, takes_keys: bool) -> None:
        super().__init__()
        self.component = component
        self.can_focus = takes_keys
        self._unwatch: Callable[[], None] | None = None

    def on_mount(self) -> None:
        self._unwatch = self.component.watch(self._redraw)

    def _redraw(self) -> None:
        self.refresh(layout=True)

    def on_unmount(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    def on_resize(self, event: events.Resize) -> None:
        self.component.show_at(event.size.width)

    def _lines(self, width: int) -> list[str]:
        return self.component.lines(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Text:
        text = Text.from_ansi("\n".join(self._lines(self.size.width)), no_wrap=True)
        text.overflow = "crop"
        return text

    async def _on_key(self, event: events.Key) -> None:
        if not self.can_focus:
            return
        # Every key goes to the component in the server, Esc included (it closes itself).
        event.stop()
        event.prevent_default()
        self.component.key(editor_key(event))
