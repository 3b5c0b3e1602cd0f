"""The shared shape of the tools that change a file (edit, write).

Each runs in the per-path mutation queue and does its file work in a worker thread. An abort
answers at once ("Operation aborted"), whatever the thread is doing: the thread checks the
signal at its checkpoints (while reading, before writing) and stops at the next one, and the
queue stays held until it has, so the next change of that file never starts on a half-done
one. A write that has begun is finished, never cut in the middle.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import background
from ..agent.tool import AgentTool, ToolError, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from .mutation_queue import file_mutation_lock
from .operations import FileOperations, LocalFileOperations
from .paths import resolve_to_cwd


class Aborted(Exception):
    """Raised inside ``apply`` at a checkpoint once the signal has fired."""


def checkpoint(signal: AbortSignal | None) -> None:
    """Stop the work here if the call was aborted (call between steps, never mid-write)."""
    if signal is not None and signal.aborted:
        raise Aborted


class FileMutationTool(AgentTool):
    """Subclasses implement ``apply(path, params, signal)`` (runs in a worker thread)."""

    def __init__(self, cwd: str, *, file_ops: FileOperations | None = None) -> None:
        """Args:
        cwd: Directory relative paths resolve against.
        file_ops: File system backend; defaults to the local one.
        """
        self.cwd = cwd
        self.file_ops: FileOperations = file_ops or LocalFileOperations()

    async def execute(
        self,
        call_id: str,
        params: Any,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        path = resolve_to_cwd(params.path, self.cwd)
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        queue = file_mutation_lock(path, self.file_ops.real_path)
        await queue.__aenter__()
        work: asyncio.Future[ToolResult] | None = None
        try:
            # Checked again after waiting in the queue.
            if signal is not None and signal.aborted:
                raise ToolError("Operation aborted")
            work = asyncio.ensure_future(asyncio.to_thread(self._run, path, params, signal))
            if signal is None:
                return await asyncio.shield(work)
            stop = asyncio.ensure_future(signal.wait())
            try:
                await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
            if not work.done():
                raise ToolError("Operation aborted")
            return work.result()
        finally:
            if work is not None and not work.done():
                # Aborted or cancelled while the thread works: it stops at its next checkpoint;
                # only then may the next change of this file start.
                background.spawn(_release_after(work, queue), name="file-mutation-release")
            else:
                await queue.__aexit__(None, None, None)

    def _run(self, path: str, params: Any, signal: AbortSignal | None) -> ToolResult:
        try:
            return self.apply(path, params, signal)
        except Aborted:
            raise ToolError("Operation aborted") from None

    def apply(self, path: str, params: Any, signal: AbortSignal | None) -> ToolResult:
        raise NotImplementedError


async def _release_after(work: asyncio.Future[ToolResult], queue: Any) -> None:
    try:
        await asyncio.wait({work})
    finally:
        # Also when the loop shuts down first (this task is then cancelled): the lock goes.
        await queue.__aexit__(None, None, None)
        if work.done() and not work.cancelled():
            work.exception()  # retrieved: an abort's late failure is not an unhandled error
