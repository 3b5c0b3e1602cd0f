"""Showing a served session's extension UI in a front end's own ``ExtensionUI``.

``pi serve`` asks every viewer; this binding puts each dialog to the front end's UI and sends the
answer back. When another viewer answered first (``extension_ui_resolved``), the local dialog is
cancelled. Notifications, statuses, widgets, the title and the editor text are passed on as they
come. Dialogs open when the UI is bound (a permission question asked before attaching) are put
at once.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import TYPE_CHECKING, Any

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
            self._call("set_widget", key, widget["lines"], placement=widget.get("placement") or "aboveEditor")
        for record in list(view.dialogs.values()):
            self._ask(record)

    def on_record(self, record: dict[str, Any]) -> None:
        """Called for every record of the session, after the view applied it."""
        kind = record.get("type")
        if kind == "extension_ui_resolved":
            task = self._asking.pop(str(record.get("id")), None)
            if task is not None:
                task.cancel()
            return
        if kind != "extension_ui_request" or self._ui is None:
            return
        method = record.get("method")
        if method in ("select", "confirm", "input", "editor"):
            self._ask(record)
        elif method == "notify":
            self._call("notify", str(record.get("message", "")), str(record.get("notifyType") or "info"))
        elif method == "setStatus":
            self._call("set_status", str(record.get("statusKey")), record.get("statusText"))
        elif method == "setWidget":
            self._call("set_widget", str(record.get("widgetKey")), record.get("widgetLines"),
                       placement=str(record.get("widgetPlacement") or "aboveEditor"))
        elif method == "setTitle":
            self._call("set_title", str(record.get("title", "")))
        elif method == "set_editor_text":
            self._call("set_editor_text", str(record.get("text", "")))

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
            else:
                value = await ui.editor(str(record.get("title", "")), record.get("prefill"))
                answer = {"cancelled": True} if value is None else {"value": value}
        except asyncio.CancelledError:
            return  # another viewer answered, or the UI was unbound
        except Exception:  # a failing dialog answers as cancelled
            log.exception("the front end's %s dialog failed", method)
            answer = {"cancelled": True}
        self._session.send_ui_response({"type": "extension_ui_response", "id": request_id, **answer})
