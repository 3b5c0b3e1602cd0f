"""A compaction or branch summary in the transcript, as Pi shows it: one line while collapsed
(``Compacted from 12,345 tokens (ctrl+o to expand)``, ``Branch summary (ctrl+o to expand)``), the
whole summary as Markdown when expanded.

It is a ``MessagePanel`` so the transcript's Ctrl+O (``set_tools_expanded``) expands and
collapses it along with tool output; a click toggles just this one.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from .message_panel import MessagePanel


class SummaryPanel(MessagePanel):
    """A summary under its ``[compaction]`` or ``[branch]`` label."""

    def __init__(self, label: str, body: str, variant: str, *, collapsed: str, heading: str,
                 message: Any = None, expanded: bool = False) -> None:
        super().__init__(label, body, variant, message=message, expanded=expanded)
        self.collapsed_text = collapsed
        """What the collapsed panel says before ``(<key> to expand)``."""
        self.heading = heading
        """The bold first line of the expanded summary."""

    def _body_text(self) -> RenderableType:
        if self.expanded:
            from .markdown_render import markdown_renderable

            return markdown_renderable(f"**{self.heading}**\n\n{self.body.strip()}")
        keymap = getattr(self.app, "keymap", None) if self.is_attached else None
        key = keymap.first_key("app.tools.expand") if keymap is not None else "ctrl+o"
        text = Text(f"{self.collapsed_text} (")
        text.append(key or "ctrl+o", style="dim")
        text.append(" to expand)")
        return text

    def on_click(self) -> None:
        self.set_expanded(not self.expanded)


def compaction_panel(message: Any, expanded: bool = False) -> SummaryPanel:
    """The panel for a ``compactionSummary`` message."""
    tokens = f"{message.tokens_before:,}"
    return SummaryPanel("[compaction]", message.summary, "compaction", collapsed=f"Compacted from {tokens} tokens",
                        heading=f"Compacted from {tokens} tokens", message=message, expanded=expanded)


def branch_panel(message: Any, expanded: bool = False) -> SummaryPanel:
    """The panel for a ``branchSummary`` message (the branch the user left, summarised)."""
    return SummaryPanel("[branch]", message.summary, "branch", collapsed="Branch summary",
                        heading="Branch Summary", message=message, expanded=expanded)
