"""Code highlighted straight from Pygments' tokens, as Rich's ``Syntax`` would draw it for a fence.

Rich's ``Syntax`` builds one ``Text`` of the whole code, splits it into lines, wraps and pads
each one and renders it through the console: 0.17 ms a line, of which Pygments' own lexing is a
quarter. Highlighting was 72% of the app's time drawing a streamed 20,000-line fence (py-spy).
``quick_highlight`` builds the same segments from the tokens in one pass when no line needs
wrapping, and leaves the other cases to Rich.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

_RICH_DROPS = re.compile("[\x07\x08\x0b\x0c\x0d]")
"""Control characters Rich's ``Text`` removes (code holding one is left to Rich)."""
_TAB_SIZE = 4
"""Rich's ``Syntax`` default, which the fences use."""
_UNSEEN: Any = object()


def kept_style(style: Style) -> Style:
    """The parts of a code style a fence keeps: colour and emphasis (it sits on the transcript's background)."""
    return Style(color=style.color, bold=style.bold, italic=style.italic, underline=style.underline)


class _ThemeStyles:
    """A Pygments theme's final style per token type (None: unstyled), worked out once per type."""

    def __init__(self, theme: Any) -> None:
        self.theme = theme
        self.background = theme.get_background_style()
        self.plain = kept_style(self.background)
        """Unstyled text and the padding after the last token."""
        self.transparent = self.background.transparent_background
        """A theme without a background of its own (Rich neither pads nor styles its unstyled text)."""
        self.by_type: dict[Any, Style | None] = {}

    def of(self, token_type: Any) -> Style | None:
        style = self.by_type.get(token_type, _UNSEEN)
        if style is _UNSEEN:
            own = self.theme.get_style_for_token(token_type)
            style = self.by_type[token_type] = kept_style(self.background + own) if own else None
        return style


_themes: dict[int, _ThemeStyles] = {}


def quick_highlight(code: str, lexer: Any, theme: Any, width: int) -> list[list[Segment]] | None:
    """``code`` as Rich's ``Syntax(code, lexer, theme=theme, word_wrap=True)`` renders it at ``width``,
    each segment's style reduced by ``kept_style``: one list of segments per line.

    The segments are cut where Rich cuts them: a styled token is a segment of its own (even
    beside one of the same style), unstyled text between two is one segment, and the padding
    to ``width`` joins the unstyled text that ends a line. Returns None when Rich must do it:
    a line wider than ``width`` (Rich wraps it), control characters Rich drops, a trailing
    newline (Rich keeps a blank line for it), a lexer given by name, an empty styled token, a theme without a background
    (the ANSI ones; pi's are ``monokai`` and ``friendly``).

    Args:
        code: the code, without the fence lines.
        lexer: a Pygments lexer instance.
        theme: a Rich ``SyntaxTheme`` (``Syntax.get_theme``).
        width: columns the code may take.
    """
    if isinstance(lexer, str) or code.endswith("\n") or width <= 0 or _RICH_DROPS.search(code):
        return None
    code = code.expandtabs(_TAB_SIZE)
    pads = [width - cell_len(row) for row in code.split("\n")]
    if min(pads) < 0:
        return None
    styles = _themes.get(id(theme))
    if styles is None or styles.theme is not theme:
        styles = _themes[id(theme)] = _ThemeStyles(theme)
    if styles.transparent:
        return None
    plain_style = styles.plain
    lines: list[list[Segment]] = []
    line: list[Segment] = []
    plain = ""  # unstyled text not yet in ``line``
    for token_type, value in lexer.get_tokens(code + "\n"):
        style = styles.of(token_type)
        if not value:
            if style is not None:
                return None  # Rich would cut the unstyled text around it: rare enough to leave to Rich
            continue
        for index, part in enumerate(value.split("\n")):
            if index:
                pad = pads[len(lines)]
                if plain or pad:
                    line.append(Segment(plain + " " * pad, plain_style))
                lines.append(line)
                if len(lines) == len(pads):
                    return lines
                line, plain = [], ""
            if not part:
                continue
            if style is None:
                plain += part
                continue
            if plain:
                line.append(Segment(plain, plain_style))
                plain = ""
            line.append(Segment(part, style))
    return None
