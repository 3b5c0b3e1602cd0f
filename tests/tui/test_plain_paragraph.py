"""A line of prose is drawn without the Markdown stack, exactly as Rich's Markdown draws it."""

from __future__ import annotations

import random
import string

from rich.console import Console
from rich.segment import Segment
from rich.theme import Theme

from pi_tui.transcript.markdown_render import markdown_renderable, markdown_theme, plain_paragraph

PROSE = [
    "Pong01x123 is the answer.",
    "Hello!",
    "Sure, here's what I found: the file has 3 functions (two public), and 1 test.",
    "Déjà vu: naïve café, 日本語のテキスト and emoji 🙂 in one line.",
    "Two  spaces and a tab-free line with 100% of its words / slashes + pluses = fine; done?",
    "A long line " + "that wraps around the screen edge several times " * 6 + "end.",
    "www.example.com and http://example.com stay plain text (no linkify).",
    "Hmm... OK: 1. is not a list here, nor is - or # in the middle.",
]

MARKDOWN = [
    "", " leading space", "trailing space ", "1. a list", "- a list", "# heading", "> quote", "`code`",
    "some **bold**", "an *emphasis*", "snake_case", "~~gone~~", "a [link](x)", "an <b>html</b> tag",
    "x &amp; y", "a | b", "back\\slash", "two\nlines", "tab\there", "4 starts with a digit",
]


def _console(width: int) -> Console:
    # A paragraph style of its own makes a style mismatch visible (pi's theme leaves it plain).
    theme = Theme({**markdown_theme({}).styles, "markdown.paragraph": "italic #ff8800"})
    return Console(width=width, theme=theme, color_system="truecolor", force_terminal=True)


def _cells(renderable, width: int) -> list[list[Segment]]:
    console = _console(width)
    lines = console.render_lines(renderable, console.options, pad=False)
    return [list(Segment.simplify(line)) for line in lines]


def test_prose_lines_are_drawn_as_markdown_draws_them():
    for text in PROSE:
        plain = plain_paragraph(text)
        assert plain is not None, text
        for width in (7, 23, 40, 120):
            assert _cells(plain, width) == _cells(markdown_renderable(text), width), (text, width)


def test_lines_with_markdown_in_them_go_to_the_markdown_stack():
    for text in MARKDOWN:
        assert plain_paragraph(text) is None, text


def test_every_line_taken_as_prose_is_one_plain_paragraph_for_markdown_it():
    rng = random.Random(36)
    alphabet = string.ascii_letters + string.digits + string.punctuation + "  éß日🙂\u00a0"
    taken = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        if plain_paragraph(text) is None:
            continue
        taken += 1
        tokens = markdown_renderable(text).parsed  # the app's own parser and its settings
        assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], text
        assert {child.type for child in tokens[1].children or []} == {"text"}, text
        assert "".join(child.content for child in tokens[1].children or []) == text, text
        assert _cells(plain_paragraph(text), 17) == _cells(markdown_renderable(text), 17), text
    assert taken > 100  # the alphabet gives the check enough prose to look at
