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
from types import SimpleNamespace
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from .render import DIFF_PREVIEW_LINES, OUTPUT_PREVIEW_LINES, diff_text, result_text, tail_lines, tool_title

_ID_SAFE = re.compile(r"[^A-Za-z0-9_-]")


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
        self.set_reactive(ToolBox.expanded, expanded)

    def on_mount(self) -> None:
        # Diff colours are baked into the body text: redo it when the theme (or its file) changes.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.refresh(layout=True))

    def on_unmount(self) -> None:
        # The signal holds the callback, and the callback holds this box: without this, every
        # box a long session ever mounted would stay in memory until the next theme change.
        self.app.theme_changed_signal.unsubscribe(self)

    def _title(self) -> Text:
        title = Text(tool_title(self.tool_name, self.args, self.cwd), style="bold")
        if self.state == "running":
            title.append("  running…", style="italic")
        return title

    # ------------------------------------------------------------------ updates from the transcript

    def set_args(self, args: dict[str, Any] | None) -> None:
        """Arguments changed (still streaming or final)."""
        self.args = dict(args or {})
        self.refresh(layout=True)

    def set_running(self) -> None:
        self.state = "running"
        self.refresh(layout=True)

    def set_partial(self, result: Any) -> None:
        """A partial result while the tool runs (bash output so far)."""
        self.output = result_text(getattr(result, "content", None))
        self.refresh(layout=True)

    def set_result(self, content: Any, details: Any, is_error: bool) -> None:
        """The final result."""
        self.state = "error" if is_error else "success"
        self.output = result_text(content)
        self.result = SimpleNamespace(content=content, details=details, is_error=is_error, isError=is_error)
        if isinstance(details, dict) and isinstance(details.get("diff"), str) and not is_error:
            self.diff = details["diff"]
        self.set_class(False, "pending")
        self.set_class(is_error, "error")
        self.set_class(not is_error, "success")
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
            result = self.result or SimpleNamespace(content=[], details=None, is_error=False, isError=False)
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
        hidden = 0
        if self.diff:
            text, hidden = diff_text(self.diff, self._diff_colors(), limit=None if self.expanded else DIFF_PREVIEW_LINES)
            parts.append(text)
        elif self.tool_name in ("read", "write") and self.state == "success" and not self.expanded:
            # File contents are long and the title says what happened; show them on Ctrl+O only.
            hidden = len(self.output.splitlines())
        else:
            shown, hidden = tail_lines(self.output, None if self.expanded else OUTPUT_PREVIEW_LINES)
            if shown:
                color = variables.get("pi-error" if self.state == "error" else "pi-tool-output", "")
                parts.append(Text(shown, style=color))
        if hidden:
            more = f"… {hidden} more line{'s' if hidden != 1 else ''} (ctrl+o to expand)"
            parts.append(Text(more, style=f"italic {variables.get('pi-dim', '')}"))
        return Group(*parts)
