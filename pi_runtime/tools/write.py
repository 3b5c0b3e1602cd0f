"""The ``write`` tool: create or overwrite a file, creating parent folders as needed.

Runs inside the per-file mutation queue (an edit and a write of the same file never
interleave). Only regular files are written: a FIFO, device or socket (or a symlink to one) is
refused. An existing file is rewritten in place, as Pi does (same inode: hard links, open
handles and file watchers see the new content; mode, owner and attributes stay), with the
space it grows by reserved first and its old content put back if the write fails half way
(see ``file_write`` for the trade-off against a renamed copy).
"""

from __future__ import annotations

import os

from ..agent.tool import PREFER_STRICT_SCHEMA, ToolError, ToolParams, ToolResult
from ..ai.abort import AbortSignal
from ..jsonmodel import Field
from .file_mutation import FileMutationTool, checkpoint
from .file_write import NotRegularFileError


def _not_regular(shown_path: str) -> ToolError:
    return ToolError(
        f"Not a regular file: {shown_path} (a FIFO, device or socket). write only replaces regular "
        "files; use bash to send data to anything else."
    )


class WriteParams(ToolParams):
    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


class WriteTool(FileMutationTool):
    name = "write"
    label = "write"
    constrained_sampling = PREFER_STRICT_SCHEMA
    description = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    )
    Params = WriteParams

    def apply(self, path: str, params: WriteParams, signal: AbortSignal | None) -> ToolResult:
        ops = self.file_ops
        info = ops.stat(path)
        if info is not None and info.is_dir:
            raise ToolError(f"Path is a directory, not a file: {params.path}")
        if info is not None and not info.is_file:
            raise _not_regular(params.path)
        data = params.content.encode("utf-8")
        try:
            ops.mkdir(os.path.dirname(path))
            checkpoint(signal)  # the last one: a write that starts is finished
            ops.write_bytes(path, data)
        except NotRegularFileError as exc:
            raise _not_regular(params.path) from exc
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        except NotADirectoryError as exc:
            raise ToolError(f"Cannot create {params.path}: a parent path is a file, not a directory") from exc
        except FileExistsError as exc:
            raise ToolError(f"Cannot create {params.path}: a parent path is a file, not a directory") from exc
        except OSError as exc:
            raise ToolError(f"Could not write {params.path}: {exc.strerror or exc}") from exc
        # Pi's wording and no details object (the wire result is only the content); the
        # size and whether the file is new are in the call's arguments and the file itself.
        return ToolResult.text(f"Successfully wrote to {params.path}")
