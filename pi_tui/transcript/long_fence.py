"""A long code fence drawn a piece at a time, so a frame costs the same at line 20,000 as at line 500.

While a model writes a fence, the fence is the open block that ``StreamingMarkdown`` draws again
each frame. Drawn whole through Rich's Markdown, a frame parses, highlights and turns into strips
every line written so far: a 20,000-line fence took seconds a frame near its end, and under load
its last line reached the screen seconds after the server had sent it.

A fence of ``LONG_CODE_LINES`` lines or more is already highlighted ``CODE_PIECE_LINES`` lines at
a time (``markdown_render.code_lines``). Here the pieces are drawn the same way, each into its own
strips, and every piece that more code follows is kept: a frame draws the last piece only. The
strips are the ones the whole fence would give (``tests/tui/test_long_fence.py`` compares them),
because each piece is the same text highlighted alone in both cases.

Only a block that is one fence from its first line on is drawn this way (the usual case: models
put a blank line before a fence, and a blank line starts a new block); anything else, or an
opening line with an info string that Markdown would rewrite (escapes, entities), is left to the
whole-block path.
"""

from __future__ import annotations

import re

from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget

from .markdown_render import CODE_PIECE_LINES, LONG_CODE_LINES, fence_part_renderable

_OPENER = re.compile(r"(`{3,}|~{3,})([\w+#.-]*)[ \t]*")
"""A fence's opening line in column 0 whose info string is one plain word (or none)."""


def split_long_fence(source: str) -> tuple[str, list[str]] | None:
    """``(info, code lines)`` when ``source`` is one fence from its first line, still open or
    closed by its last line, holding ``LONG_CODE_LINES`` lines of code or more (trailing blank
    lines dropped, as the fence drops them); None otherwise."""
    if "\r" in source or "\0" in source:
        return None  # Markdown rewrites these first; the whole-block path draws what it makes of them
    head, newline, rest = source.partition("\n")
    opener = _OPENER.fullmatch(head)
    if opener is None or not newline:
        return None
    marker = opener.group(1)
    lines = rest.split("\n")
    # Looking for the closing line only where one can be (most fences being written have none yet).
    for index, line in enumerate(lines if marker[0] * 3 in rest else ()):
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3 or not stripped.startswith(marker[0] * 3):
            continue
        run = len(stripped) - len(stripped.lstrip(marker[0]))
        if run >= len(marker) and not stripped[run:].strip(" \t"):
            if any(later.strip() for later in lines[index + 1:]):
                return None  # the fence closes before the block ends
            lines = lines[:index]
            break
    while lines and not lines[-1].strip("\n"):
        lines.pop()
    if len(lines) < LONG_CODE_LINES:
        return None
    return opener.group(2), lines


class LongFenceLines:
    """Draws long fences for one widget, keeping the strips of every piece more code follows."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], list[Strip]] = {}
        self._key: tuple[object, ...] | None = None

    def render(self, widget: Widget, source: str, width: int, key: tuple[object, ...]) -> list[Strip] | None:
        """``source``'s lines as the whole block would be drawn at ``width``, or None when it is
        not a long fence (see ``split_long_fence``). ``key`` names the look (width, theme, code
        theme): kept pieces drawn under another key are dropped."""
        fence = split_long_fence(source)
        if fence is None or width < 4:
            return None
        if key != self._key:
            self._kept.clear()
            self._key = key
        info, lines = fence
        style = widget.visual_style

        def strips(code: str | None, *, opener: bool = False, closer: bool = False) -> list[Strip]:
            part = fence_part_renderable(code, info, opener=opener, closer=closer)
            return Visual.to_strips(widget, visualize(widget, part), width, None, style)

        drawn = strips(None, opener=True)
        last = (len(lines) - 1) // CODE_PIECE_LINES * CODE_PIECE_LINES
        for start in range(0, last, CODE_PIECE_LINES):
            piece = "\n".join(lines[start:start + CODE_PIECE_LINES])
            kept = self._kept.get((info, piece))
            if kept is None:
                kept = self._kept[(info, piece)] = strips(piece)
            drawn.extend(kept)
        drawn.extend(strips("\n".join(lines[last:]), closer=True))
        return drawn

    def forget(self) -> None:
        """Drop the kept pieces (the answer is complete: its blocks keep their own lines)."""
        self._kept.clear()
        self._key = None
