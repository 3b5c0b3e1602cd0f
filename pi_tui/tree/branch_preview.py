"""``BranchPreview``: a tree point's path, read-only, where the live transcript was.

The tree pane shows it while its cursor rests on an entry other than the current leaf. The
live ``Transcript`` is only hidden meanwhile, never cleared: the agent's output keeps going
into it, and Esc brings it back as it is. The banner says plainly that this is a preview and
how to leave it. Only the newest messages of the path are shown (a screenful and some), so a
preview of a 20,000-message path costs the same as a short one.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ..transcript.transcript import Transcript

PREVIEW_MESSAGES = 24
"""Newest messages of the previewed path that are drawn (two screenfuls or so; each costs a few ms to mount)."""


class BranchPreview(Vertical):
    """Banner plus a transcript of someone else's branch (no session: nothing is live here)."""

    DEFAULT_CSS = """
    BranchPreview { height: 1fr; width: 1fr; }
    BranchPreview #tree-preview-banner {
        height: auto;
        padding: 0 1;
        background: $pi-selected-bg;
        color: $pi-warning;
        text-style: bold;
    }
    BranchPreview #tree-preview-transcript {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-background: $pi-bg;
    }
    """

    def __init__(self, cwd: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cwd = cwd
        self.entry_id: str | None = None
        """The entry whose path is shown (None: nothing shown yet)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="tree-preview-banner")
        yield Transcript(None, cwd=self.cwd, id="tree-preview-transcript")

    async def show(self, entry_id: str, messages: list[Any], title: str, *, tools_expanded: bool = False,
                   thinking_collapsed: bool = False) -> None:
        """Draw the path to ``entry_id`` (``messages``: its newest messages) under a banner naming it."""
        self.entry_id = entry_id
        # A Text, not markup: the row's text is the user's ("[system]", "fix [/x]") and shown as it is.
        self.query_one("#tree-preview-banner", Static).update(
            Text(f"PREVIEW of {title} · enter: continue here · esc: back to live"))
        transcript = self.query_one(Transcript)
        transcript.tools_expanded = tools_expanded
        transcript.thinking_collapsed = thinking_collapsed
        # The resumed-session preview path: these messages, all mounted, nothing read back from a
        # session (load_messages would page older messages in from one, and this view has none).
        with self.app.batch_update():
            await transcript.remove_children()
            transcript.forget_live_blocks()
            await transcript.show_preview(messages)
