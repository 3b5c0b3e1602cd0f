"""A served extension's component as a viewer holds it: the lines ``pi serve`` rendered for it, by
width, and the way back for the width it is shown at and the keys typed into it.

The component itself runs in the server (``pi_runtime/serve/served_components.py``); a front end
draws ``lines(width)`` and calls ``show_at(width)`` when its size changes and ``key(data)`` for each
key (the typed character, or the key's name: ``"escape"``, ``"up"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class RemoteComponent:
    """Args:
    component_id: The component's id in the server's records.
    send: Sends an ``extension_ui_component`` record (fields besides ``type`` and ``id``).
    """

    def __init__(self, component_id: str, send: Callable[[dict[str, Any]], None]) -> None:
        self.id = component_id
        self._send = send
        self._lines: dict[int, list[str]] = {}
        self._width: int | None = None
        self._listeners: list[Callable[[], None]] = []

    def lines(self, width: int) -> list[str]:
        """The lines rendered at ``width`` (or at the closest width rendered so far, while the
        server renders this one)."""
        if width in self._lines:
            return self._lines[width]
        if not self._lines:
            return []
        return self._lines[min(self._lines, key=lambda rendered: abs(rendered - width))]

    def show_at(self, width: int) -> None:
        """The front end shows the component ``width`` columns wide: ask the server for that."""
        if width > 0 and width != self._width:
            self._width = width
            self._send({"width": width})

    def key(self, data: str) -> None:
        """A key typed into the component, for the server's component to handle."""
        self._send({"data": data})

    def rendered(self, width: int, lines: list[str]) -> None:
        """The server's ``extension_ui_render`` for this component."""
        self._lines[width] = lines
        for listener in list(self._listeners):
            listener()

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` at each new rendering; returns the unsubscriber."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None
