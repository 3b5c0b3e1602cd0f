"""Messages that are neither prompts nor answers: the user's ``!`` commands, compaction and
branch summaries, extension (custom) messages. Each has a label line and a body."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from pi_runtime.frontend import terminal_safe

from .render import OUTPUT_PREVIEW_LINES
from .visual_tail import VisualTail

LIVE_OUTPUT_CHARS = 64 * 1024
"""What a running ``!`` command's panel keeps of its output: the end, in whole lines. The
finished command's panel shows the recorded output, which is cut the same way (2,000 lines or
50 KB); keeping all of it made a flood of output (``yes``) freeze the app, each update copying
and splitting everything so far."""


def cut_output_note(truncated: bool, full_output_path: str | None) -> str:
    """Pi's line under a ``!`` command whose output was cut: where the whole of it was saved."""
    return f"Output truncated. Full output: {terminal_safe(full_output_path)}" if truncated and full_output_path else ""


class MessagePanel(Vertical):
    """A labelled panel; ``variant`` is bash, compaction, branch or custom (CSS picks colours)."""

    def __init__(self, label: str, body: str, variant: str, *, message: Any = None, expanded: bool = False,
                 note: str = "") -> None:
        super().__init__(classes=f"message-panel panel-{variant}")
        self.label = label
        self.body = body
        self.variant = variant
        self.message = message
        self.expanded = expanded
        """Show the whole body (bash output is otherwise cut to its last lines)."""
        self.dropped_lines = 0
        """Lines of a running command's output no longer kept at the front of ``body``."""
        self.note = note
        """A warning under the body: where a cut command's whole output was saved, as Pi says it."""

    def compose(self) -> ComposeResult:
        yield Static(Text(self.label, style="bold"), classes="panel-label", markup=False)
        body = Static(self._body_text(), classes="panel-body", markup=False)
        body.display = self._has_body()
        yield body
        note = Static(Text(self.note), classes="panel-note", markup=False)
        note.display = bool(self.note)
        yield note

    def _body_text(self) -> RenderableType:
        if self.variant == "bash":
            # A command's colours and cursor moves are shown as plain text, as Pi shows them.
            body = terminal_safe(self.body, multiline=True)
            if not self.expanded:
                return VisualTail(body, OUTPUT_PREVIEW_LINES, hidden_before=self.dropped_lines,
                                  hint=lambda hidden: Text(f"… {hidden} earlier lines"))
            prefix = f"… {self.dropped_lines} earlier lines\n" if self.dropped_lines else ""
            return Text(prefix + body.rstrip("\n"))
        return Text(self.body)

    def append_output(self, delta: str) -> None:
        """More live output of a running ``!`` command (its end is kept: ``LIVE_OUTPUT_CHARS``)."""
        body = self.body + delta
        if len(body) > LIVE_OUTPUT_CHARS:
            cut = len(body) - LIVE_OUTPUT_CHARS
            cut = body.find("\n", cut) + 1 or cut  # from the start of a line
            self.dropped_lines += body.count("\n", 0, cut)
            body = body[cut:]
        self.body = body
        self._redraw_body()

    def set_output(self, output: str) -> None:
        """The finished command's recorded output, in place of the live one."""
        self.body = output
        self.dropped_lines = 0
        self._redraw_body()

    def set_note(self, note: str) -> None:
        self.note = note
        if self.is_mounted:
            shown = self.query_one(".panel-note", Static)
            shown.update(Text(note))
            shown.display = bool(note)

    def set_label(self, label: str) -> None:
        self.label = label
        if self.is_mounted:
            self.query_one(".panel-label", Static).update(Text(label, style="bold"))

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self._redraw_body()

    def _has_body(self) -> bool:
        # A command without output (``!true``, one cancelled at once) is its label alone, as in Pi.
        return self.variant != "bash" or bool(self.body) or bool(self.dropped_lines)

    def _redraw_body(self) -> None:
        if self.is_mounted:
            shown = self.query_one(".panel-body", Static)
            shown.update(self._body_text())
            shown.display = self._has_body()
