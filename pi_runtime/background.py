"""Tasks started from synchronous code that nobody awaits, kept alive until they finish.

asyncio holds only a weak reference to a task, so an unreferenced ``ensure_future`` can be
collected mid-flight and its exception is never seen. ``spawn`` keeps each task in a set until
it is done and logs what it raised. Tasks spawned one after another start in that order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger("pi.background")

_running: set[asyncio.Task[Any]] = set()


def spawn(work: Coroutine[Any, Any, Any], *, name: str | None = None) -> asyncio.Task[Any]:
    """Run ``work`` on the running loop without awaiting it; failures are logged, never lost."""
    task = asyncio.get_running_loop().create_task(work, name=name)
    _running.add(task)
    task.add_done_callback(_finished)
    return task


def _finished(task: asyncio.Task[Any]) -> None:
    _running.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("background task %s failed", task.get_name(), exc_info=task.exception())
