"""The end of a command's output (and the start of a written file), cut by rows on screen rather than by lines.

A collapsed tool box shows the last few rows of output, as Pi's bash preview does. Counting
lines was not enough: one 50 KB line (``tr`` output, minified JSON, a base64 blob) is one line
and hundreds of rows, and it flooded the transcript. The cut needs the width the text is drawn
at, which only the renderer knows, so this is a Rich renderable that wraps at draw time.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import StyleType
from rich.text import Text

from .render import MIN_LINES_SAVED


class VisualTail:
    """The last ``limit`` rows of ``text`` at the width it is drawn at, under a hint.

    Args:
        text: The output (lines separated by ``\\n``; already made safe for the terminal).
        limit: Rows shown.
        style: The output's style.
        hint: The line above the rows, given how many rows are hidden.
        hidden_before: Rows already left out before ``text`` (a live command's dropped start).
    """

    def __init__(self, text: str, limit: int, *, style: StyleType = "", hint: Callable[[int], Text],
                 hidden_before: int = 0) -> None:
        self.lines = text.rstrip("\n").split("\n")
        self.limit = limit
        self.style = style
        self.hint = hint
        self.hidden_before = hidden_before

    def _rows(self, console: Console, line: str, width: int) -> list[Text]:
        return list(Text(line, style=self.style).wrap(console, width))

    def _row_count(self, console: Console, line: str, width: int) -> int:
        # Most lines fit: measured, not wrapped (wrapping 2,000 short lines on every redraw is waste).
        return 1 if cell_len(line) <= width else len(self._rows(console, line, width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        shown: list[Text] = []
        start = len(self.lines)
        # From the end, wrap whole lines until there are enough rows (plus what collapsing must save).
        while start > 0 and len(shown) < self.limit + MIN_LINES_SAVED + 1:
            start -= 1
            shown[:0] = self._rows(console, self.lines[start], width)
        hidden = self.hidden_before
        if len(shown) - self.limit - 1 >= MIN_LINES_SAVED:  # else all of it is in ``shown``
            hidden += sum(self._row_count(console, line, width) for line in self.lines[:start])
            hidden += len(shown) - self.limit
            shown = shown[-self.limit:]
        if hidden:
            yield self.hint(hidden)
        yield from shown


class VisualHead:
    """The first ``limit`` rows of ``text`` at the width it is drawn at, over a hint: what a
    collapsed ``write`` shows of the content. Pi shows the first ten lines, and one long line (a
    minified bundle, a base64 blob) is then thousands of rows; here the rows are counted.

    Args:
        text: The content (lines separated by ``\\n``; already made safe for the terminal).
        limit: Rows shown.
        style: The content's style.
        hint: The line under the rows, given how many rows are hidden and how many there are.
    """

    def __init__(self, text: str, limit: int, *, style: StyleType = "", hint: Callable[[int, int], Text]) -> None:
        self.lines = text.rstrip("\n").split("\n")
        self.limit = limit
        self.style = style
        self.hint = hint

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        enough = self.limit + MIN_LINES_SAVED + 1
        most = enough * width  # characters of a line that fill that many rows at least
        rows: list[Text] = []
        total = 0
        cut = False
        for line in self.lines:
            long = len(line) > most
            if len(rows) < enough:
                # Only the start of a long line is wrapped: its rows past ``enough`` are not drawn.
                wrapped = Text(line[:most] if long else line, style=self.style).wrap(console, width)
                rows.extend(wrapped)
                total += _row_estimate(line, width) if long else len(wrapped)
                cut = cut or long
            else:
                total += _row_estimate(line, width)
        if not cut and total - self.limit - 1 < MIN_LINES_SAVED:
            yield from rows
            return
        yield from rows[:self.limit]
        yield self.hint(total - self.limit, total)


def _row_estimate(line: str, width: int) -> int:
    """Rows ``line`` takes at ``width``, counted by cells (wrapping at words may add a few)."""
    cells = len(line) if line.isascii() else cell_len(line)  # isascii is O(1); cell_len reads it all
    return max(1, -(-cells // width))
