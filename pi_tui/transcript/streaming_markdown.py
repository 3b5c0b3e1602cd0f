"""Markdown that grows while the model writes it, at a cost that does not grow with the answer.

``StreamingMarkdown`` is one leaf widget per assistant text block that draws through the
line API (``render_line`` over cached ``Strip`` lists), not a tree of child widgets:

- deltas are only buffered on arrival; at most once per frame the buffer is split into
  finished top-level blocks and the one still open;
- a finished block is rendered once (Rich Markdown, see ``markdown_render``) to strips
  that are kept and never rendered again (until the width or the theme changes);
- only the blocks that can be on screen are rendered at once: when a fast stream finishes
  many blocks in one frame, those more than a screen above the end stand in with an
  estimated height and are rendered when drawn, or a slice at a time once the answer is
  complete (a 2,000-chunk/s stream used to spend most of its frames on lines nobody saw);
- only the open block (usually one paragraph or one code fence) is rendered per frame, and of
  a long code fence only its last piece (``long_fence``);
- a frame marks only the lines from the old open block down as dirty, and asks for a
  layout only when the height changed. The transcript then has one widget per text
  block, so its layout stays cheap however long the answer gets.

A block is finished when a blank line outside a code fence is followed by a line that
starts in column 0, so indented list continuations stay with their list. Blocks are
drawn one blank line apart, like Rich's own Markdown.
"""

from __future__ import annotations

import re
import time
from typing import Any

from textual.geometry import Region, Size
from textual.strip import Strip
from textual.timer import Timer
from textual.visual import Visual, visualize
from textual.widget import Widget

from .long_fence import LongFenceLines
from .markdown_render import code_theme, markdown_renderable, plain_paragraph

