"""What pi's stdio transport hands the SDK for each line a server wrote.

The SDK's session only matches *parsed* answers to requests: an answer it cannot parse (a lone
surrogate escape, a 100 MB line, a ``result`` that is not an object) used to reach it as a bare
exception, and the request waited for its timeout. Here such an answer becomes a JSON-RPC error
for the request it answers, so the tool call fails at once saying why; when the line is too
long to tell which request it answers, every request still waiting fails.

A ``tools/list`` answer is checked tool by tool: the SDK validates the page as a whole, so one
definition without a name (or with an ``inputSchema`` that is not an object) failed the whole
connection and every other tool with it. A malformed definition is left out and reported instead.

A flood of notifications (progress, log messages) costs the SDK a task each; beyond a budget
they are dropped here, before it sees them: both kinds only report, and the next one supersedes.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import mcp_types
from mcp.shared.message import SessionMessage

from .lines import MAX_MESSAGE_BYTES, OverlongLine

log = logging.getLogger("pi.mcp")

DROPPABLE = frozenset({"notifications/progress", "notifications/message"})
"""Notifications that only report; beyond the budget they are dropped."""
NOTIFICATION_BURST = 200
"""Droppable notifications let through at once."""
NOTIFICATION_RATE = 100.0
"""Droppable notifications let through per second after the burst."""


def _first_problem(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
        except (IndexError, TypeError, ValueError):
            pass
    return str(exc).split("\n", 1)[0]


class NotificationBudget:
    """How many report-only notifications (progress, log messages) get through: a burst, then a
    steady rate; the rest are dropped before the SDK spends a task on each."""

    def __init__(self) -> None:
        self.dropped = 0
        """Notifications dropped over the budget so far."""
        self._tokens = float(NOTIFICATION_BURST)
        self._refilled = time.monotonic()

    def admits(self, message: Any) -> bool:
        """Whether to hand ``message`` (a parsed JSON-RPC message) on."""
        if not (isinstance(message, mcp_types.JSONRPCNotification) and message.method in DROPPABLE):
            return True
        now = time.monotonic()
        self._tokens = min(float(NOTIFICATION_BURST), self._tokens + (now - self._refilled) * NOTIFICATION_RATE)
        self._refilled = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        self.dropped += 1
        if self.dropped in (1, 1000, 100_000):
            log.debug("MCP server floods notifications: %d dropped so far", self.dropped)
        return False


class MessageReader:
    """Turns a server's lines into SDK messages (see the module docstring); one per transport."""

    def __init__(self, on_skipped_tools: Callable[[list[str]], None] | None = None) -> None:
        self.pending: dict[int | str, str] = {}
        """Methods of the requests sent and not answered yet, by id."""
        self._on_skipped_tools = on_skipped_tools
        self.budget = NotificationBudget()

    def sent(self, message: Any) -> None:
        """Note a message pi sends (requests are waited for)."""
        if isinstance(message, mcp_types.JSONRPCRequest):
            self.pending[message.id] = message.method

    def items(self, line: bytes | OverlongLine) -> list[SessionMessage | Exception]:
        """What to hand the SDK for one line (nothing for a blank line or a dropped notification)."""
        if isinstance(line, OverlongLine):
            megabytes = f"{line.size / 1024 / 1024:.0f} MB"
            reason = (f"the server sent a message of {megabytes}, over pi's limit of "
                      f"{MAX_MESSAGE_BYTES // 1024 // 1024} MB for one MCP message")
            request_id = line.request_id()
            ids = [request_id] if request_id in self.pending else sorted(self.pending, key=str)
            return [self._error(i, reason) for i in ids] or [ValueError(reason)]
        if not line.strip():
            return []
        text = line.decode("utf-8", "replace")
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError as exc:
            request_id = self._answered_id(text)
            if request_id is None:
                return [exc]
            return [self._error(request_id, f"the server's answer is not valid JSON-RPC ({_first_problem(exc)})")]
        if isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError):
            method = self.pending.pop(message.id, None) if message.id is not None else None
            if method == "tools/list" and isinstance(message, mcp_types.JSONRPCResponse):
                message = self._valid_tools(message)
        elif not self.budget.admits(message):
            return []
        return [SessionMessage(message)]

    def _answered_id(self, text: str) -> int | str | None:
        """The id of a pending request this unparseable line answers (read leniently), else None."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply to read
            return None
        request_id = data.get("id") if isinstance(data, dict) and "method" not in data else None
        return request_id if isinstance(request_id, int | str) and request_id in self.pending else None

    def _valid_tools(self, message: Any) -> Any:
        """The listing without its malformed tool definitions (reported to ``on_skipped_tools``)."""
        tools = message.result.get("tools")
        if not isinstance(tools, list):
            return message  # the SDK says what is wrong with the page as a whole
        kept, skipped = [], []
        for position, raw in enumerate(tools):
            try:
                mcp_types.Tool.model_validate(raw, by_name=False)
            except ValueError as exc:
                name = raw.get("name") if isinstance(raw, dict) else None
                label = repr(name)[:80] if isinstance(name, str) and name else f"#{position + 1}"
                skipped.append(f"{label} ({_first_problem(exc)})")
                continue
            kept.append(raw)
        if not skipped:
            return message
        if self._on_skipped_tools is not None:
            self._on_skipped_tools(skipped)
        return message.model_copy(update={"result": {**message.result, "tools": kept}})

    def _error(self, request_id: int | str, reason: str) -> SessionMessage:
        self.pending.pop(request_id, None)
        error = mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=f"pi could not read the answer: {reason}")
        return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

    @property
    def dropped(self) -> int:
        """Notifications dropped over the budget so far."""
        return self.budget.dropped
