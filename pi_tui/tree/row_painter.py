"""One tree row as a strip of styled cells, in the ``/tree`` browser's look, for the tree pane.

Same reading as the browser: ``› `` on the cursor, the guides, the role in its theme colour,
labels in brackets, ``(+N)`` under a fold, ``← current`` on the leaf; rows off the active path
are dimmed. Colours are read from the theme's ``pi-*`` variables when the theme changes.

Deep rows (guides wider than a narrow pane) are panned as Pi's tree does: when the selected
row's text would start too far right to read, every row is shifted left by the same amount
(the cursor column stays), so the selected text and its neighbours' stay in sight.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from .tree_rows import TreeRows

_KIND_VAR = {"user": "pi-accent", "assistant": "pi-success", "error": "pi-error", "tool": "pi-dim", "system": "pi-dim",
             "bash": "pi-bash-mode", "compaction": "pi-border-accent", "branch_summary": "pi-border-accent",
             "custom_message": "pi-custom-message-label"}


GUTTER = 2
"""The cursor column (``› ``), never panned away."""


def pan_offset(tree: TreeRows, width: int) -> int:
    """Columns to pan the rows left so the selected row's text can be read in ``width`` cells."""
    if not tree.visible:
        return 0
    row_index = tree.visible[min(max(tree.cursor, 0), len(tree.visible) - 1)]
    anchor = len(tree.rows[row_index].guide) + (2 if row_index in tree.folded else 0)
    view = max(0, width - GUTTER)
    readable = min(24, max(10, view // 3))
    if anchor <= view - readable:
        return 0
    context = min(12, max(2, view // 4))
    return max(0, anchor - context)


class RowPainter:
    """Draws rows of a ``TreeRows``; ``set_colors`` after a theme change."""

    def __init__(self) -> None:
        self.styles: dict[str, Style] = {}
        self.show_label_times = False

    def set_colors(self, variables: dict[str, Any]) -> None:
        def color(name: str, fallback: str) -> str:
            return variables.get(name) or fallback

        text, muted = color("pi-text", "#d0d0d0"), color("pi-muted", "#808080")
        self.styles = {
            "base": Style(color=text),
            "off": Style(color=muted),
            "on": Style(color=text),
            "guide": Style(color=color("pi-dim", "#606060")),
            "label": Style(color=color("pi-warning", "#e0c060")),
            "leaf": Style(color=color("pi-accent", "#60a0ff"), bold=True),
            "fold": Style(color=color("pi-accent", "#60a0ff")),
            "cursor": Style(bgcolor=color("pi-selected-bg", "#3a3a4a")),
            **{kind: Style(color=color(var, text)) for kind, var in _KIND_VAR.items()},
        }

    def paint(self, tree: TreeRows, index: int, width: int, selected: bool, leaf_row: int) -> Strip:
        """Visible row ``index`` of ``tree``, ``width`` cells wide."""
        s = self.styles
        row_index = tree.visible[index]
        row = tree.rows[row_index]
        base = s["on"] if row.on_path else s["off"]
        kind_style = s.get(row.kind)
        if kind_style is not None and not row.on_path:
            kind_style = kind_style + Style(dim=True)
        parts: list[tuple[str, Style]] = [(row.guide, s["guide"])]
        if row_index in tree.folded:
            parts.append(("▸ ", s["fold"]))
        head, sep, rest = row.text.partition(": ")
        if sep and row.kind in ("user", "assistant", "error") and kind_style is not None:
            parts += [(head + sep, kind_style + Style(bold=row.on_path)), (rest, base)]
        else:
            dimmed = row.kind in ("tool", "system")  # dim as in Pi's tree
            parts.append((row.text, kind_style if kind_style is not None and dimmed else base))
        # Labels, folds and the leaf marker stay in sight in a narrow pane: the text gives way.
        tail: list[tuple[str, Style]] = []
        label = tree.label_of(row_index)
        if label is not None:
            when = f" · {label.timestamp[:16].replace('T', ' ')}" if self.show_label_times and label.timestamp else ""
            tail.append((f"  [{label.text}{when}]", s["label"]))
        hidden = tree.hidden_below(row_index)
        if hidden:
            tail.append((f"  (+{hidden})", s["fold"]))
        if row_index == leaf_row:
            tail.append(("  ← current", s["leaf"]))
        body = Strip([Segment(text, style) for text, style in parts if text])
        shift = pan_offset(tree, width)
        if shift:
            body = body.crop(min(shift, body.cell_length), body.cell_length)
        head_strip = Strip.join([Strip([Segment("› " if selected else "  ", s["leaf"])]), body])
        tail_strip = Strip([Segment(text, style) for text, style in tail])
        room = width - tail_strip.cell_length
        if head_strip.cell_length > room > 1:
            head_strip = Strip.join([head_strip.crop(0, room - 1), Strip([Segment("…", base)])])
        strip = Strip.join([head_strip, tail_strip])
        strip = strip.crop(0, width) if strip.cell_length > width else strip
        strip = strip.adjust_cell_length(width, s["base"])
        return strip.apply_style(s["cursor"]) if selected else strip