FRAME_SECONDS = 1 / 20
"""Flush rate while streaming. Each flush costs a screen update (~10 ms with the view
scrolling), so this bounds the UI's share of the CPU during a long answer."""
RENDER_BUDGET = 3.0
"""A flush that took t seconds waits at least ``RENDER_BUDGET * t`` before the next one, so a
huge open block (a long code fence) cannot take the whole event loop."""
INPUT_GRACE = 0.03
"""A frame due within this many seconds of a key press waits for the next tick, so the key's
own echo is drawn first (a streaming frame costs 10-25 ms with its layout)."""
BACKFILL_SLICE = 0.012
"""Seconds of rendering per step when deferred blocks are filled in after the answer."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BLANK = Strip([], 0)


class _Deferred:
    """Stands in ``_done`` for every line of a finished block not rendered yet."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def estimate_height(source: str, width: int) -> int:
    """Lines a block will probably take at ``width`` (exact for most prose, lists and code)."""
    width = max(width, 1)
    return sum(max(1, -(-len(line) // width)) for line in source.splitlines()) or 1


def block_cuts(text: str) -> list[int]:
    """Offsets in ``text`` where a new top-level block starts after a finished one."""
    fence: str | None = None
    cuts: list[int] = []
    pos = 0
    previous_blank = False
    for line in text.splitlines(keepends=True):
        start = pos
        pos += len(line)
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) and not line.strip(" \n`~"):
                fence = None
            previous_blank = False
            continue
        if previous_blank and line[:1] not in (" ", "\t", "\n", "\r", ""):
            cuts.append(start)
        if match:
            fence = match.group(1)
        previous_blank = line.strip() == "" and line.endswith("\n")
    return cuts


def split_finished(text: str) -> int:
    """Offset up to which ``text`` holds only finished top-level blocks (0 when none)."""
    cuts = block_cuts(text)
    return cuts[-1] if cuts else 0


def split_blocks(text: str) -> list[str]:
    """``text`` cut into its top-level blocks (trailing blank lines dropped, empty ones left out)."""
    bounds = [0, *block_cuts(text), len(text)]
    blocks = (text[a:b].rstrip("\n") for a, b in zip(bounds, bounds[1:]))
    return [block for block in blocks if block.strip()]


class StreamingMarkdown(Widget):
    """Finished Markdown blocks as cached lines, followed by the one block still being written."""

    DEFAULT_CSS = "StreamingMarkdown { height: auto; }"

    def __init__(self, text: str = "", *, live: bool = True, **kwargs: Any) -> None:
        """
        Args:
            text: initial text (the whole block for replayed history).
            live: True while the model still writes (``write``/``finish`` follow).
        """
        super().__init__(**kwargs)
        self.message: Any = None
        """The kernel message this text belongs to (for the transcript window)."""
        self.live = live
        """Still receiving text (False once ``finish`` ran or for replayed history)."""
        self.text = text
        """Everything written so far."""
        self.open_text = ""
        """Text of the block still being written (rendered anew each frame)."""
        self._sources: list[str] = [] if live else split_blocks(text)
        self._rendered: list[list[Strip] | None] = []
        """Lines of each finished block; None while it is deferred."""
        self._heights: list[int] = []
        """Lines each finished block takes in ``_done`` (estimated while deferred)."""
        self._deferred = 0
        self._backfill_timer: Timer | None = None
        self._done: list[Strip | _Deferred] = []
        """Lines of the finished blocks, one blank line before every block but the first."""
        self._open_lines: list[Strip] = []
        self._key: tuple[Any, ...] | None = None
        """What the cached lines were rendered for: width, theme, code theme, widget style."""
        self._previous: tuple[Any, ...] | None = None
        """A finished block's lines for the key before (a pane opened and closed, a resize and
        back): switching back to it is a swap, not a render of every block again."""
        self._long_fences = LongFenceLines()
        """Pieces of a long fence being written, drawn once each (``long_fence``)."""
        self._pending: list[str] = [text] if live and text else []
        self._timer: Timer | None = None
        self._not_before = 0.0

    # ------------------------------------------------------------------ streaming

    def on_mount(self) -> None:
        if self.live:
            self._timer = self.set_interval(FRAME_SECONDS, self._flush, pause=not self._pending)

    def write(self, delta: str) -> None:
        """Buffer a delta; it reaches the screen with the next frame."""
        if not delta or not self.live:
            return
        self._pending.append(delta)
        self.text += delta
        if self._timer is not None:
            self._timer.resume()

    def _flush(self) -> None:
        if not self._pending:
            if self._timer is not None:
                self._timer.pause()
            return
        now = time.perf_counter()
        if now < self._not_before or now - getattr(self.app, "last_input_at", 0.0) < INPUT_GRACE:
            return
        self._advance(final=False)
        self._not_before = now + RENDER_BUDGET * (time.perf_counter() - now)

    async def finish(self) -> None:
        """Render what is buffered as finished blocks and stop the frame timer."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._advance(final=True)
        self._long_fences.forget()
        self.live = False
        self._schedule_backfill()

    def _advance(self, *, final: bool) -> None:
        """Move buffered text into the open block and finished blocks out of it; repaint the tail."""
        opened = self.open_text + "".join(self._pending)
        self._pending.clear()
        cut = len(opened) if final else split_finished(opened)
        finished = split_blocks(opened[:cut]) if cut else []
        self.open_text = opened[cut:]
        if self._key is None:  # not laid out yet: everything is rendered on the first layout
            self._sources.extend(finished)
            self.refresh(layout=True)
            return
        width = self._key[0]
        old_height = self._height()
        first_changed = len(self._done)
        self._open_lines = self._render_markdown(self.open_text, width)
        for source, render in zip(finished, self._render_now(finished, width, len(self._open_lines))):
            self._append_block(source, width, render=render)
        height = self._height()
        self.refresh(Region(0, first_changed, width, max(height, old_height) - first_changed + 1),
                     layout=height != old_height)

    def _render_now(self, sources: list[str], width: int, lines_below: int) -> list[bool]:
        """Which of ``sources`` (about to be appended) to render now: those within a screen of the end."""
        # The terminal's height bounds the visible part (the transcript's own size would do
        # too, but asking a widget for its size mid-layout makes Textual map the whole screen).
        reach = self.app.size.height if self.is_attached else 50
        decisions: list[bool] = []
        for source in reversed(sources):
            visible = lines_below < reach
            decisions.append(visible)
            lines_below += estimate_height(source, width) + 1
        decisions.reverse()
        return decisions

    # ------------------------------------------------------------------ rendering

    def _render_markdown(self, source: str, width: int) -> list[Strip]:
        if not source.strip() or width <= 0:
            return []
        source = source.rstrip("\n")
        fence = self._long_fences.render(self, source, width, self._key or (width,))
        if fence is not None:
            return fence
        visual = visualize(self, plain_paragraph(source) or markdown_renderable(source))
        lines = Visual.to_strips(self, visual, width, None, self.visual_style)
        # Rich starts a lone list or quote with an empty line; the gap between blocks is ours.
        start, end = 0, len(lines)
        while start < end and not lines[start].cell_length:
            start += 1
        while end > start and not lines[end - 1].cell_length:
            end -= 1
        return lines[start:end]

    def _append_block(self, source: str, width: int, *, render: bool = True) -> None:
        index = len(self._sources)
        self._sources.append(source)
        if index:
            self._done.append(_BLANK)
        if render:
            lines: list[Strip] | None = self._render_markdown(source, width)
            self._done.extend(lines)  # type: ignore[arg-type]
            height = len(lines)  # type: ignore[arg-type]
        else:
            lines, height = None, estimate_height(source, width)
            self._done.extend([_Deferred(index)] * height)
            self._deferred += 1
        self._rendered.append(lines)
        self._heights.append(height)

    def _ensure(self, width: int) -> None:
        """Render every block again when the width, theme or style changed since the last render.

        Only the blocks within a screen of the end are rendered here; the rest are deferred.
        """
        key = (width, self.app.theme, getattr(getattr(self.app, "themes", None), "generation", 0), code_theme(), self.visual_style)
        if key == self._key:
            return
        previous = self._previous
        if not self.live and self._key is not None:
            self._previous = (self._key, self._sources, self._rendered, self._heights, self._done, self._deferred,
                              self._open_lines)
        if not self.live and previous is not None and previous[0] == key:
            (self._key, self._sources, self._rendered, self._heights, self._done, self._deferred,
             self._open_lines) = previous
            self._schedule_backfill()
            return
        self._key = key
        sources = self._sources
        self._sources, self._rendered, self._heights, self._done, self._deferred = [], [], [], [], 0
        self._open_lines = self._render_markdown(self.open_text, width)
        for source, render in zip(sources, self._render_now(sources, width, len(self._open_lines))):
            self._append_block(source, width, render=render)
        if not self.live:
            self._schedule_backfill()

    def _realize(self, index: int) -> None:
        """Render deferred block ``index`` in place of its stand-in lines."""
        lines = self._render_markdown(self._sources[index], self._key[0] if self._key else self.size.width)
        start = sum(self._heights[:index]) + index
        self._done[start:start + self._heights[index]] = lines
        changed = len(lines) != self._heights[index]
        self._rendered[index], self._heights[index] = lines, len(lines)
        self._deferred -= 1
        if changed:
            self.refresh(layout=True)

    def _schedule_backfill(self) -> None:
        if self._deferred and self._backfill_timer is None and self.is_attached:
            self._backfill_timer = self.set_timer(0.02, self._backfill)

    def _backfill(self) -> None:
        """Render deferred blocks, newest first (nearest the usual view), for one time slice."""
        self._backfill_timer = None
        if self._key is None or self.live:
            return
        deadline = time.perf_counter() + BACKFILL_SLICE
        index = len(self._rendered)
        while self._deferred and time.perf_counter() < deadline:
            index -= 1
            if self._rendered[index] is None:
                self._realize(index)
        self.refresh()
        self._schedule_backfill()

    def _height(self) -> int:
        gap = 1 if self._done and self._open_lines else 0
        return len(self._done) + gap + len(self._open_lines)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return self._height()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def render_line(self, y: int) -> Strip:
        self._ensure(self.size.width)
        done = self._done
        if y < len(done):
            line = done[y]
            if type(line) is _Deferred:
                self._realize(line.index)
                line = self._done[y] if y < len(self._done) else _BLANK
            return line  # type: ignore[return-value]
        y -= len(done)
        if done and self._open_lines:
            if y == 0:
                return _BLANK
            y -= 1
        if 0 <= y < len(self._open_lines):
            return self._open_lines[y]
        return _BLANK
