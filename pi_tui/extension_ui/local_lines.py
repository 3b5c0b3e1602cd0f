"""``LocalLines``: an extension's component of Pi's shape run in this process, for
``ComponentLinesView``: the same component an extension shows in ``pi serve``'s viewers shows in the
app that runs the extension itself.

A component is an object with ``render(width)`` (the lines at that width) and, when it takes keys,
``handle_input(data)`` (``handleInput`` too): data is the typed character or the key's name
(``"escape"``, ``"up"``), as a ``CustomEditor`` gets it. It is drawn again after each key and when
it calls ``tui.request_render()`` (the app's ``request_render``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from textual.widget import Widget

log = logging.getLogger("pi.extensions")


def is_line_component(value: Any) -> bool:
    """A component of Pi's shape (it renders lines) rather than a Textual widget."""
    return not isinstance(value, Widget) and callable(getattr(value, "render", None))


def takes_keys(component: Any) -> bool:
    return callable(getattr(component, "handle_input", None) or getattr(component, "handleInput", None))


class LocalLines:
    """``ComponentLines`` over a component in this process."""

    def __init__(self, component: Any) -> None:
        self.component = component
        self._listeners: list[Callable[[], None]] = []

    def lines(self, width: int) -> list[str]:
        try:
            lines = self.component.render(width)
        except Exception:  # a broken component must not break the screen
            log.exception("an extension's component failed to render")
            return ["(the component failed to render)"]
        return [part for line in lines or () for part in str(line).split("\n")]

    def show_at(self, width: int) -> None:
        """Nothing to ask: ``lines`` renders at the width drawn."""

    def key(self, data: str) -> None:
        handler = getattr(self.component, "handle_input", None) or getattr(self.component, "handleInput", None)
        if callable(handler):
            try:
                handler(data)
            except Exception:
                log.exception("an extension's component failed to handle a key")
        self.changed()

    def changed(self) -> None:
        """Draw it again (after a key, or ``tui.request_render()``)."""
        for listener in list(self._listeners):
            listener()

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None


def as_widget(value: Any) -> Widget | None:
    """What a factory built, as a widget to mount: a Textual widget as it is, a component of Pi's
    shape in a ``ComponentLinesView``; None for anything else."""
    if isinstance(value, Widget):
        return value
    if not is_line_component(value):
        return None
    from .component_lines_view import ComponentLinesView

    return ComponentLinesView(LocalLines(value), takes_keys=takes_keys(value))
