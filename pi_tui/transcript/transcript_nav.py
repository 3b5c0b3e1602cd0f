"""Finding things in the mounted transcript: each block's source text, a selected block.

The transcript's blocks keep what they show (``.text`` of markdown and thinking, ``.body``
of panels, the kernel message of prompts, tool name/arguments/output), so search and copy
work on the source text (no wrapping, no padding), not on the rendered cells.
``Ctrl+Shift+Up/Down`` move a selection over the blocks (class ``message-selected``);
``Ctrl+X`` copies the selected block's source, or the last answer when nothing is selected.
"""

from __future__ import annotations

import json
from typing import Any

from textual.widget import Widget

SELECTED = "message-selected"
"""CSS class of the selected block (styled in ``search_bar.HIGHLIGHT_CSS``)."""


def source_text(widget: Widget) -> str:
    """The source text a transcript block shows ("" for blocks without text)."""
    from .history import user_text

    name = type(widget).__name__
    if name == "UserMessage":
        message = getattr(widget, "message", None)
        if message is not None:
            return user_text(message.content)
    if name == "ToolBox":
        args = getattr(widget, "args", {}) or {}
        shown = args.get("command") or args.get("path") or json.dumps(args, ensure_ascii=False)
        return f"{getattr(widget, 'tool_name', '')} {shown}\n{getattr(widget, 'output', '')}".rstrip()
    if hasattr(widget, "body") and hasattr(widget, "label") and isinstance(widget.body, str):
        return f"{widget.label}\n{widget.body}".rstrip()
    text = getattr(widget, "text", None)
    if isinstance(text, str):
        return text
    content = getattr(widget, "content", None)  # Static (notices)
    return str(content) if content is not None else ""


def blocks(transcript: Widget) -> list[Widget]:
    """The transcript's top-level blocks in display order."""
    return list(transcript.children)


def selected_block(transcript: Widget) -> Widget | None:
    """The block carrying the selection class, if any."""
    for widget in transcript.children:
        if widget.has_class(SELECTED):
            return widget
    return None


def clear_selection(transcript: Widget) -> bool:
    """Remove the selection; True when there was one."""
    widget = selected_block(transcript)
    if widget is None:
        return False
    widget.remove_class(SELECTED)
    return True


def move_selection(transcript: Any, step: int) -> Widget | None:
    """Select the previous (``-1``) or next (``1``) block with text and scroll to it.

    With no selection, ``-1`` starts from the newest block and ``1`` from the oldest.
    Moving past either end clears the selection (back to following the output).
    """
    items = [w for w in blocks(transcript) if source_text(w).strip()]
    if not items:
        return None
    current = selected_block(transcript)
    if current is not None and current in items:
        index = items.index(current) + step
    else:
        index = len(items) - 1 if step < 0 else 0
    clear_selection(transcript)
    if not 0 <= index < len(items):
        transcript.scroll_end(animate=False)
        transcript.anchor()
        return None
    target = items[index]
    target.add_class(SELECTED)
    transcript.release_anchor()
    transcript.scroll_to_widget(target, animate=False, top=True)
    return target
