"""One tool call: a box coloured by state (pending, success, error) with a one-line title.

The transcript creates it when the model starts the call (DOM id from the tool-call id)
and updates it in place as arguments stream, the tool runs (live bash output) and the
result arrives. Output and edit diffs are collapsed to a few lines; ``expanded`` (set by
the app for Ctrl+O) shows everything.

The box is one widget that draws its title, body and "more" line itself, rather than a
container of three ``Static`` children: a long session mounts hundreds of boxes, and every
node costs Textual time on each mount and layout pass.
"""

from __future__ import annotations

import re
import time
from types import SimpleNamespace
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from pi_runtime.frontend import DEFAULT_MAX_BYTES, format_size, terminal_safe

from .render import (
    DIFF_PREVIEW_LINES,
    OUTPUT_PREVIEW_LINES,
    WRITE_PREVIEW_LINES,
    argument_lines,
    diff_text,
    format_tool_duration,
    result_text,
    tool_label,
    tool_title,
)
from .visual_tail import VisualHead, VisualTail

_ID_SAFE = re.compile(r"[^A-Za-z0-9_-]")

OWN_VIEWS = frozenset({"bash", "read", "edit", "write", "grep", "find", "ls", "codemode"})
"""Tools drawn their own way; any other (an extension's, an MCP server's, ``tool_search``) is drawn
as Pi draws it: ``label key=value…`` (every argument on its own line when expanded) and its output
from the start."""
MCP_PREVIEW_ROWS = 5
"""Rows of an MCP tool's output shown while collapsed (Pi's)."""
GENERIC_PREVIEW_LINES = 10
"""Lines of another tool's output shown while collapsed (Pi's)."""


def tool_dom_id(call_id: str) -> str:
    """A valid, stable DOM id for a tool-call id."""
    return "tool-" + _ID_SAFE.sub("_", call_id)


