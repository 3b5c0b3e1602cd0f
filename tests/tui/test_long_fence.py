"""A long code fence drawn a piece at a time gives the lines the whole fence gives, and a frame
near its end draws only its last piece."""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.visual import Visual, visualize

from pi_tui.transcript.long_fence import LongFenceLines, split_long_fence
from pi_tui.transcript.markdown_render import LONG_CODE_LINES, markdown_renderable, warm_up
from pi_tui.transcript.streaming_markdown import StreamingMarkdown

from .conftest import wait_for


def _code(lines: int, seed: int) -> str:
    """Python with what makes highlighting and wrapping differ: strings, comments, blank lines,
    a docstring across a piece's edge, long lines, tabs, wide characters."""
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        kind = rng.randrange(9)
        out.append(["", f"x_{i} = {i} * 2  # line {i}", f'name = "value {i}"', f"def f_{i}(a, b):\n    return a + b",
                    '"""a docstring', 'still in it"""', "y = compute(" + ", ".join(f"arg_{j}" for j in range(30)) + ")",
                    "\tindented = '日本語 🙂'", "   "][kind])
    return "\n".join(out)


class _Scroll(App):
    def __init__(self, text: str, live: bool) -> None:
        super().__init__()
        self.text, self.live = text, live

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="view") as view:
            self.md = StreamingMarkdown(self.text, live=self.live)
            yield self.md
        view.anchor()


def _whole(widget: StreamingMarkdown, source: str, width: int) -> list:
    """The lines Rich's Markdown gives for the whole block (the path before pieces)."""
    strips = Visual.to_strips(widget, visualize(widget, markdown_renderable(source.rstrip("\n"))), width, None,
                              widget.visual_style)
    while strips and not strips[-1].cell_length:
        strips.pop()
    return strips


def _cells(strips) -> list:
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


def test_which_blocks_are_long_fences():
    body = "\n".join(f"line {i}" for i in range(LONG_CODE_LINES))
    assert split_long_fence(f"```python\n{body}") == ("python", body.split("\n"))  # still open
    assert split_long_fence(f"~~~~\n{body}\n~~~~") == ("", body.split("\n"))
    assert split_long_fence(f"```python\n{body}\n\n\n") == ("python", body.split("\n"))  # blank tail dropped
    assert split_long_fence(f"```python\n{body}\n```\nthen a paragraph") is None
    assert split_long_fence(f"Intro\n```python\n{body}") is None
    assert split_long_fence(f"```python\n{body[:200]}") is None  # short: drawn whole
    assert split_long_fence(f"```c\\+\\+\n{body}") is None  # Markdown rewrites the info string
    assert split_long_fence(f"```py\r\n{body}") is None
    assert split_long_fence(f"```py\n{body}\n```` \n") == ("py", body.split("\n"))  # a longer closing run closes
    assert split_long_fence(f"````py\n{body}\n```\nmore")[1][-2:] == ["```", "more"]  # a shorter one does not


async def test_pieces_give_the_lines_of_the_whole_fence():
    warm_up()
    app = _Scroll("", live=False)
    async with app.run_test(size=(80, 20)):
        widget = app.md
        for seed, (lines, info, closed) in enumerate([(400, "python", True), (1234, "python", False),
                                                      (777, "", True), (450, "rust", False)]):
            source = f"```{info}\n{_code(lines, seed)}" + ("\n```" if closed else "")
            for width in (80, 33, 7):
                pieces = LongFenceLines().render(widget, source, width, (width,))
                assert pieces is not None
                assert _cells(pieces) == _cells(_whole(widget, source, width)), (seed, width)


async def test_a_frame_near_the_end_of_a_long_fence_draws_only_its_last_piece():
    warm_up()
    code = _code(3000, 7)
    app = _Scroll("", live=True)
    async with app.run_test(size=(80, 20)) as pilot:
        md = app.md
        md.write("```python\n")
        lines = code.split("\n")
        before: list = []
        for start in range(0, len(lines), 500):
            md.write("\n".join(lines[start:start + 500]) + "\n")
            assert await wait_for(pilot, lambda: not md._pending)
            if start >= 1000:
                # The lines drawn by the frames before are the very same strips: kept, not drawn again.
                kept = len(before) - 250  # the opening line and the last piece (long lines wrap) are drawn again
                assert all(new is old for new, old in zip(md._open_lines[1:kept], before[1:kept])), start
            before = list(md._open_lines)
        md.write("```\n\nDone.")
        await md.finish()
        width = md.size.width
        shown = [md.render_line(y) for y in range(md.get_content_height(app.size, app.size, width))]
        whole = _whole(md, "```python\n" + "\n".join(lines) + "\n```", width)
        assert _cells(shown[:len(whole)]) == _cells(whole)
