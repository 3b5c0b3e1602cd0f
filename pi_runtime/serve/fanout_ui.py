"""Extension UI for a served session: every attached viewer is asked, the first answer wins.

Requests are Pi's ``extension_ui_request`` records, sent into the session's stream (so a viewer
that attaches later finds the open ones in its snapshot, and one that reconnects gets them in its
replay). An ``extension_ui_response`` from any viewer answers a dialog; the others then get
``extension_ui_resolved`` (pi's addition) and close theirs. A dialog with a timeout, and one left
open when the session closes, resolves to its default and is announced the same way. With no
viewer attached a dialog simply waits (a permission question is still there when someone attaches),
until its own timeout.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from ..modes.rpc_ui import RpcExtensionUI

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

    # ------------------------------------------------------------------ what viewers show

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text
        super().set_status(key, text)

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = {"lines": list(lines), "placement": placement}
        super().set_widget(key, lines, placement=placement)

    def set_title(self, title: str) -> None:
        self.title = title
        super().set_title(title)
