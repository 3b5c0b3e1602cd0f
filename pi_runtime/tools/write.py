"""The ``write`` tool: create or overwrite a file, creating parent folders as needed.

Runs inside the per-file mutation queue (an edit and a write of the same file never
interleave). Abort is only honoured before the write starts, so the queue is released only
after the file operation is complete.
"""

from __future__ import annotations

import os

from pydantic import Field

from ..agent.tool import ToolError, ToolParams, ToolResult
from .file_mutation import FileMutationTool


class WriteParams(ToolParams):
    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


class WriteTool(FileMutationTool):
    name = "write"
    label = "write"
    description = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    )
    Params = WriteParams

    def apply(self, path: str, params: WriteParams) -> ToolResult:
        ops = self.file_ops
        info = ops.stat(path)
        if info is not None and info.is_dir:
            raise ToolError(f"Path is a directory, not a file: {params.path}")
        data = params.content.encode("utf-8")
        try:
            ops.mkdir(os.path.dirname(path))
            ops.write_bytes(path, data)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        except NotADirectoryError as exc:
            raise ToolError(f"Cannot create {params.path}: a parent path is a file, not a directory") from exc
        except FileExistsError as exc:
            raise ToolError(f"Cannot create {params.path}: a parent path is a file, not a directory") from exc
        # Pi's wording and no details object (the wire result is only the content); the
        # size and whether the file is new are in the call's arguments and the file itself.
        return ToolResult.text(f"Successfully wrote to {params.path}")
