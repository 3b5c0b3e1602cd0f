"""The ``ls`` tool: one folder's entries, sorted case-insensitively, folders marked with ``/``.

Like Pi, it lists every entry including dotfiles and ignored ones (it is a directory
listing, not a search); pass ``respect_gitignore=True`` to hide what ``.gitignore`` ignores.
At most ``limit`` entries (default 500) and 50 KB, with a note when cut.
"""

from __future__ import annotations

import asyncio
import os

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..jsonmodel import Field
from .operations import FileOperations, LocalFileOperations
from .paths import resolve_to_cwd
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED_LINES, format_size, truncate_head

DEFAULT_LIMIT = 500


class LsParams(ToolParams):
    path: str | None = Field(default=None, description="Directory to list (default: current directory)")
    limit: int | None = Field(default=None, description="Maximum number of entries to return (default: 500)")


class LsTool(AgentTool):
    name = "ls"
    label = "ls"
    description = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for "
        f"directories. Includes dotfiles. Output is truncated to {DEFAULT_LIMIT} entries or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    Params = LsParams

    def __init__(
        self, cwd: str, *, file_ops: FileOperations | None = None, respect_gitignore: bool = False
    ) -> None:
        """Args:
        cwd: Directory relative paths resolve against.
        file_ops: File system backend; defaults to the local one.
        respect_gitignore: Hide entries ignored by ``.gitignore``/``.ignore`` (local only).
        """
        self.cwd = cwd
        self.file_ops: FileOperations = file_ops or LocalFileOperations()
        self.respect_gitignore = respect_gitignore

    async def execute(
        self,
        call_id: str,
        params: LsParams,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        return await asyncio.to_thread(self._list, params)

    def _list(self, params: LsParams) -> ToolResult:
        from .walk import ancestor_specs, is_ignored, load_specs  # with a listing, not with the declaration

        ops = self.file_ops
        directory = resolve_to_cwd(params.path or ".", self.cwd)
        info = ops.stat(directory)
        if info is None:
            raise ToolError(f"Path not found: {directory}")
        if not info.is_dir:
            raise ToolError(f"Not a directory: {directory}")
        try:
            names = ops.list_dir(directory)
        except OSError as exc:
            raise ToolError(f"Cannot read directory: {exc.strerror or exc}") from exc
        names.sort(key=lambda n: (n.lower(), n))
        specs = (ancestor_specs(directory) + load_specs(directory)) if self.respect_gitignore else []
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        results: list[str] = []
        limit_reached = False
        for name in names:
            full = os.path.join(directory, name)
            entry = ops.stat(full)
            if entry is None:
                continue  # dangling symlink or vanished meanwhile
            if specs and (name == ".git" or is_ignored(specs, full, entry.is_dir)):
                continue
            if len(results) >= limit:
                limit_reached = True
                break
            results.append(name + "/" if entry.is_dir else name)
        if not results:
            return ToolResult.text("(empty directory)")
        trunc = truncate_head("\n".join(results), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
        text = trunc.content
        details: dict = {}
        notices: list[str] = []
        if limit_reached:
            notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
            details["entryLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_dict()
        if notices:
            text += "\n\n[" + ". ".join(notices) + "]"
        return ToolResult.text(text, details or None)
