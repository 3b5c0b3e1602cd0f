"""Markdown as one Rich renderable per block, styled from the Pi theme.

Streaming uses Rich's Markdown drawn through ``StreamingMarkdown``'s line API rather than
Textual's ``Markdown`` widget: a Textual Markdown block is a tree of widgets, and every
frame's layout pass walks all of them, which made long answers slower the longer they got.

Importing this module is cheap: ``rich.markdown`` (markdown-it, Pygments) loads on the
first ``markdown_renderable`` call, after the first frame is on screen, not at start-up.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rich.theme import Theme

if TYPE_CHECKING:
    from rich.markdown import Markdown

CODE_THEME = {"name": "monokai"}
"""Pygments theme for code blocks (the app switches it with the theme's appearance)."""

_markdown_class: type | None = None


def set_code_theme(name: str) -> None:
    """Use Pygments theme ``name`` for code blocks rendered from now on."""
    CODE_THEME["name"] = name


def code_theme() -> str:
    """The Pygments theme code blocks are rendered with."""
    return CODE_THEME["name"]


def _build_class() -> type:
    from functools import lru_cache
    from typing import ClassVar

    from markdown_it import MarkdownIt
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound
    from rich.markdown import CodeBlock, Heading, Markdown
    from rich.syntax import Syntax

    class _LeftHeading(Heading):
        LEVEL_ALIGN: ClassVar[dict[str, str]] = {f"h{i}": "left" for i in range(1, 7)}  # type: ignore[assignment]

    @lru_cache(maxsize=64)
    def lexer_for(name: str) -> Any:
        # Rich looks the lexer up (and builds a new one) for every code block it draws; a
        # streamed answer with many fences spent a third of its drawing time there.
        try:
            return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
        except ClassNotFound:
            return name

    syntax_theme = lru_cache(maxsize=8)(Syntax.get_theme)

    class _CodeBlock(CodeBlock):
        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = str(self.text).rstrip()
            yield Syntax(code, lexer_for(self.lexer_name), theme=syntax_theme(self.theme), word_wrap=True, padding=1)

    parser = MarkdownIt().enable("strikethrough").enable("table")

    class _PiMarkdown(Markdown):
        elements = {**Markdown.elements, "heading_open": _LeftHeading, "fence": _CodeBlock, "code_block": _CodeBlock}

        def __init__(self, markup: str, code_theme: str) -> None:
            # Rich builds a new MarkdownIt parser per document (~1 ms); one shared parser will do.
            self.markup = markup
            self.parsed = parser.parse(markup)
            self.code_theme = code_theme
            self.justify = None
            self.style = "none"
            self.hyperlinks = False
            self.inline_code_lexer = None
            self.inline_code_theme = code_theme

    return _PiMarkdown


def markdown_renderable(text: str, code_theme_name: str | None = None) -> Markdown:
    """Rich Markdown for ``text`` with left-aligned headings and the current code theme.

    Args:
        text: Markdown source.
        code_theme_name: Pygments theme for its code blocks (default: the app's, ``code_theme()``).

    Returns:
        A ``rich.markdown.Markdown`` (a subclass whose headings are left-aligned).
    """
    global _markdown_class
    if _markdown_class is None:
        _markdown_class = _build_class()
    markdown: Any = _markdown_class(text, code_theme_name or CODE_THEME["name"])
    return markdown


def warm_up() -> None:
    """Import and exercise the Markdown stack (markdown-it, Pygments) ahead of the first answer.

    Safe to call from a worker thread: it only imports and renders to a private console.
    """
    from rich.console import Console

    Console(width=40, file=_NullFile()).print(markdown_renderable("# a\n\n- `b`\n\n```python\nc = 1\n```"))


class _NullFile(io.StringIO):
    """Swallows what the warm-up renders."""

    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass


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
