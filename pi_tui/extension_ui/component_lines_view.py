"""``ComponentLinesView``: an extension's component of Pi's shape (``render(width)`` → lines,
``handle_input(data)``) on screen: one that runs in ``pi serve`` (drawn in an attached tab from the
lines the server renders at this widget's width) or one in this process (``local_lines.py``).

The widget says its width whenever its size changes and, when it takes keys (a ``ctx.ui.custom``
component), sends every key typed into it, Esc included: the component decides what a key does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widget import Widget

from ..terminal.terminal_input import editor_key


class ComponentLines(Protocol):
    """What the widget needs of a component: a served one (``pi_runtime.remote.remote_component``)
    or one in this process (``local_lines.LocalLines``)."""

    def lines(self, width: int) -> list[str]: ...

    def show_at(self, width: int) -> None: ...

    def key(self, data: str) -> None: ...

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]: ...


class ComponentLinesView(Widget):
    """Shows a component's lines (see the module docstring)."""

    DEFAULT_CSS = """
    ComponentLinesView { width: 1fr; height: auto; }
    ComponentLinesView:focus { background-tint: transparent; }
    ExtensionScreen.-overlay ComponentLinesView { width: 80; }
    """

    def __init__(self, component: ComponentLines, *, takes_keys: bool) -> None:
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
        # Every key goes to the component, Esc included (it closes itself).
        event.stop()
        event.prevent_default()
        self.component.key(editor_key(event))
