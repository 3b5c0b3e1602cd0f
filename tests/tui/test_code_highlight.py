"""Code highlighted from Pygments' tokens matches what Rich's ``Syntax`` draws, segment for segment."""

from __future__ import annotations

import io

import pytest
from pygments.lexers import get_lexer_by_name
from rich.console import Console
from rich.segment import Segment
from rich.syntax import Syntax

from pi_tui.transcript.code_highlight import kept_style, quick_highlight

PYTHON = '''\
def 函数(x, y="quoted"):
\t"""A docstring
    over three lines."""
    total = x + y  # a comment with trailing spaces\x20\x20\x20

    return {"k": [1, 2.5, 0x1F], 'v': f"{x!r}"}
class Thing(Base):  @decorated
    pass'''

JAVASCRIPT = '''\
const re = /a+b/g; let s = `template ${value}
  spans lines`;
function f(a, b) { return a ?? b; }   '''


def rich_lines(code: str, language: str, theme: str, width: int) -> list[list[Segment]]:
    console = Console(width=width + 10, file=io.StringIO(), color_system="truecolor")
    syntax = Syntax(code, get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=4),
                    theme=Syntax.get_theme(theme), word_wrap=True)
    lines = console.render_lines(syntax, console.options.update(width=width), pad=False)
    return [[Segment(s.text, s.style and kept_style(s.style)) for s in line] for line in lines]


@pytest.mark.parametrize("theme", ["monokai", "github-dark", "friendly", "solarized-light"])
@pytest.mark.parametrize(("code", "language"), [(PYTHON, "python"), (JAVASCRIPT, "javascript")])
@pytest.mark.parametrize("width", [58, 90])
def test_the_same_segments_as_rich(code, language, theme, width):
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=4)
    quick = quick_highlight(code, lexer, Syntax.get_theme(theme), width)
    assert quick is not None
    assert quick == rich_lines(code, language, theme, width)


def test_what_rich_must_draw_is_left_to_it():
    lexer = get_lexer_by_name("python", stripnl=False, ensurenl=True, tabsize=4)
    theme = Syntax.get_theme("monokai")
    assert quick_highlight("x = 1\n" + "y" * 41, lexer, theme, 40) is None  # wrapped by Rich
    assert quick_highlight("x = 1\n", lexer, theme, 40) is None  # Rich keeps a blank last line
    assert quick_highlight("x = '\x0c'", lexer, theme, 40) is None  # Rich drops the control character
    assert quick_highlight("x = 1", "no-such-language", theme, 40) is None
    assert quick_highlight("x = 1", lexer, Syntax.get_theme("ansi_dark"), 40) is None  # no background: Rich's way
