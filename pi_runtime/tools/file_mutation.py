"""The shared shape of the tools that change a file (edit, write).

Each runs in the per-path mutation queue, checks the abort signal before and after
waiting for its turn, and then does its file work in a thread to the end, so the queue is
never released with a half-done change.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..agent.tool import AgentTool, ToolError, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from .mutation_queue import file_mutation_lock
from .operations import FileOperations, LocalFileOperations
from .paths import resolve_to_cwd


class FileMutationTool(AgentTool):
    """Subclasses implement ``apply(path, params)`` (runs in a worker thread)."""

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
        async with file_mutation_lock(path, self.file_ops.real_path):
            # Checked again after waiting in the queue; once work starts it runs to the end.
            if signal is not None and signal.aborted:
                raise ToolError("Operation aborted")
            return await asyncio.to_thread(self.apply, path, params)

    def apply(self, path: str, params: Any) -> ToolResult:
        raise NotImplementedError
