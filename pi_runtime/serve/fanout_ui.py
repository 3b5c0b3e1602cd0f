"""Extension UI for a served session: every attached viewer is asked, the first answer wins.

Requests are Pi's ``extension_ui_request`` records, sent into the session's stream (so a viewer
that attaches later finds the open ones in its snapshot, and one that reconnects gets them in its
replay). An ``extension_ui_response`` from any viewer answers a dialog; the others then get
``extension_ui_resolved`` (pi's addition) and close theirs. A dialog with a timeout, and one left
open when the session closes, resolves to its default and is announced the same way. With no
viewer attached a dialog simply waits (a permission question is still there when someone attaches),
until its own timeout.

Extensions' own components (``ctx.ui.custom``, a widget component) live here and cross as lines:
``served_components.py``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from ..modes.rpc_ui import RpcExtensionUI
from .served_components import CLOSING_KEYS, ServedComponent, ServedTui, check_component, key_handler

ANSWER_FIELDS = ("value", "confirmed", "cancelled")
"""The fields of an answer that ``extension_ui_resolved`` repeats for the other viewers."""


class _Publisher:
    """What ``RpcExtensionUI`` writes to: here, the session's stream."""

    def __init__(self, publish: Callable[[dict[str, Any]], None]) -> None:
        self.publish = publish

    def write_nowait(self, record: dict[str, Any]) -> None:
        self.publish(record)


class FanoutUI(RpcExtensionUI):
    """The ``ExtensionUI`` of a served session (see the module docstring).

    Args:
        publish: Sends a record to every viewer of the session (and keeps it for replays).
    """

    def __init__(self, publish: Callable[[dict[str, Any]], None]) -> None:
        super().__init__(_Publisher(publish))
        self._publish = publish
        self.open: dict[str, dict[str, Any]] = {}
        """Dialogs waiting for an answer: id → the request record (a snapshot's ``pending``)."""
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, dict[str, Any]] = {}
        self.title: str | None = None
        self.components: dict[str, ServedComponent] = {}
        """Live components by id: ``ctx.ui.custom``'s (id of its request) and widgets'."""
        self._widget_components: dict[str, str] = {}
        """Widget key → the id of the component shown under it."""

    def snapshot(self) -> dict[str, Any]:
        """What a viewer attaching now needs: open dialogs, statuses, widgets and the title."""
        return {"pending": list(self.open.values()), "statuses": dict(self.statuses),
                "widgets": dict(self.widgets), "title": self.title}

    # ------------------------------------------------------------------ dialogs

    async def _dialog(self, method: str, fields: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        if timeout is not None:
            fields = {**fields, "timeout": int(timeout * 1000)}
        request_id = str(uuid.uuid4())
        record = {"type": "extension_ui_request", "id": request_id, "method": method}
        record.update({k: v for k, v in fields.items() if v is not None})
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.open[request_id] = record
        self._publish(dict(record))
        reply: dict[str, Any] = {"cancelled": True}
        try:
            reply = await asyncio.wait_for(future, timeout) if timeout is not None else await future
        except TimeoutError:
            pass
        finally:
            self._pending.pop(request_id, None)
            if self.open.pop(request_id, None) is not None:
                # Not answered by a viewer: timed out, cancelled, or the session is closing.
                self._publish({"type": "extension_ui_resolved", "id": request_id, "cancelled": True})
        return reply

    def resolve(self, record: dict[str, Any]) -> bool:
        """Deliver an ``extension_ui_response``: True for the first answer to an open dialog."""
        request_id = str(record.get("id"))
        if not super().resolve(record):
            return False
        self.open.pop(request_id, None)
        answer = {k: record[k] for k in ANSWER_FIELDS if k in record}
        self._publish({"type": "extension_ui_resolved", "id": request_id, **answer})
        return True

    def cancel_all(self) -> None:
        """The session is closing: open dialogs resolve to their defaults, components are closed."""
        super().cancel_all()
        for served in list(self.components.values()):
            served.close()

    # ------------------------------------------------------------------ components

    async def custom(self, factory: Callable[..., Any], *, overlay: bool = False, overlay_options: Any = None) -> Any:
        """Show the extension's component in every viewer until it calls ``done(value)`` (returns
        ``value``), a viewer closes it (None) or the call is cancelled."""
        from ..extensions.ui import PlainTheme

        request_id = str(uuid.uuid4())
        served = ServedComponent(request_id, self._publish)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

        def done(value: Any = None) -> None:
            if not future.done():
                future.set_result({"done": True, "value": value})

        served.component = factory(ServedTui(served.request_render), PlainTheme(), None, done)
        if future.done():  # finished inside the factory: nothing to show
            return future.result()["value"]
        check_component(served.component)
        record = {"type": "extension_ui_request", "id": request_id, "method": "custom", "overlay": bool(overlay)}
        self._pending[request_id] = future
        self.components[request_id] = served
        self.open[request_id] = record
        self._publish(dict(record))
        reply: dict[str, Any] = {"cancelled": True}
        try:
            reply = await future
        finally:
            self._pending.pop(request_id, None)
            self.components.pop(request_id, None)
            served.close()
            if self.open.pop(request_id, None) is not None:  # not closed by a viewer: done, or cancelled
                self._publish({"type": "extension_ui_resolved", "id": request_id,
                               **({} if reply.get("done") else {"cancelled": True})})
        return reply.get("value") if reply.get("done") else None

    def set_widget_component(self, key: str, factory: Callable[..., Any] | None, *,
                             placement: str = "aboveEditor") -> None:
        """A widget of the extension's own (``factory(tui, theme)``) above or below every viewer's editor."""
        from ..extensions.ui import PlainTheme

        if factory is None:
            self.set_widget(key, None, placement=placement)
            return
        served = ServedComponent(str(uuid.uuid4()), self._publish)
        served.component = factory(ServedTui(served.request_render), PlainTheme())
        check_component(served.component)  # a refused one leaves the widget shown under the key as it was
        self._drop_widget_component(key)
        self.components[served.id] = served
        self._widget_components[key] = served.id
        self.widgets[key] = {"component": served.id, "placement": placement}
        self._publish({"type": "extension_ui_request", "id": str(uuid.uuid4()), "method": "setWidget",
                       "widgetKey": key, "widgetComponent": served.id, "widgetPlacement": placement})

    def _drop_widget_component(self, key: str) -> None:
        component_id = self._widget_components.pop(key, None)
        served = self.components.pop(component_id, None) if component_id is not None else None
        if served is not None:
            served.close()

    def component_input(self, record: dict[str, Any]) -> None:
        """An ``extension_ui_component`` from a viewer: the width it shows a component at, or a key
        typed into it. A ``ctx.ui.custom`` component that takes no keys is closed by Esc."""
        served = self.components.get(str(record.get("id")))
        if served is None:
            return
        width = record.get("width")
        if isinstance(width, int) and not isinstance(width, bool) and 0 < width <= 10_000:
            served.set_width(width)
        data = record.get("data")
        if not isinstance(data, str) or not data or served.key(data):
            return
        if data in CLOSING_KEYS and key_handler(served.component) is None and served.id in self.open:
            self.resolve({"type": "extension_ui_response", "id": served.id, "cancelled": True})

    # ------------------------------------------------------------------ what viewers show

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text
        super().set_status(key, text)

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        self._drop_widget_component(key)
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = {"lines": list(lines), "placement": placement}
        super().set_widget(key, lines, placement=placement)

    def set_title(self, title: str) -> None:
        self.title = title
        super().set_title(title)
