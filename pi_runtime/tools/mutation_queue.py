"""One writer per file at a time: edits and writes to the same file run in request order.

Tool calls in one assistant turn run in parallel. Without a queue, two edits of the same
file could both read the old content and the second write would drop the first change.
The queue key is the canonical path (symlink aliases share a queue); a file that does not
exist yet is keyed by its absolute path. Different files never wait for each other.

The key is resolved synchronously before the first ``await`` so callers keep the order
in which they asked (asyncio locks are FIFO).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

T = TypeVar("T")

# key -> [lock, number of holders + waiters]; entries vanish when idle so locks never
# outlive the event loop they were first used on.
_locks: dict[str, list] = {}


def mutation_key(path: str, real_path: Callable[[str], str] = os.path.realpath) -> str:
    """The queue key for ``path``.

    Args:
        path: Absolute path of the file about to be changed.
        real_path: Canonicaliser (the file operations' one for remote backends).

    Returns:
        The canonical path, or the absolute path when it cannot be resolved.
    """
    try:
        return real_path(path)
    except OSError:
        return os.path.abspath(path)


@asynccontextmanager
async def file_mutation_lock(
    path: str, real_path: Callable[[str], str] = os.path.realpath
) -> AsyncIterator[None]:
    """Hold the queue for ``path`` for the whole read-modify-write window.

    Args:
        path: Absolute path of the file.
        real_path: Canonicaliser, see :func:`mutation_key`.
    """
    key = mutation_key(path, real_path)
    entry = _locks.get(key)
    if entry is None:
        entry = _locks[key] = [asyncio.Lock(), 0]
    entry[1] += 1
    try:
        async with entry[0]:
            yield
    finally:
        entry[1] -= 1
        if entry[1] == 0 and _locks.get(key) is entry:
            del _locks[key]


async def with_file_mutation_queue(path: str, fn: Callable[[], Awaitable[T]]) -> T:
    """Run ``fn`` while holding the queue for ``path`` (for extension and custom tools).

    Args:
        path: Absolute path of the file ``fn`` changes.
        fn: The whole read-modify-write, as a coroutine function.

    Returns:
        Whatever ``fn`` returns.
    """
    async with file_mutation_lock(path):
        return await fn()


def active_queue_count() -> int:
    """Number of files with a holder or waiter right now (tests check nothing leaks)."""
    return len(_locks)
