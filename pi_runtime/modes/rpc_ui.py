"""Extension UI over RPC: ``extension_ui_request`` out, ``extension_ui_response`` in.

Dialogs (select, confirm, input, editor) write a request and wait for the response with
the same id; a ``timeout`` is applied on pi's side (the client need not track it) and a
timed-out or cancelled dialog resolves to its default. Answers are taken strictly: a confirm
is yes only for ``"confirmed": true`` (the JSON value), a select only for one of its options. Notifications, statuses and
widgets are fire-and-forget requests.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any


class RpcExtensionUI:
    has_ui = True

    def __init__(self, writer: Any) -> None:
        self._writer = writer
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}

    # ------------------------------------------------------------------ responses from the client

    def resolve(self, record: dict[str, Any]) -> bool:
        """Deliver an ``extension_ui_response``; False when no dialog waits for its id."""
        future = self._pending.pop(str(record.get("id")), None)
        if future is None or future.done():
            return False
        future.set_result(record)
        return True

    def cancel_all(self) -> None:
        """Shutdown: every open dialog resolves to its default."""
        for future in self._pending.values():
            if not future.done():
                future.set_result({"cancelled": True})
        self._pending.clear()

    # ------------------------------------------------------------------ requests to the client

    def _send(self, method: str, fields: dict[str, Any]) -> str:
        request_id = str(uuid.uuid4())
        record = {"type": "extension_ui_request", "id": request_id, "method": method}
        record.update({k: v for k, v in fields.items() if v is not None})
        self._writer.write_nowait(record)  # in order, at once: a dialog request is small
        return request_id

    async def _dialog(self, method: str, fields: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        if timeout is not None:
            fields = {**fields, "timeout": int(timeout * 1000)}
        request_id = self._send(method, fields)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            return await asyncio.wait_for(future, timeout) if timeout is not None else await future
        except TimeoutError:
            return {"cancelled": True}
        finally:
            self._pending.pop(request_id, None)

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        reply = await self._dialog("select", {"title": title, "options": list(options)}, timeout)
        value = reply.get("value")
        return value if not reply.get("cancelled") and value in options else None

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        reply = await self._dialog("confirm", {"title": title, "message": message}, timeout)
        # Only a JSON true confirms: "false", 1 or "yes" from a sloppy client must not approve.
        return reply.get("confirmed") is True and reply.get("cancelled") is not True

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None) -> str | None:
        reply = await self._dialog("input", {"title": title, "placeholder": placeholder}, timeout)
        value = reply.get("value")
        return value if isinstance(value, str) and not reply.get("cancelled") else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        reply = await self._dialog("editor", {"title": title, "prefill": prefill}, None)
        value = reply.get("value")
        return value if isinstance(value, str) and not reply.get("cancelled") else None

    def notify(self, message: str, level: str = "info") -> None:
        self._send("notify", {"message": message, "notifyType": level})

    def set_status(self, key: str, text: str | None) -> None:
        self._send("setStatus", {"statusKey": key, "statusText": text})

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        self._send("setWidget", {"widgetKey": key, "widgetLines": lines, "widgetPlacement": placement})

    def set_title(self, title: str) -> None:
        self._send("setTitle", {"title": title})

    def set_editor_text(self, text: str) -> None:
        self._send("set_editor_text", {"text": text})