class ToolBox(Widget):
    """A tool call and its result."""

    DEFAULT_CSS = "ToolBox { height: auto; }"

    expanded: reactive[bool] = reactive(False)
    """Show all output / the whole diff (Ctrl+O toggles every box)."""

    def __init__(self, call_id: str, name: str, args: dict[str, Any] | None = None, *, cwd: str | None = None,
                 message: Any = None, expanded: bool = False, renderer: Any = None) -> None:
        super().__init__(id=tool_dom_id(call_id), classes="tool-box pending")
        self.call_id = call_id
        """The model's tool-call id."""
        self.tool_name = name
        """Tool name (``bash``, ``edit``...)."""
        self.args: dict[str, Any] = dict(args or {})
        """Arguments as far as they have streamed."""
        self.cwd = cwd
        self.message = message
        """The assistant message holding the call (for the transcript window)."""
        self.state = "pending"
        """pending, running, success or error."""
        self.output = ""
        """Text output so far (live while running, final after)."""
        self.diff: str | None = None
        """Unified diff from an edit's details."""
        self.renderer = renderer
        """An extension's renderer for this tool (``render_call`` / ``render_result``), or None."""
        self.result: Any = None
        """The final result (content, details, is_error) for an extension's ``render_result``."""
        self.partial: Any = None
        """The latest partial result while the tool runs (what ``render_result`` shows with ``isPartial``)."""
        self.duration_ms: float | None = None
        """How long the tool ran (from the kernel's ``tool_execution_end``), shown as Pi's "Took 0.2s"."""
        self._started: float | None = None
        self.set_reactive(ToolBox.expanded, expanded)

    def on_mount(self) -> None:
        # Diff colours are baked into the body text: redo it when the theme (or its file) changes.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.refresh(layout=True))

    def on_unmount(self) -> None:
        # The signal holds the callback, and the callback holds this box: without this, every
        # box a long session ever mounted would stay in memory until the next theme change.
        self.app.theme_changed_signal.unsubscribe(self)

    def _title(self) -> Text:
        generic = self.tool_name not in OWN_VIEWS
        name = tool_label(self.tool_name) if generic and self.expanded else tool_title(self.tool_name, self.args, self.cwd)
        title = Text(name, style="bold")
        if self.state == "running":
            title.append("  running…", style="italic")
        if generic and self.expanded and self.args:  # Pi: every argument on a line of its own
            lines = terminal_safe(argument_lines(self.args), multiline=True)
            title.append("\n" + lines, style=f"not bold {self.app.theme_variables.get('pi-muted', '')}")
        return title

    # ------------------------------------------------------------------ updates from the transcript

    def set_args(self, args: dict[str, Any] | None) -> None:
        """Arguments changed (still streaming or final)."""
        self.args = dict(args or {})
        self.refresh(layout=True)

    def set_running(self) -> None:
        self.state = "running"
        self._started = time.monotonic()
        self.refresh(layout=True)

    def set_partial(self, result: Any) -> None:
        """A partial result while the tool runs (bash output so far)."""
        content = getattr(result, "content", None)
        self.output = terminal_safe(result_text(content), multiline=True)
        self.partial = SimpleNamespace(content=content or [], details=getattr(result, "details", None),
                                       is_error=False, isError=False)
        self.refresh(layout=True)

    def set_result(self, content: Any, details: Any, is_error: bool, duration_ms: float | None = None) -> None:
        """The final result; ``duration_ms`` is the tool's run time when known (measured here otherwise)."""
        if duration_ms is None and self._started is not None:
            duration_ms = (time.monotonic() - self._started) * 1000
        self.duration_ms = duration_ms
        self.state = "error" if is_error else "success"
        self.output = terminal_safe(result_text(content), multiline=True)
        self.result = SimpleNamespace(content=content, details=details, is_error=is_error, isError=is_error)
        if isinstance(details, dict) and isinstance(details.get("diff"), str) and not is_error:
            self.diff = details["diff"]
        # One restyle for the three classes, not one per class that changed (a reply with 200 tool
        # calls spent a tenth of its drawing time restyling boxes twice each).
        before = self.classes
        self.set_class(False, "pending", update=False)
        self.set_class(is_error, "error", update=False)
        self.set_class(not is_error, "success", update=False)
        if self.classes != before and self.is_attached:  # a box not mounted yet is styled when it is
            self.update_node_styles()
        self.refresh(layout=True)

    def watch_expanded(self) -> None:
        self.refresh(layout=True)

    # ------------------------------------------------------------------ body

    def _diff_colors(self) -> dict[str, str]:
        variables = self.app.theme_variables
        return {
            "added": variables.get("pi-tool-diff-added", "green"),
            "removed": variables.get("pi-tool-diff-removed", "red"),
            "context": variables.get("pi-tool-diff-context", ""),
            "hunk": variables.get("pi-accent", "cyan"),
        }

    def _extension_parts(self) -> tuple[RenderableType | None, RenderableType | None]:
        """The extension renderer's title and body (None where it gives none)."""
        if self.renderer is None:
            return None, None
        from ..extension_ui.extension_render import as_renderable, call_renderer, render_options, renderer_part
        from ..extension_ui.extension_theme import AppTheme

        theme = AppTheme(self.app)
        context = {"cwd": self.cwd, "toolCallId": self.call_id, "state": self.state}
        title = as_renderable(call_renderer(renderer_part(self.renderer, "render_call"), self.args, theme, context))
        body = None
        if self.result is not None or self.state == "running":
            options = {**render_options(getattr(self.app, "session", None), self.expanded),
                       "isPartial": self.result is None}
            result = self.result or self.partial or SimpleNamespace(content=[], details=None, is_error=False,
                                                                    isError=False)
            body = as_renderable(call_renderer(renderer_part(self.renderer, "render_result"), result, options,
                                               theme, context))
        return title, body

    def render(self) -> RenderableType:
        variables = self.app.theme_variables
        custom_title, custom_body = self._extension_parts()
        if custom_body is not None:
            return Group(custom_title or self._title(), custom_body)
        title = self._title()
        title.stylize(variables.get("pi-tool-title", ""))
        parts: list[RenderableType] = [custom_title or title]
        dim = f"italic {variables.get('pi-dim', '')}"
        output_color = variables.get("pi-error" if self.state == "error" else "pi-tool-output", "")
        limit = not self.expanded
        if self.diff:
            text, hidden = diff_text(self.diff, self._diff_colors(), limit=DIFF_PREVIEW_LINES if limit else None)
            parts.append(text)
            if hidden:
                parts.append(Text(f"… ({_more(hidden)}, ctrl+o to expand)", style=dim))
        elif self.tool_name == "write" and self.state != "error":
            # What was written, from the call's arguments (as they stream): the result only says "ok".
            content = self.args.get("content")
            if isinstance(content, str) and content:
                safe = terminal_safe(content.expandtabs(3), multiline=True)
                style = variables.get("pi-tool-output", "")
                if limit:
                    # The first rows on screen, as Pi's first ten lines, but counted in rows.
                    parts.append(VisualHead(safe, WRITE_PREVIEW_LINES, style=style, hint=lambda hidden, total: Text(
                        f"… ({_more(hidden)}, {total} total, ctrl+o to expand)", style=dim)))
                else:
                    parts.append(Text(safe.rstrip("\n"), style=style))
        elif self.tool_name == "codemode":
            from .codemode_view import result_parts, script_parts

            parts.extend(script_parts(self.args, variables, expanded=self.expanded))
            shown = self.result or self.partial
            if shown is not None:
                parts.extend(result_parts(shown, variables, expanded=self.expanded, partial=self.result is None))
        elif self.tool_name == "read" and self.state == "success" and limit:
            # File contents are long and the title says what happened; show them on Ctrl+O only.
            hidden = len(self.output.splitlines())
            if hidden:
                parts.append(Text(f"… ({hidden} line{'s' if hidden != 1 else ''}, ctrl+o to expand)", style=dim))
            self._add_image_warning(parts)
        elif self.tool_name not in OWN_VIEWS:
            parts.extend(self._head_parts(output_color, dim, limit))
        else:
            output, saved_note = self._output_and_saved_note()
            if not limit:
                parts.append(Text(output.rstrip("\n"), style=output_color))
            elif output.strip("\n"):
                # The tail is what is shown, cut by rows on screen: the hidden rows are above it.
                parts.append(VisualTail(output, OUTPUT_PREVIEW_LINES, style=output_color, hint=lambda hidden: Text(
                    f"… ({hidden} earlier line{'s' if hidden != 1 else ''}, ctrl+o to expand)", style=dim)))
            if saved_note:
                parts.append(Text(saved_note, style=variables.get("pi-warning", "")))
            if self.tool_name == "read":
                self._add_image_warning(parts)
        if self.tool_name in ("bash", "codemode") and self.duration_ms is not None and self.state in ("success", "error"):
            parts.append(Text(f"Took {format_tool_duration(self.duration_ms)}", style=variables.get("pi-dim", "")))
        return Group(*parts)


    def _head_parts(self, color: str, dim: str, limit: bool) -> list[RenderableType]:
        """Another tool's output from its start, as Pi shows it: an MCP tool's first rows (its
        results are often one long JSON line) and the whole output's file, any other tool's first
        lines."""
        output = self.output.strip("\n")
        if not output:
            return []
        if not limit:
            return [Text(output, style=color)]
        if self.tool_name.startswith("mcp__"):
            parts: list[RenderableType] = [VisualHead(output, MCP_PREVIEW_ROWS, style=color, hint=lambda hidden, _total: Text(
                f"… ({_more(hidden)}, ctrl+o to expand)", style=dim))]
            details = getattr(self.result, "details", None)
            path = details.get("fullOutputPath") if isinstance(details, dict) else None
            if isinstance(path, str):
                parts.append(Text(f"Full output: {terminal_safe(path)}", style=self.app.theme_variables.get("pi-muted", "")))
            return parts
        lines = output.split("\n")
        hidden = max(0, len(lines) - GENERIC_PREVIEW_LINES)
        parts = [Text("\n".join(lines[:len(lines) - hidden]), style=color)]
        if hidden:
            parts.append(Text(f"… ({_more(hidden)}, ctrl+o to expand)", style=dim))
        return parts

    def _add_image_warning(self, parts: list[RenderableType]) -> None:
        """Pi's line under an image read for a model that takes no images (the tool recorded which
        model in its details): what the user sees is not what the model saw."""
        details = getattr(self.result, "details", None)
        model = details.get("imageUnsupportedByModel") if isinstance(details, dict) else None
        if isinstance(model, str) and model:
            parts.append(Text(f"[{terminal_safe(model)} does not support images; it saw a placeholder instead]",
                              style=self.app.theme_variables.get("pi-warning", "")))

    def _output_and_saved_note(self) -> tuple[str, str]:
        """The output to show and, for a command whose output was cut and saved, Pi's note saying
        where the whole of it is, in place of the bracketed footer written for the model."""
        details = getattr(self.result, "details", None)
        if self.tool_name != "bash" or not isinstance(details, dict):
            return self.output, ""
        truncation, path = details.get("truncation"), details.get("fullOutputPath")
        truncated = isinstance(truncation, dict) and truncation.get("truncated")
        if not truncated and not isinstance(path, str):
            return self.output, ""
        output = self.output.rstrip()
        footer = output.rfind("\n\n[")
        if truncated and isinstance(path, str) and output.endswith("]") and footer >= 0 and path in output[footer:]:
            output = output[:footer]
        notes = [f"Full output: {path}"] if isinstance(path, str) else []
        if truncated:
            assert isinstance(truncation, dict)
            if truncation.get("truncatedBy") == "lines":
                notes.append(f"Truncated: showing {truncation.get('outputLines')} of {truncation.get('totalLines')} lines")
            else:
                limit = truncation.get("maxBytes")
                notes.append(f"Truncated: {truncation.get('outputLines')} lines shown "
                             f"({format_size(limit if isinstance(limit, int) else DEFAULT_MAX_BYTES)} limit)")
        return output, f"[{'. '.join(notes)}]"


def _more(count: int) -> str:
    return f"{count} more line{'s' if count != 1 else ''}"
