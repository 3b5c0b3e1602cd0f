"""How a ``codemode`` call is drawn, as Pi 1.6 draws it: the script (highlighted, its first lines
while collapsed), then the tool calls the script makes as they run (a mark, the tool, its
arguments, how long it took; the last few while collapsed), then what the script printed without
the "Script completed / Wall time / Output:" header (the model needs it, the user sees the time
below), then how long the script took.

The calls come from the result's ``details.calls``, which the tool updates while it runs, so they
appear one by one; the nested calls themselves get no box of their own (the transcript skips
events with a ``parent_tool_call_id``).
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from pi_runtime.frontend import terminal_safe

from .render import result_text

CODE_PREVIEW_LINES = 10
"""Script lines shown while collapsed."""
CALL_PREVIEW_COUNT = 8
"""Calls shown while collapsed: the latest ones."""
ARGS_PREVIEW_CHARS = 80
"""A call's arguments, cut to this while collapsed."""
OUTPUT_PREVIEW_LINES = 5
"""Output lines shown while collapsed."""

_HEADER = re.compile(r"^Script (completed|failed)\nWall time [\d.]+ seconds\nOutput:\n$")
_MARKS = {"running": ("…", "pi-warning"), "ok": ("✓", "pi-success"), "error": ("✗", "pi-error"),
          "cancelled": ("⊘", "pi-muted")}


def call_duration(ms: object) -> str:
    """``6ms`` below a second, ``1.0s`` from there (a call's time in the list)."""
    if not isinstance(ms, (int, float)):
        return ""
    return f"{round(ms)}ms" if ms < 1000 else f"{ms / 1000:.1f}s"


def script_parts(args: dict[str, Any], variables: dict[str, str], *, expanded: bool) -> list[RenderableType]:
    """The script under the title (nothing while its code has not streamed yet)."""
    from .markdown_render import fence_part_renderable

    code = args.get("code")
    if not isinstance(code, str) or not code.strip():
        return []
    lines = terminal_safe(code.replace("\r", "").rstrip().expandtabs(3), multiline=True).split("\n")
    hidden = 0 if expanded else max(0, len(lines) - CODE_PREVIEW_LINES)
    parts: list[RenderableType] = [fence_part_renderable("\n".join(lines[:len(lines) - hidden]), "javascript")]
    if hidden:
        parts.append(_hint(f"{hidden} more line{'s' if hidden != 1 else ''}", variables))
    return parts


def without_header(content: list[Any]) -> list[Any]:
    """A script's result content without its "Script completed / Wall time / Output:" block."""
    first = content[0] if content else None
    if getattr(first, "type", None) == "text" and _HEADER.match(getattr(first, "text", "")):
        return content[1:]
    return content


def result_parts(result: object, variables: dict[str, str], *, expanded: bool, partial: bool) -> list[RenderableType]:
    """The calls so far and, once the script ended, its output."""
    parts: list[RenderableType] = []
    details = getattr(result, "details", None)
    calls = [c for c in (details.get("calls") if isinstance(details, dict) else None) or () if isinstance(c, dict)]
    if calls:
        shown = calls if expanded else calls[-CALL_PREVIEW_COUNT:]
        block = Text()
        if len(shown) < len(calls):
            block.append_text(_hint(f"{len(calls) - len(shown)} earlier calls", variables))
            block.append("\n")
        for index, call in enumerate(shown):
            if index:
                block.append("\n")
            block.append_text(_call_line(call, variables, expanded=expanded))
        parts.append(block)
    if partial:
        return parts
    content = without_header(list(getattr(result, "content", None) or []))
    output = terminal_safe(result_text(content), multiline=True).strip()
    if output:
        color = variables.get("pi-error" if getattr(result, "is_error", False) else "pi-tool-output", "")
        lines = output.split("\n")
        hidden = 0 if expanded else max(0, len(lines) - OUTPUT_PREVIEW_LINES)
        parts.append(Text("\n".join(lines[:len(lines) - hidden]), style=color))
        if hidden:
            parts.append(_hint(f"{hidden} more line{'s' if hidden != 1 else ''}", variables))
            path = details.get("fullOutputPath") if isinstance(details, dict) else None
            if isinstance(path, str):  # the cut preview hides the note at the end that names the file
                parts.append(Text(f"Full output: {terminal_safe(path)}", style=variables.get("pi-muted", "")))
    return parts


def _call_line(call: dict[str, Any], variables: dict[str, str], *, expanded: bool) -> Text:
    mark, color = _MARKS.get(str(call.get("status")), ("?", "pi-muted"))
    line = Text(mark, style=variables.get(color, ""))
    line.append(" ")
    line.append(terminal_safe(str(call.get("name", ""))), style=variables.get("pi-tool-title", ""))
    args = terminal_safe(str(call.get("args") or ""))
    if args:
        if not expanded and len(args) > ARGS_PREVIEW_CHARS:
            args = args[:ARGS_PREVIEW_CHARS - 3] + "..."
        line.append(" " + args, style=variables.get("pi-muted", ""))
    took = call_duration(call.get("durationMs"))
    if took:
        line.append(" " + took, style=variables.get("pi-dim", ""))
    error = call.get("error")
    if expanded and isinstance(error, str) and error:
        indented = "\n    ".join(terminal_safe(error, multiline=True).split("\n"))
        line.append("\n    " + indented, style=variables.get("pi-error", ""))
    return line


def _hint(what: str, variables: dict[str, str]) -> Text:
    return Text(f"… ({what}, ctrl+o to expand)", style=f"italic {variables.get('pi-dim', '')}")
