"""A compaction or branch summary in the transcript, collapsed to a few lines until Ctrl+O.

It is a ``MessagePanel`` so the transcript's Ctrl+O (``set_tools_expanded``) expands and
collapses it along with tool output.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from .message_panel import MessagePanel

PREVIEW_LINES = 3
"""Summary lines shown while collapsed."""


class SummaryPanel(MessagePanel):
    """The summary's label and, collapsed, its first lines with a count of the rest."""

    def __init__(self, label: str, body: str, variant: str = "compaction", *, message: Any = None,
                 expanded: bool = False) -> None:
        super().__init__(label, body, variant, message=message, expanded=expanded)

    def _body_text(self) -> Text:
        lines = self.body.strip().splitlines()
        # The preview skips blank lines and rules so it shows three lines of content.
        content = [line for line in lines if line.strip() and line.strip("-— ")]
        if self.expanded or len(content) <= PREVIEW_LINES:
            return Text(self.body.strip())
        text = Text("\n".join(content[:PREVIEW_LINES]))
        text.append(f"\n… {len(content) - PREVIEW_LINES} more lines (ctrl+o to expand)", style="dim italic")
        return text


def compaction_panel(message: Any, expanded: bool = False) -> SummaryPanel:
    """The panel for a ``compactionSummary`` message."""
    label = f"Compacted context ({message.tokens_before:,} tokens before)"
    return SummaryPanel(label, message.summary, "compaction", message=message, expanded=expanded)
