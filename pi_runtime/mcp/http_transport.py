"""The SDK's streamable-HTTP transport, with pi's limits in front of the SDK's session.

Over stdio pi reads the server's lines itself (``reader``); over HTTP the SDK does, and hands
every message straight to its session, which spawns two tasks for each notification. A server
that streams 100,000 progress notifications kept pi busy for 40 s where Pi took 5. Here the
SDK's read stream passes through :class:`reader.NotificationBudget` first: report-only
notifications beyond the budget are dropped before the session sees them, as over stdio.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio

from .reader import NotificationBudget


@contextlib.asynccontextmanager
async def budgeted(transport: Any) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` (an SDK transport: an async context manager of ``(read, write)`` streams)
    with its read stream filtered by a notification budget."""
    from mcp.shared.message import SessionMessage

    budget = NotificationBudget()
    async with transport as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def pump() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, SessionMessage) and not budget.admits(item.message):
                        continue
                    await send.send(item)

        async with anyio.create_task_group() as tasks, receive:
            tasks.start_soon(pump)
            try:
                yield receive, write_stream
            finally:
                tasks.cancel_scope.cancel()
