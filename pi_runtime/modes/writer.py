"""A JSONL writer for stdout that blocks rather than drops when the reader is slow.

A thread does the blocking ``os.write`` calls, so the event loop keeps running (an RPC
``abort`` is still read and handled while stdout is full); ``send`` applies backpressure
to its caller once too many bytes are waiting, so memory stays bounded and nothing is lost.
Works for pipes, files and terminals alike and never changes the descriptor's blocking mode.

When the reader goes away (``pi --mode json | head -1``), the writer says so once through
``on_broken``; :func:`watch_reader` notices it even while nothing is being written, so a
mode can stop its run instead of paying for model and tool calls nobody will see.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import stat
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from .. import deep_json

HIGH_WATER = 1 << 20
"""Bytes queued before ``send`` waits for the reader."""

READER_GONE_EXIT = 128 + signal.SIGPIPE
"""Exit status after the output's reader went away: what a shell shows for a tool killed by SIGPIPE."""


def watch_reader(fd: int, on_gone: Callable[[], None]) -> bool:
    """Call ``on_gone`` (from a thread) once the reading end of pipe ``fd`` is closed.

    Only pipes can be watched (a file or terminal has no reader to lose).

    Returns:
        Whether ``fd`` is a pipe and is now watched.
    """
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
    except OSError:
        return False

    def run() -> None:
        poller = select.poll()
        # No events asked for: poll still reports POLLERR, which a pipe's write end gets
        # when its last reader closes (and never the always-ready POLLOUT, so no spinning).
        poller.register(fd, 0)
        while True:
            try:
                ready = poller.poll()
            except OSError:
                return
            if any(events & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, events in ready):
                on_gone()
                return

    threading.Thread(target=run, name="pi-stdout-watch", daemon=True).start()
    return True


def encode(record: Any) -> bytes:
    # ensure_ascii=False keeps U+2028/U+2029 raw: clients must split on LF only (as Pi says).
    # A lone surrogate (only possible inside a string) is written as its JSON escape.
    text = deep_json.dumps(record, ensure_ascii=False, separators=(",", ":"))  # tool arguments may nest thousands deep
    return text.encode("utf-8", "backslashreplace") + b"\n"


class JsonlWriter:
    def __init__(self, fd: int = 1, high_water: int = HIGH_WATER, on_broken: Callable[[], None] | None = None) -> None:
        """Args:
        fd: Where the lines go.
        high_water: Bytes queued before ``send`` waits.
        on_broken: Called once, from the writer's thread, when a write finds the reader gone.
        """
        self.fd = fd
        self.high_water = high_water
        self._on_broken = on_broken
        self._queue: deque[bytes] = deque()
        self._pending = 0
        self._cond = threading.Condition()
        self._closed = False
        self.broken = False
        """The reader went away (EPIPE); later records are discarded."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._space: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="pi-stdout", daemon=True)
        self._thread.start()

    def _bind(self) -> asyncio.Event:
        if self._space is None:
            self._loop = asyncio.get_running_loop()
            self._space = asyncio.Event()
            self._space.set()
        return self._space

    def write_nowait(self, record: Any) -> None:
        """Queue a record without waiting (small records from sync code)."""
        data = encode(record)
        with self._cond:
            if self.broken:
                return
            self._queue.append(data)
            self._pending += len(data)
            if self._space is not None and self._pending >= self.high_water:
                self._space.clear()
            self._cond.notify()

    async def send(self, record: Any) -> None:
        """Queue a record; wait while the reader is more than ``high_water`` bytes behind."""
        space = self._bind()
        self.write_nowait(record)
        while not space.is_set() and not self.broken:
            await space.wait()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                batch = b"".join(self._queue)
                self._queue.clear()
            view = memoryview(batch)
            try:
                while view:
                    written = os.write(self.fd, view)
                    view = view[written:]
            except OSError:
                with self._cond:
                    first = not self.broken
                    self.broken = True
                    self._queue.clear()
                if first and self._on_broken is not None:
                    self._on_broken()
            with self._cond:
                self._pending -= len(batch) if not self.broken else self._pending
                if self._pending < self.high_water and self._loop is not None and self._space is not None:
                    try:
                        self._loop.call_soon_threadsafe(self._space.set)
                    except RuntimeError:  # the loop has closed; nobody is waiting any more
                        pass
                self._cond.notify_all()

    def flush_sync(self, timeout: float | None = 10.0) -> None:
        """Block until everything queued so far is written (or the reader is gone)."""
        with self._cond:
            self._cond.wait_for(lambda: self._pending <= 0 or self.broken, timeout)

    async def flush(self) -> None:
        await asyncio.to_thread(self.flush_sync)

    def close(self) -> None:
        self.flush_sync()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(5)
