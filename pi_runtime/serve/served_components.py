"""Extensions' own components in a served session: the component lives in ``pi serve``, where its
extension runs; viewers only show its lines and send it their keys.

A component is Pi's shape: an object with ``render(width)`` (the lines to show at that width, each a
string) and, when it takes keys, ``handle_input(data)`` (``handleInput`` is accepted too). As in
Pi, it is rendered again only when asked: its factory gets a ``tui`` whose ``request_render()``
does that (Pi's ``tui.requestRender()``), a plain ``theme`` (the server has no colours to give)
and, for ``ctx.ui.custom``, ``done(value)``, which resolves the extension's call.

Each viewer says the width it shows the component at (``extension_ui_component`` with ``width``);
the component is rendered at every width asked for and each rendering goes to every viewer as an
``extension_ui_render`` record (``id``, ``width``, ``lines``): a viewer draws the one at its width.
Keys come as ``extension_ui_component`` with ``data`` (the typed character, or the key's name:
``"escape"``, ``"up"``, ``"ctrl+x"``, as an app's ``CustomEditor.handle_input`` gets them); after
each one the component is rendered again. A component that takes no keys is closed by Esc.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("pi.serve")

MAX_WIDTHS = 8
"""Widths a component is kept rendered at (the latest asked for): viewers come and go."""

CLOSING_KEYS = frozenset({"escape", "ctrl+c"})
"""Keys that close a ``ctx.ui.custom`` component that takes no keys of its own."""


class ServedTui:
    """The ``tui`` a component's factory gets in the server: it can ask for a new render."""

    def __init__(self, request: Callable[[], None]) -> None:
        self._request = request

    def request_render(self, force: bool = False) -> None:
        """Render the component again and send its lines to every viewer (soon, once per burst)."""
        self._request()


def key_handler(component: Any) -> Callable[[str], Any] | None:
    """The component's key handler (Python's or Pi's spelling), None when it takes no keys."""
    handler = getattr(component, "handle_input", None) or getattr(component, "handleInput", None)
    return handler if callable(handler) else None


def check_component(component: Any) -> None:
    """Refuse what cannot be served: a component must render lines (a Textual widget cannot cross
    the socket; build the component from ``render(width)`` instead)."""
    textual = any(cls.__module__.split(".")[0] == "textual" for cls in type(component).__mro__)
    if textual or not callable(getattr(component, "render", None)):
        raise TypeError(f"a served session's component needs render(width) -> list of lines "
                        f"(got {type(component).__name__})")


class ServedComponent:
    """One live component and the widths its viewers show it at.

    Args:
        component_id: The id its records carry.
        publish: Sends a record to every viewer of the session.
    """

    def __init__(self, component_id: str, publish: Callable[[dict[str, Any]], None]) -> None:
        self.id = component_id
        self.component: Any = None
        self.widths: list[int] = []
        self._publish = publish
        self._render_soon: asyncio.Handle | None = None
        self.closed = False

    def request_render(self) -> None:
        """Render at every width once the current callback ends (several requests: one render)."""
        if self.closed or self._render_soon is not None or self.component is None:
            return
        self._render_soon = asyncio.get_running_loop().call_soon(self._render_all)

    def _render_all(self) -> None:
        self._render_soon = None
        if self.closed:
            return
        for width in self.widths:
            self._render(width)

    def _render(self, width: int) -> None:
        lines = self._guard(lambda: self.component.render(width))
        if lines is None:
            lines = ["(the component failed to render: see pi serve's log)"]
        # One string per line: a line holding line breaks is cut there (viewers count lines).
        self._publish({"type": "extension_ui_render", "id": self.id, "width": width,
                       "lines": [part for line in lines for part in str(line).split("\n")]})

    def set_width(self, width: int) -> None:
        """A viewer shows the component ``width`` columns wide: send it its lines at that width."""
        if self.closed or self.component is None:
            return
        if width in self.widths:
            self.widths.remove(width)
        self.widths.append(width)
        del self.widths[:-MAX_WIDTHS]
        self._render(width)

    def key(self, data: str) -> bool:
        """A key typed into the component; False when the component takes no keys."""
        handler = key_handler(self.component)
        if self.closed or handler is None:
            return False
        self._guard(lambda: handler(data))
        self.request_render()
        return True

    def close(self) -> None:
        """No more renders; the component's ``dispose()``, if it has one, is called (once)."""
        if self.closed:
            return
        self.closed = True
        if self._render_soon is not None:
            self._render_soon.cancel()
            self._render_soon = None
        dispose = getattr(self.component, "dispose", None)
        if callable(dispose):
            self._guard(dispose)

    @staticmethod
    def _guard(call: Callable[[], Any]) -> Any:
        try:
            return call()
        except Exception:  # an extension's component failing must not stop the session's stream
            log.exception("an extension's component failed")
            return None
