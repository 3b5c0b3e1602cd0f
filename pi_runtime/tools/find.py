"""The ``find`` tool: list files by glob pattern, respecting ``.gitignore``.

The candidate list comes from ``rg --files`` when ripgrep is installed, else from the Python
walker; the pattern is matched the same way in both cases (see ``walk.compile_glob``).
Folders that contain listed files match too and are shown with a trailing ``/``. Results
are sorted and limited to ``limit`` (default 1,000) and 50 KB, with a note when cut.
"""

from __future__ import annotations

import asyncio
import os
from contextlib import aclosing

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..jsonmodel import Field
from .operations import find_ripgrep
from .paths import resolve_to_cwd
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED_LINES, format_size, truncate_head

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'. "
        "Patterns with a '/' are relative to the search directory."
    )
    path: str | None = Field(default=None, description="Directory to search in (default: current directory)")
    limit: int | None = Field(default=None, description="Maximum number of results (default: 1000)")


def _with_parents(files: list[str]) -> list[tuple[str, bool]]:
    seen: set[str] = set()
    out: list[tuple[str, bool]] = []
    for rel in files:
        out.append((rel, False))
        parent = rel.rpartition("/")[0]
        while parent and parent not in seen:
            seen.add(parent)
            out.append((parent, True))
            parent = parent.rpartition("/")[0]
    return out


class FindTool(AgentTool):
    name = "find"
    label = "find"
    description = (
        "Search for files by glob pattern. Returns matching file paths relative to the search "
        f"directory. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} results or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    Params = FindParams

    def __init__(self, cwd: str, *, use_ripgrep: bool = True) -> None:
        """Args:
        cwd: Directory relative paths resolve against.
        use_ripgrep: List files with ``rg`` when installed (False forces the Python walker).
        """
        self.cwd = cwd
        self.rg = find_ripgrep() if use_ripgrep else None

    async def execute(
        self,
        call_id: str,
        params: FindParams,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        root = resolve_to_cwd(params.path or ".", self.cwd)
        if not os.path.exists(root):
            raise ToolError(f"Path not found: {root}")
        if not os.path.isdir(root):
            raise ToolError(f"Not a directory: {root}")
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        from .walk import compile_glob, iter_tree  # with a search, not with the tool's declaration

        try:
            compile_glob(params.pattern)
        except Exception as exc:
            raise ToolError(f"Invalid glob pattern {params.pattern!r}: {exc}") from exc
        if self.rg is not None:
            entries = _with_parents(await self._rg_files(root, signal))
        else:
            entries = await asyncio.to_thread(lambda: list(iter_tree(root)))
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        regex, full = compile_glob(params.pattern)
        matched = sorted(
            rel + "/" if is_dir else rel
            for rel, is_dir in entries
            if regex.match(rel if full else rel.rsplit("/", 1)[-1])
        )
        if not matched:
            return ToolResult.text("No files found matching pattern")
        limit_reached = len(matched) > limit
        trunc = truncate_head("\n".join(matched[:limit]), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
        text = trunc.content
        details: dict = {}
        notices: list[str] = []
        if limit_reached:
            notices.append(f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern")
            details["resultLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_dict()
        if notices:
            text += "\n\n[" + ". ".join(notices) + "]"
        return ToolResult.text(text, details or None)

    async def _rg_files(self, root: str, signal: AbortSignal | None) -> list[str]:
        from .ripgrep import BASE_ARGS, RipgrepRun

        run = RipgrepRun(self.rg, ["--files", *BASE_ARGS, "--", "."], root, signal)  # type: ignore[arg-type]
        files: list[str] = []
        async with aclosing(run.lines()) as lines:
            async for raw in lines:
                rel = raw.decode("utf-8", errors="replace")
                files.append(rel[2:] if rel.startswith("./") else rel)
        if run.aborted:
            raise ToolError("Operation aborted")
        if run.returncode not in (0, 1) and not files:
            raise ToolError(run.stderr or f"ripgrep exited with code {run.returncode}")
        return files
