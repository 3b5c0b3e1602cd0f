"""The ``grep`` tool: search file contents, respecting ``.gitignore``.

Uses ripgrep (``--json``) when it is installed and a Python walker otherwise; both give the
same output: ``path:N: text`` for matches and ``path-N- text`` for context lines, paths
relative to the searched folder. At most ``limit`` matches (default 100), 500 characters
per line and 50 KB in total, each with a note when cut.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import aclosing

from ..agent.tool import AgentTool, ToolError, ToolParams, ToolResult, UpdateCallback
from ..ai.abort import AbortSignal
from ..jsonmodel import Field
from ..records import record
from .operations import find_ripgrep
from .paths import resolve_to_cwd
from .truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    UNLIMITED_LINES,
    format_size,
    truncate_head,
    truncate_line,
)

DEFAULT_LIMIT = 100


class GrepParams(ToolParams):
    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | None = Field(default=None, description="Directory or file to search (default: current directory)")
    glob: str | None = Field(default=None, description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'")
    ignore_case: bool | None = Field(default=None, alias="ignoreCase", description="Case-insensitive search (default: false)")
    literal: bool | None = Field(
        default=None, description="Treat pattern as literal string instead of regex (default: false)"
    )
    context: int | None = Field(
        default=None, description="Number of lines to show before and after each match (default: 0)"
    )
    limit: int | None = Field(default=None, description="Maximum number of matches to return (default: 100)")


@record(slots=True)
class _Line:
    path: str
    number: int
    text: str
    is_match: bool


class _Collector:
    """Keeps matches up to the limit plus their context; notices when there are more."""

    def __init__(self, limit: int, context: int) -> None:
        self.limit = limit
        self.context = context
        self.matches = 0
        self.lines: list[_Line] = []
        self.limit_reached = False
        self._last_match: _Line | None = None

    def add(self, line: _Line) -> bool:
        """Record a line; returns False once the search should stop."""
        if line.is_match:
            if self.matches >= self.limit:
                self.limit_reached = True
                self._drop_foreign_context()
                return False
            self.matches += 1
            self._last_match = line
        self.lines.append(line)
        return True

    def _drop_foreign_context(self) -> None:
        # Context lines that lead up to the first match past the limit belong to it, not
        # to the last kept match.
        last = self._last_match
        while self.lines and not self.lines[-1].is_match and last is not None and (
            self.lines[-1].path != last.path or self.lines[-1].number > last.number + self.context
        ):
            self.lines.pop()


class GrepTool(AgentTool):
    name = "grep"
    label = "grep"
    description = (
        "Search file contents for a pattern. Returns matching lines with file paths and line "
        f"numbers. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} matches or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Long lines are truncated to "
        f"{GREP_MAX_LINE_LENGTH} chars."
    )
    Params = GrepParams

    def __init__(self, cwd: str, *, use_ripgrep: bool = True) -> None:
        """Args:
        cwd: Directory relative paths resolve against.
        use_ripgrep: Use ``rg`` when installed (False forces the Python fallback).
        """
        self.cwd = cwd
        self.rg = find_ripgrep() if use_ripgrep else None

    async def execute(
        self,
        call_id: str,
        params: GrepParams,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        target = resolve_to_cwd(params.path or ".", self.cwd)
        if not os.path.exists(target):
            raise ToolError(f"Path not found: {target}")
        is_dir = os.path.isdir(target)
        root = target if is_dir else os.path.dirname(target)
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        context = max(0, params.context or 0)
        collector = _Collector(limit, context)
        if self.rg is not None:
            await self._search_rg(params, target, root, is_dir, context, collector, signal)
        else:
            await asyncio.to_thread(self._search_py, params, target, root, is_dir, context, collector, signal)
        if signal is not None and signal.aborted:
            raise ToolError("Operation aborted")
        return self._format(collector, limit)

    # ----------------------------------------------------------------- ripgrep

    async def _search_rg(self, params, target, root, is_dir, context, collector, signal) -> None:
        # (The ripgrep runner and the glob matcher load with a search, not with the tool's declaration.)
        from .ripgrep import BASE_ARGS, RipgrepRun
        from .walk import compile_glob, glob_matches

        args = ["--json", *BASE_ARGS]
        if params.ignore_case:
            args.append("--ignore-case")
        if params.literal:
            args.append("--fixed-strings")
        path_glob = None
        if params.glob:
            # rg's --glob would override .gitignore (ignored files matching it get searched),
            # so a name glob becomes a file type and a path glob is checked here instead.
            name_glob, full = params.glob.strip(), compile_glob(params.glob.lstrip("!"))[1]
            if name_glob.startswith("!"):
                args += ["--glob", name_glob]  # an exclusion can only narrow the search
            elif full:
                path_glob = params.glob
            else:
                args += ["--type-add", f"pifilter:{name_glob}", "--type", "pifilter"]
        if context:
            args += ["--context", str(context)]
        # -e keeps a pattern that starts with "-" from being read as a flag.
        args += ["-e", params.pattern, "--", "." if is_dir else os.path.basename(target)]
        run = RipgrepRun(self.rg, args, root, signal)  # type: ignore[arg-type]
        async with aclosing(run.lines()) as lines:
            async for raw in lines:
                try:
                    event = json.loads(raw)
                except ValueError:
                    continue
                kind = event.get("type")
                if kind not in ("match", "context"):
                    continue
                data = event.get("data") or {}
                path = _rg_text(data.get("path")) or ""
                number = data.get("line_number")
                if not isinstance(number, int):
                    continue
                text = _rg_text(data.get("lines")).rstrip("\n").rstrip("\r")
                rel = path[2:] if path.startswith("./") else path
                if not is_dir:
                    rel = os.path.basename(rel)
                elif path_glob is not None and not glob_matches(path_glob, rel):
                    continue
                if not collector.add(_Line(rel, number, text, kind == "match")):
                    run.stop()
                    break
        if run.aborted:
            raise ToolError("Operation aborted")
        if not run.stopped and run.returncode not in (0, 1) and collector.matches == 0:
            raise ToolError(run.stderr or f"ripgrep exited with code {run.returncode}")

    # ----------------------------------------------------------------- fallback

    def _search_py(self, params, target, root, is_dir, context, collector, signal) -> None:
        from .walk import glob_matches, iter_tree

        source = re.escape(params.pattern) if params.literal else params.pattern
        try:
            regex = re.compile(source, re.IGNORECASE if params.ignore_case else 0)
        except re.error as exc:
            raise ToolError(f"Invalid regex pattern {params.pattern!r}: {exc}") from exc
        files: Iterator[str] = (
            (rel for rel, d in iter_tree(root) if not d) if is_dir else iter([os.path.basename(target)])
        )
        for rel in files:
            if signal is not None and signal.aborted:
                return
            if is_dir and params.glob and not _glob_ok(params.glob, rel, glob_matches):
                continue
            if not _grep_file(os.path.join(root, rel), rel, regex, context, collector):
                return

    # ----------------------------------------------------------------- output

    @staticmethod
    def _format(collector: _Collector, limit: int) -> ToolResult:
        if collector.matches == 0:
            return ToolResult.text("No matches found")
        out: list[str] = []
        cut_lines = False
        for line in collector.lines:
            text, cut = truncate_line(line.text)
            cut_lines = cut_lines or cut
            sep = ":" if line.is_match else "-"
            out.append(f"{line.path}{sep}{line.number}{sep} {text}")
        trunc = truncate_head("\n".join(out), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
        text = trunc.content
        details: dict = {}
        notices: list[str] = []
        if collector.limit_reached:
            notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
            details["matchLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_dict()
        if cut_lines:
            notices.append(f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines")
            details["linesTruncated"] = True
        if notices:
            text += "\n\n[" + ". ".join(notices) + "]"
        return ToolResult.text(text, details or None)


def _glob_ok(glob: str, rel: str, glob_matches: Callable[[str, str], bool]) -> bool:
    glob = glob.strip()
    if glob.startswith("!"):
        return not glob_matches(glob[1:], rel)
    return glob_matches(glob, rel)


def _rg_text(field: object) -> str:
    if not isinstance(field, dict):
        return ""
    if "text" in field:
        return str(field["text"])
    if "bytes" in field:
        return base64.b64decode(field["bytes"]).decode("utf-8", errors="replace")
    return ""


def _grep_file(path: str, rel: str, regex: re.Pattern[str], context: int, collector: _Collector) -> bool:
    """Search one file; returns False once the collector wants to stop."""
    try:
        fh = open(path, "rb")  # noqa: SIM115
    except OSError:
        return True
    with fh:
        if b"\x00" in fh.read(8192):
            return True  # binary, as ripgrep skips it
        fh.seek(0)
        before: deque[_Line] = deque(maxlen=context or 1)
        after = 0
        last_emitted = 0
        for number, raw in enumerate(fh, 1):
            text = raw.decode("utf-8", errors="replace").rstrip("\n").rstrip("\r")
            if regex.search(text):
                for ctx in before if context else ():
                    if ctx.number > last_emitted:
                        collector.add(ctx)
                before.clear()
                if not collector.add(_Line(rel, number, text, True)):
                    return False
                last_emitted = number
                after = context
            elif after > 0:
                collector.add(_Line(rel, number, text, False))
                last_emitted = number
                after -= 1
            elif context:
                before.append(_Line(rel, number, text, False))
    return True
