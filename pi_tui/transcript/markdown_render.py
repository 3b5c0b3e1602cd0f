"""Markdown as one Rich renderable per block, styled from the Pi theme.

Streaming uses Rich's Markdown drawn through ``StreamingMarkdown``'s line API rather than
Textual's ``Markdown`` widget: a Textual Markdown block is a tree of widgets, and every
frame's layout pass walks all of them, which made long answers slower the longer they got.

Importing this module is cheap: ``rich.markdown`` (markdown-it, Pygments) loads on the
first ``markdown_renderable`` call, after the first frame is on screen, not at start-up.
"""

from __future__ import annotations

import gc
import io
from typing import TYPE_CHECKING, Any

from rich.text import Text
from rich.theme import Theme

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
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


LONG_CODE_LINES = 400
"""Code fences from this many lines on are highlighted piece by piece (``code_lines``)."""
CODE_PIECE_LINES = 50
KEPT_CODE_PIECES = 640
"""Highlighted pieces kept (a 32,000-line fence; the oldest goes first)."""


def _build_class() -> type:
    from collections import OrderedDict
    from functools import lru_cache
    from typing import ClassVar

    from markdown_it import MarkdownIt
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound
    from rich import box
    from rich.markdown import BlockQuote, CodeBlock, Heading, HorizontalRule, ListItem, Markdown, TableElement
    from rich.segment import Segment
    from rich.style import Style
    from rich.syntax import Syntax
    from rich.table import Table
    from rich.text import Text

    from .code_highlight import quick_highlight

    class _PiHeading(Heading):
        """Pi's headings: the text alone for levels 1 and 2, ``### `` kept from level 3 on."""

        LEVEL_ALIGN: ClassVar[dict[str, str]] = {f"h{i}": "left" for i in range(1, 7)}  # type: ignore[assignment]

        def __rich_console__(self, console: Any, options: Any) -> Any:
            text = self.text.copy()
            level = int(self.tag[1:])
            if level >= 3:
                text = Text("#" * level + " ", style=self.style_name) + text
            text.justify = "left"
            yield text

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
        """As Pi draws a fence: the ```` ```lang ```` and ```` ``` ```` lines kept, the code indented
        two columns on the terminal's own background, no padding rows (a padded block took three
        blank rows on each side)."""

        @classmethod
        def create(cls, markdown: Any, token: Any) -> Any:
            block = super().create(markdown, token)
            block.fence_info = (token.info or "").partition(" ")[0] if token.type == "fence" else ""  # type: ignore[attr-defined]
            return block

        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = str(self.text).rstrip("\n")
            yield from fence_part(console, options, code, self.lexer_name, self.theme,
                                  getattr(self, "fence_info", ""), opener=True, closer=True)

    def fence_part(console: Console, options: ConsoleOptions, code: str | None, lexer_name: str, theme: str,
                   info: str, *, opener: bool, closer: bool) -> RenderResult:
        """A fence as ``_CodeBlock`` draws it, or a part of one (``long_fence`` draws a long fence
        a piece at a time): the opening line, the code (None: none), the closing line."""
        border = console.get_style("markdown.code_block_border", default="none")
        if opener:
            yield Text("```" + info, style=border)
        if code is not None:
            indent = Segment("  ")
            width = max(1, options.max_width - 2)
            for line in code_lines(console, options.update(width=width), code, lexer_name, theme):
                yield indent
                yield from line
                yield Segment.line()
        if closer:
            yield Text("```", style=border)

    class _FencePart:
        def __init__(self, code: str | None, info: str, theme: str, opener: bool, closer: bool) -> None:
            self.code, self.info, self.theme, self.opener, self.closer = code, info, theme, opener, closer

        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            # Rich's Markdown renders a document in its own style ("none" here): the same base.
            yield from fence_part(console, options, self.code, self.info or "text", self.theme, self.info,
                                  opener=self.opener, closer=self.closer)

    def highlight(console: Any, options: Any, code: str, lexer_name: str, theme: str) -> list[list[Segment]]:
        lexer = lexer_for(lexer_name)
        quick = quick_highlight(code, lexer, syntax_theme(theme), options.max_width)
        if quick is not None:
            return quick
        syntax = Syntax(code, lexer, theme=syntax_theme(theme), word_wrap=True)
        lines = []
        for line in console.render_lines(syntax, options, pad=False):
            # The token colours only: the block sits on the transcript's background.
            lines.append([Segment(segment.text, segment.style and Style(
                color=segment.style.color, bold=segment.style.bold, italic=segment.style.italic,
                underline=segment.style.underline)) for segment in line])
        return lines

    pieces: OrderedDict[tuple[str, str, str, int], list[list[Segment]]] = OrderedDict()

    def code_lines(console: Any, options: Any, code: str, lexer_name: str, theme: str) -> list[list[Segment]]:
        """``code`` highlighted, a list of segments per screen line.

        A long fence (``LONG_CODE_LINES`` and more) is highlighted ``CODE_PIECE_LINES`` at a time
        and every piece that more code follows is kept: while the model writes one, the block
        is drawn again each frame and only its last piece is new (highlighting all of it each
        time took seconds per frame for a few thousand lines). A construct that spans two
        pieces (a long docstring) may be coloured as if it started at the second one.
        """
        source = code.split("\n")
        if len(source) < LONG_CODE_LINES:
            return highlight(console, options, code, lexer_name, theme)
        lines: list[list[Segment]] = []
        for start in range(0, len(source), CODE_PIECE_LINES):
            piece = "\n".join(source[start:start + CODE_PIECE_LINES])
            if start + CODE_PIECE_LINES >= len(source):  # the last piece: still growing
                lines.extend(highlight(console, options, piece, lexer_name, theme))
                continue
            key = (piece, lexer_name, theme, options.max_width)
            done = pieces.get(key)
            if done is None:
                done = pieces[key] = highlight(console, options, piece, lexer_name, theme)
                while len(pieces) > KEPT_CODE_PIECES:
                    pieces.popitem(last=False)
            else:
                pieces.move_to_end(key)
            lines.extend(done)
        return lines

    class _PiListItem(ListItem):
        """``- item`` and ``1. item`` at the left edge, as Pi lists them."""

        def render_bullet(self, console: Any, options: Any) -> Any:
            yield from self._with_marker(console, options, "- ", console.get_style("markdown.item.bullet", default="none"))

        def render_number(self, console: Any, options: Any, number: int, last_number: int) -> Any:
            marker = f"{number}. ".ljust(len(str(last_number)) + 2)
            yield from self._with_marker(console, options, marker, console.get_style("markdown.item.number", default="none"))

        def _with_marker(self, console: Any, options: Any, marker: str, style: Any) -> Any:
            lines = console.render_lines(self.elements, options.update(width=max(1, options.max_width - len(marker))),
                                         style=self.style)
            padding = Segment(" " * len(marker))
            for index, line in enumerate(lines):
                yield Segment(marker, style) if index == 0 else padding
                yield from line
                yield Segment.line()

    class _PiBlockQuote(BlockQuote):
        """``│ `` before each quoted line (Rich draws ``▌``)."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            lines = console.render_lines(self.elements, options.update(width=max(1, options.max_width - 2)),
                                         style=self.style)
            border = Segment("│ ", console.get_style("markdown.block_quote_border", default="none"))
            for line in lines:
                yield border
                yield from line
                yield Segment.line()

    class _PiRule(HorizontalRule):
        """A line of ``─`` at most 80 columns wide (Rich draws dashes across the whole width)."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            yield Text("─" * min(options.max_width, 80), style=console.get_style("markdown.hr", default="none"))

    class _PiTable(TableElement):
        """A boxed grid with a rule under the header and between rows, as Pi draws tables."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            table = Table(box=box.SQUARE, show_lines=True, style="markdown.table.border",
                          header_style="bold")
            if self.header is not None and self.header.row is not None:
                for column in self.header.row.cells:
                    table.add_column(column.content.copy())
            if self.body is not None:
                for row in self.body.rows:
                    table.add_row(*(cell.content for cell in row.cells))
            yield table

    # HTML is not rendered, so it must not be parsed either: Rich drops HTML tokens, and "Vec<String>" or
    # a model's "<think>" tags lost their text. Shown as written, as Pi shows them.
    parser = MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")

    class _PiMarkdown(Markdown):
        elements = {**Markdown.elements, "heading_open": _PiHeading, "fence": _CodeBlock, "code_block": _CodeBlock,
                    "list_item_open": _PiListItem, "blockquote_open": _PiBlockQuote, "hr": _PiRule,
                    "table_open": _PiTable}

        def __init__(self, markup: str, code_theme: str) -> None:
            # Rich builds a new MarkdownIt parser per document (~1 ms); one shared parser will do.
            self.markup = markup
            self.parsed = parser.parse(markup)
            # A single newline stays a line break, as Pi shows it (CommonMark joins the lines): a
            # model's "Name: x" / "Age: y" lines, a quote's lines, an address, a poem.
            # An image is its alt text where it stands, as Pi shows it (Rich drew "🌆 alt" as a block
            # of its own, ahead of the paragraph it was in).
            for block in self.parsed:
                for token in block.children or ():
                    if token.type == "softbreak":
                        token.type = "hardbreak"
                    elif token.type == "image":
                        token.type, token.tag, token.children = "text", "", None
            self.code_theme = code_theme
            self.justify = None
            self.style = "none"
            self.hyperlinks = False
            self.inline_code_lexer = None
            self.inline_code_theme = code_theme

    _PiMarkdown.fence_part = _FencePart  # type: ignore[attr-defined]
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


def fence_part_renderable(code: str | None, info: str, *, opener: bool = False, closer: bool = False) -> RenderableType:
    """A part of a code fence exactly as ``markdown_renderable`` draws it in a whole fence: its
    opening line (```` ```info ````), code lines (``code``, highlighted with ``info`` as the
    lexer's name), its closing line; see ``long_fence``."""
    global _markdown_class
    if _markdown_class is None:
        _markdown_class = _build_class()
    part: RenderableType = _markdown_class.fence_part(code, info, CODE_THEME["name"], opener, closer)  # type: ignore[attr-defined]
    return part


_MARKUP_CHARACTERS = frozenset("\\`*_~[]<>&|")
"""Characters that can start Markdown syntax inside a line (escapes, code, emphasis, strike-through,
links and images, HTML and autolinks, entities, table cells)."""


def plain_paragraph(text: str) -> RenderableType | None:
    """``text`` drawn as ``markdown_renderable`` would draw it, without the Markdown stack, when it
    is one line of prose with no Markdown in it; None otherwise.

    The first words of most answers are such a line: they reach the screen without markdown-it
    and Rich's Markdown (about 30 ms of imports and set-up) being loaded first. A line that starts
    with a letter and holds none of ``_MARKUP_CHARACTERS`` parses as one paragraph of one text run
    in markdown-it's CommonMark preset (no linkify, no typographer), so Rich's Markdown would draw
    one ``Text`` in the ``markdown.paragraph`` style, left-justified: exactly what this draws
    (``tests/tui/test_plain_paragraph.py`` compares the two).
    """
    if not text or not text[0].isalpha() or text != text.strip() or not text.isprintable():
        return None
    if not _MARKUP_CHARACTERS.isdisjoint(text):
        return None
    return _PlainParagraph(text)


class _PlainParagraph:
    """One paragraph of prose, styled as Rich's Markdown styles a paragraph."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Rich's Markdown: the document's style ("none" here), then the paragraph's on top of it.
        style = console.get_style("none", default="none") + console.get_style("markdown.paragraph", default="none")
        paragraph = Text(justify="left")
        paragraph.append(self.text, style)
        yield from console.render(paragraph, options.update(height=None))


def warm_up(code: bool = True) -> None:
    """Import and exercise the Markdown stack (markdown-it; with ``code``, Pygments too) ahead of
    the answer that needs it.

    Safe to call from a worker thread: it only imports and renders to a private console.
    """
    from rich.console import Console

    sample = "# a\n\n- `b`" + ("\n\n```python\nc = 1\n```" if code else "")
    Console(width=40, file=_NullFile()).print(markdown_renderable(sample))
    # What it loaded (markdown-it, Pygments' lexers and styles) lives as long as the process: out of
    # the collector's reach, or the first full collection while an answer streams scans it all
    # (measured: a 190 ms pause in the middle of a 20,000-word answer).
    gc.freeze()


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
        "markdown.h4": f"bold {heading}",
        "markdown.h5": f"bold {heading}",
        "markdown.h6": f"bold {heading}",
        "markdown.code": f"{v.get('pi-md-code', 'cyan')}",
        "markdown.code_block": f"{v.get('pi-md-code-block', '')}".strip() or "none",
        "markdown.link": v.get("pi-md-link", "blue"),
        "markdown.link_url": v.get("pi-md-link-url", "blue"),
        "markdown.block_quote": f"italic {v.get('pi-md-quote', 'magenta')}",
        "markdown.block_quote_border": v.get("pi-md-quote-border", "") or "none",
        "markdown.code_block_border": v.get("pi-md-code-block-border", "") or "none",
        "markdown.hr": v.get("pi-md-hr", "dim"),
        "markdown.table.border": "none",  # Pi draws the grid in the text colour
        "markdown.item.bullet": f"bold {v.get('pi-md-list-bullet', 'yellow')}",
        "markdown.item.number": f"bold {v.get('pi-md-list-bullet', 'yellow')}",
    })
