"""Showing a served session's extension UI in a front end's own ``ExtensionUI``.

``pi serve`` asks every viewer; this binding puts each dialog to the front end's UI and sends the
answer back. When another viewer answered first (``extension_ui_resolved``), the local dialog is
cancelled. Notifications, statuses, widgets, the title and the editor text are passed on as they
come. Dialogs open when the UI is bound (a permission question asked before attaching) are put
at once.

An extension's own component (``ctx.ui.custom``, a widget component) runs in the server; the front
end shows it through ``ui.served_component(component, takes_keys=...)`` (a widget drawing a
``RemoteComponent``'s lines), in its ``custom`` screen or as a widget. A front end without that
method (the phone layout) leaves it to the other viewers.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import TYPE_CHECKING, Any

from .remote_component import RemoteComponent

if TYPE_CHECKING:
    from .session import RemoteSession

log = logging.getLogger("pi.remote")


class RemoteUIBinding:
    """The front end's UI for one served session (``session.ui.bind(ui)``)."""

    def __init__(self, session: RemoteSession) -> None:
        self._session = session
        self._ui: Any = None
        self._context = contextvars.copy_context()
        self._asking: dict[str, asyncio.Task[None]] = {}
        self._components: dict[str, RemoteComponent] = {}
        """The served components shown here, by id."""
        self._widget_keys: dict[str, str] = {}
        """Widget key → the id of the served component shown under it."""

    def bind(self, ui: Any) -> None:
        """Show this session's extension UI in ``ui`` (an ``ExtensionUI``); None stops.

        The UI is called in the context ``bind`` was called from, whatever task a record arrives
        in: a front end's UI may need its own context (Textual's widgets find their app there),
        and the connection's reader task was started before the front end existed.
        """
        self._ui = ui
        self._context = contextvars.copy_context()
        if ui is None:
            for task in self._asking.values():
                task.cancel()
            return
        view = self._session.view
        for key, text in view.statuses.items():
            self._call("set_status", key, text)
        for key, widget in view.widgets.items():
            placement = widget.get("placement") or "aboveEditor"
            if "component" in widget:
                self._widget_component(key, widget["component"], placement)
            else:
                self._call("set_widget", key, widget["lines"], placement=placement)
        for record in list(view.dialogs.values()):
            self._ask(record)

    def on_record(self, record: dict[str, Any]) -> None:
        """Called for every record of the session, after the view applied it."""
        kind = record.get("type")
        if kind == "extension_ui_render":
            component = self._components.get(str(record.get("id")))
            width, lines = record.get("width"), record.get("lines")
            if component is not None and isinstance(width, int) and isinstance(lines, list):
                self._context.copy().run(component.rendered, width, [str(line) for line in lines])
            return
        if kind == "extension_ui_resolved":
            self._components.pop(str(record.get("id")), None)
            task = self._asking.pop(str(record.get("id")), None)
            if task is not None:
                task.cancel()
            return
        if kind != "extension_ui_request" or self._ui is None:
            return
        method = record.get("method")
        if method in ("select", "confirm", "input", "editor", "custom"):
            self._ask(record)
        elif method == "setWidget" and record.get("widgetComponent") is not None:
            self._widget_component(str(record.get("widgetKey")), str(record["widgetComponent"]),
                                   str(record.get("widgetPlacement") or "aboveEditor"))
        elif method == "notify":
            self._call("notify", str(record.get("message", "")), str(record.get("notifyType") or "info"))
        elif method == "setStatus":
            self._call("set_status", str(record.get("statusKey")), record.get("statusText"))
        elif method == "setWidget":
            key, placement = str(record.get("widgetKey")), str(record.get("widgetPlacement") or "aboveEditor")
            if self._drop_widget_component(key):
                self._call("set_widget_component", key, None, placement=placement)
            self._call("set_widget", key, record.get("widgetLines"), placement=placement)
        elif method == "setTitle":
            self._call("set_title", str(record.get("title", "")))
        elif method == "set_editor_text":
            self._call("set_editor_text", str(record.get("text", "")))

    def _component(self, component_id: str) -> RemoteComponent:
        def send(fields: dict[str, Any]) -> None:
            self._session.send_ui_response({"type": "extension_ui_component", "id": component_id, **fields})

        component = self._components.get(component_id)
        if component is None:
            component = self._components[component_id] = RemoteComponent(component_id, send)
        return component

    def _widget_component(self, key: str, component_id: str, placement: str) -> None:
        """Show the server's widget component under ``key``."""
        self._drop_widget_component(key)
        make = getattr(self._ui, "served_component", None)
        if make is None:
            return
        component = self._component(component_id)
        self._widget_keys[key] = component_id
        self._call("set_widget_component", key, lambda tui, theme: make(component, takes_keys=False),
                   placement=placement)

    def _drop_widget_component(self, key: str) -> bool:
        """Forget the served component under ``key``; True if there was one."""
        component_id = self._widget_keys.pop(key, None)
        if component_id is not None:
            self._components.pop(component_id, None)
        return component_id is not None

    def _call(self, name: str, *args: Any, **kwargs: Any) -> None:
        method = getattr(self._ui, name, None)
        if method is None:
            return
        try:
            self._context.copy().run(lambda: method(*args, **kwargs))
        except Exception:  # a front end failing to show something must not stop the stream
            log.exception("the front end failed to show %s", name)

    def _ask(self, record: dict[str, Any]) -> None:
        request_id = str(record.get("id"))
        if request_id in self._asking:
            return
        task = asyncio.get_running_loop().create_task(self._dialog(request_id, record), context=self._context.copy())
        self._asking[request_id] = task
        task.add_done_callback(lambda _: self._asking.pop(request_id, None))

    async def _dialog(self, request_id: str, record: dict[str, Any]) -> None:
        ui, method = self._ui, record.get("method")
        answer: dict[str, Any]
        try:
            if method == "select":
                value = await ui.select(str(record.get("title", "")), list(record.get("options") or []))
                answer = {"cancelled": True} if value is None else {"value": value}
            elif method == "confirm":
                answer = {"confirmed": bool(await ui.confirm(str(record.get("title", "")),
                                                             str(record.get("message", ""))))}
            elif method == "input":
                value = await ui.input(str(record.get("title", "")), record.get("placeholder"))
                answer = {"cancelled": True} if value is None else {"value": value}
            elif method == "custom":
                if not await self._custom(request_id, record):
                    return  # this front end cannot show it: the other viewers can
                answer = {"cancelled": True}  # closed here (the server's component finishes otherwise)
            else:
                value = await ui.editor(str(record.get("title", "")), record.get("prefill"))
                answer = {"cancelled": True} if value is None else {"value": value}
        except asyncio.CancelledError:
            return  # another viewer answered, or the UI was unbound
        except Exception:  # a failing dialog answers as cancelled
            log.exception("the front end's %s dialog failed", method)
            answer = {"cancelled": True}
        self._session.send_ui_response({"type": "extension_ui_response", "id": request_id, **answer})

    async def _custom(self, request_id: str, record: dict[str, Any]) -> bool:
        """Show the server's ``ctx.ui.custom`` component until it is done there (this task is
        then cancelled) or the front end closes it (True); False when it cannot show one."""
        make = getattr(self._ui, "served_component", None)
        if make is None:
            return False
        component = self._component(request_id)
        try:
            await self._ui.custom(lambda tui, theme, keybindings, done: make(component, takes_keys=True),
                                  overlay=bool(record.get("overlay")))
        finally:
            self._components.pop(request_id, None)
        return True
