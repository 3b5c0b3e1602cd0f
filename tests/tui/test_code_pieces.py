"""Long code fences are highlighted a piece at a time, and pieces already done are not redone.

While a model writes a long fence, the open block is drawn again every frame; highlighting all
of it each time made a 5,000-line fence take seconds per frame (20,000 lines: 20 s to show).
"""

from __future__ import annotations

import io

from pygments.lexer import RegexLexer
from rich.console import Console

from pi_tui.transcript.markdown_render import CODE_PIECE_LINES, LONG_CODE_LINES, markdown_renderable


def render(text: str) -> list[str]:
    console = Console(width=100, file=io.StringIO(), color_system="truecolor")
    lines = console.render_lines(markdown_renderable(text), console.options, pad=False)
    return ["".join(f"{segment.text}|{segment.style}" for segment in line) for line in lines]


def code(count: int, name: str) -> str:
    # Each test its own text: highlighted pieces are kept for the whole process.
    return "".join(f"{name}_{i} = compute({i}, 'x')  # step {i}\n" for i in range(count))


def test_a_long_fence_in_pieces_looks_as_highlighted_whole():
    short = code(LONG_CODE_LINES - 1, "same")  # highlighted in one go
    long = code(LONG_CODE_LINES + 3 * CODE_PIECE_LINES + 7, "same")
    whole = render("```python\n" + short + "```")
    pieced = render("```python\n" + long + "```")
    # The same lines, colours and all, where the two overlap (nothing lost or doubled at a cut).
    assert pieced[:len(whole) - 1] == whole[:-1]
    assert len(pieced) == long.count("\n") + 2  # the fence lines and one per code line
    assert f"same_{LONG_CODE_LINES + 3 * CODE_PIECE_LINES + 6}|" in pieced[-2]


def test_a_growing_fence_is_lexed_again_only_at_its_end(monkeypatch):
    lexed: list[int] = []
    original = RegexLexer.get_tokens_unprocessed

    def counting(self, text, stack=("root",)):
        lexed.append(len(text))
        return original(self, text, stack)

    monkeypatch.setattr(RegexLexer, "get_tokens_unprocessed", counting)
    source = code(LONG_CODE_LINES * 3, "growing")
    render("```python\n" + source)
    first = sum(lexed)
    assert first >= len(source)  # all of it once
    lexed.clear()
    render("```python\n" + source + "more = 1\n")  # the next frame: one more line
    assert sum(lexed) <= 2 * len(source) / (LONG_CODE_LINES * 3) * CODE_PIECE_LINES
