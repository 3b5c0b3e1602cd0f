"""Markdown as one Rich renderable per block, styled from the Pi theme.

Streaming uses Rich's Markdown inside plain ``Static`` widgets rather than Textual's
``Markdown`` widget: a Textual Markdown block is a tree of widgets, and every frame's
layout pass walks all of them, which made long answers slower the longer they got. A
``Static`` per finished block keeps the widget count (and the per-frame layout) small.
"""

from __future__ import annotations

from typing import ClassVar

from rich.markdown import Heading, Markdown
from rich.theme import Theme


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, str]] = {f"h{i}": "left" for i in range(1, 7)}  # type: ignore[assignment]


class PiMarkdown(Markdown):
    """Rich Markdown with left-aligned headings."""

    elements = {**Markdown.elements, "heading_open": _LeftHeading}

    code_theme = "monokai"
    """Pygments theme for code blocks (the app switches it with the theme's appearance)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, code_theme=PiMarkdown.code_theme, hyperlinks=False)


def markdown_theme(v: dict[str, str]) -> Theme:
    """Rich ``markdown.*`` styles from the app's ``pi-*`` theme variables."""
    heading = v.get("pi-md-heading", "yellow")
    return Theme({
        "markdown.h1": f"bold underline {heading}",
        "markdown.h2": f"bold {heading}",
        "markdown.h3": f"bold {heading}",
        "markdown.h4": f"italic {heading}",
        "markdown.h5": f"italic {heading}",
        "markdown.h6": f"italic {heading}",
        "markdown.code": f"{v.get('pi-md-code', 'cyan')}",
        "markdown.code_block": f"{v.get('pi-md-code-block', '')}".strip() or "none",
        "markdown.link": v.get("pi-md-link", "blue"),
        "markdown.link_url": v.get("pi-md-link-url", "blue"),
        "markdown.block_quote": v.get("pi-md-quote", "magenta"),
        "markdown.hr": v.get("pi-md-hr", "dim"),
        "markdown.item.bullet": f"bold {v.get('pi-md-list-bullet', 'yellow')}",
        "markdown.item.number": f"bold {v.get('pi-md-list-bullet', 'yellow')}",
    })
