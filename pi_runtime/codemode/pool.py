"""Codemode worker processes: at most two alive in one pi process, handed out in arrival order.

Pi runs each script in a worker thread and allows two at once across all sessions
(``PI_CODEMODE_MAX_WORKERS`` changes it); a script that gets no worker within 60 seconds, or before
its own deadline, fails without running. pi's workers are child processes (``worker.py``): a
script that must stop (abort, deadline) is stopped by killing its process, which no computation
inside QuickJS can delay. A worker whose script ended normally is kept for the next script, so a
warm script costs a fresh QuickJS context (under a millisecond), not a process start. A killed
worker holds its slot until it has exited, as in Pi.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections import deque
from typing import Literal

from ..ai.abort import AbortSignal

DEFAULT_MAX_WORKERS = 2
WORKER_WAIT_SECONDS = 60.0
"""How long a script waits for a free worker (it counts toward its own deadline)."""
WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
LINE_LIMIT = 64 * 1024 * 1024
"""Longest protocol line accepted from a worker (a script's output is capped at 16 Mi characters)."""


def max_workers() -> int:
    """``PI_CODEMODE_MAX_WORKERS`` when it is a positive integer, else 2 (read per script, as Pi)."""
    try:
        value = int(os.environ.get("PI_CODEMODE_MAX_WORKERS", ""))
    except ValueError:
        return DEFAULT_MAX_WORKERS
    return value if value > 0 else DEFAULT_MAX_WORKERS


class Worker:
    """One worker process and its pipes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    def send(self, line: bytes) -> None:
        """Queue one protocol line for the worker (a dead worker's pipe is ignored)."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.write(line)

    async def receive(self) -> bytes:
        """The next protocol line, or b"" when the worker is gone."""
        stdout = self.process.stdout
        if stdout is None:
            return b""
        try:
            return await stdout.readline()
        except (ValueError, asyncio.LimitOverrunError):  # a line over the limit: treat the worker as broken
            return b""

    async def kill(self) -> None:
        """End the process and wait until it has exited."""
        if self.alive:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        await self.process.wait()


async def _spawn() -> Worker:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-I", WORKER_SCRIPT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=LINE_LIMIT,
    )
    worker = Worker(process)
    ready = await worker.receive()
    if not ready.startswith(b'{"t":"ready"'):
        await worker.kill()
        raise RuntimeError("the codemode worker did not start (is the quickjs-ng package installed?)")
    return worker


class WorkerPool:
    """Slots for scripts, first come first served, and the idle workers kept for reuse."""

    def __init__(self) -> None:
        self._busy = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._idle: list[Worker] = []

    async def acquire(self, signal: AbortSignal | None, timeout: float) -> Worker | Literal["aborted", "timeout"]:
        """A worker for one script, waiting in arrival order while all slots are taken."""
        if signal is not None and signal.aborted:
            return "aborted"
        if self._busy >= max_workers() or self._waiters:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)

            def give_up() -> None:
                if not waiter.done():
                    waiter.cancel()

            remove = signal.add_listener(give_up) if signal is not None else None
            try:
                await asyncio.wait_for(asyncio.shield(waiter), timeout)
            except (TimeoutError, asyncio.CancelledError):
                if waiter.done() and not waiter.cancelled():
                    self._release_slot()  # granted just as we gave up: pass it on
                else:
                    waiter.cancel()
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
                if signal is not None and signal.aborted:
                    return "aborted"
                return "timeout"
            finally:
                if remove is not None:
                    remove()
        else:
            self._busy += 1
        while self._idle:
            worker = self._idle.pop()
            if worker.alive:
                return worker
        try:
            return await _spawn()
        except BaseException:
            self._release_slot()
            raise

    async def release(self, worker: Worker, reusable: bool) -> None:
        """Give back ``worker``: kept for the next script when ``reusable``, else killed first."""
        if reusable and worker.alive and len(self._idle) < max_workers():
            self._idle.append(worker)
        else:
            await worker.kill()
        self._release_slot()

    def _release_slot(self) -> None:
        self._busy -= 1
        while self._waiters and self._busy < max_workers():
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._busy += 1
                waiter.set_result(None)

    async def close(self) -> None:
        """Stop the idle workers (busy ones end with their scripts)."""
        idle, self._idle = self._idle, []
        for worker in idle:
            await worker.kill()


_pools: dict[asyncio.AbstractEventLoop, WorkerPool] = {}


def shared_pool() -> WorkerPool:
    """The pool of the running event loop (one per process in practice; tests run several loops)."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        for stale in [other for other in _pools if other.is_closed()]:
            del _pools[stale]
        pool = _pools[loop] = WorkerPool()
    return pool
