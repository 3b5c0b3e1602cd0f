"""Truncated tool: an ``rg`` search tool that truncates what it returns, keeps the full output in a
temp file and tells the model where (Pi's ``truncated-tool.ts``, in Python).

Custom tools must truncate their output (50 KB / 2000 lines, whichever comes first, like the
built-in ones). Uses ripgrep; where it is not installed, ``grep -rn`` does the same search.

    pi -e docs/examples/extensions/truncated_tool.py
"""

from __future__ import annotations

import os
import shutil
import tempfile

from pydantic import BaseModel, Field

from pi_runtime.extensions import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    ExtensionAPI,
    format_size,
    truncate_head,
    with_file_mutation_queue,
)


class RgParams(BaseModel):
    pattern: str = Field(description="Search pattern (regex)")
    path: str | None = Field(default=None, description="Directory to search (default: current directory)")
    glob: str | None = Field(default=None, description="File glob pattern, e.g. '*.py'")


def search_command(params: RgParams) -> tuple[str, list[str]]:
    if shutil.which("rg"):
        args = ["--line-number", "--color=never", *(["--glob", params.glob] if params.glob else [])]
        return "rg", [*args, params.pattern, params.path or "."]
    args = ["-rn", "--color=never", *([f"--include={params.glob}"] if params.glob else [])]
    return "grep", [*args, params.pattern, params.path or "."]


def truncation_flag(details) -> bool:
    truncation = (details or {}).get("truncation") or {}
    return bool(truncation.get("truncated"))


def extension(pi: ExtensionAPI) -> None:
    async def execute(call_id, params, signal, on_update, ctx):
        command, args = search_command(params)
        found = await pi.exec(command, args, cwd=ctx.cwd, signal=signal, max_buffer=100 * 1024 * 1024)
        details = {"pattern": params.pattern, "path": params.path, "glob": params.glob, "matchCount": 0}
        if found.code == 1 or (found.code == 0 and not found.stdout.strip()):
            return {"content": "No matches found", "details": details}
        if found.code != 0:
            raise RuntimeError(f"{command} failed: {found.stderr.strip()}")
        output = found.stdout
        # truncate_head keeps the first lines (right for search results; truncate_tail suits logs).
        truncation = truncate_head(output, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
        details["matchCount"] = len([line for line in output.split("\n") if line.strip()])
        text = truncation.content
        if truncation.truncated:
            full = os.path.join(tempfile.mkdtemp(prefix="pi-rg-"), "output.txt")

            async def save():
                with open(full, "w", encoding="utf-8") as file:
                    file.write(output)

            await with_file_mutation_queue(full, save)
            # As in Pi, the truncation result itself goes into the details: pi stores it as JSON
            # ({"truncated": true, "totalLines": ...}), which is what renderers read back.
            details["truncation"] = truncation
            details["fullOutputPath"] = full
            text += (f"\n\n[Output truncated: showing {truncation.output_lines} of {truncation.total_lines} lines"
                     f" ({format_size(truncation.output_bytes)} of {format_size(truncation.total_bytes)})."
                     f" {truncation.total_lines - truncation.output_lines} lines"
                     f" ({format_size(truncation.total_bytes - truncation.output_bytes)}) omitted."
                     f" Full output saved to: {full}]")
        return {"content": text, "details": details}

    def render_call(args, theme, context):
        text = theme.fg("toolTitle", theme.bold("rg ")) + theme.fg("accent", f'"{args.get("pattern", "")}"')
        if args.get("path"):
            text += theme.fg("muted", f" in {args['path']}")
        if args.get("glob"):
            text += theme.fg("dim", f" --glob {args['glob']}")
        return text

    def render_result(result, options, theme, context):
        if options.get("isPartial"):
            return theme.fg("warning", "Searching...")
        details = result.details or {}
        if not details.get("matchCount"):
            return theme.fg("dim", "No matches found")
        text = theme.fg("success", f"{details['matchCount']} matches")
        if truncation_flag(details):
            text += theme.fg("warning", " (truncated)")
        if options.get("expanded"):
            content = result.content[0].text if result.content else ""
            lines = content.split("\n")
            for line in lines[:20]:
                text += "\n" + theme.fg("dim", line)
            if len(lines) > 20:
                text += "\n" + theme.fg("muted", "... (use read tool to see full output)")
            if details.get("fullOutputPath"):
                text += "\n" + theme.fg("dim", f"Full output: {details['fullOutputPath']}")
        return text

    pi.register_tool(
        name="rg", label="ripgrep", params=RgParams, execute=execute,
        render_call=render_call, render_result=render_result,
        description=f"Search file contents using ripgrep. Output is truncated to {DEFAULT_MAX_LINES} lines or "
                    f"{format_size(DEFAULT_MAX_BYTES)} (whichever is hit first). If truncated, full output is "
                    "saved to a temp file.")
