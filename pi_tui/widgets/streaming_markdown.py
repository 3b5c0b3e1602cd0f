"""Markdown that grows while the model writes it, cheaply.

Deltas are only buffered on arrival; once per frame the buffer is split into finished
blocks and the open one. Finished blocks are rendered once, into a new ``Static`` (Rich
Markdown, see ``markdown_render``) that never changes again; only the open block (usually
one paragraph or one code fence) is re-parsed per frame. A block is finished when a blank line outside a code fence is followed
by a line that starts in column 0, so indented list continuations stay with their list.
"""

from __future__ import annotations

import re

from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static

from ..markdown_render import PiMarkdown

FRAME_SECONDS = 1 / 15
"""Flush rate while streaming: each flush costs a layout and a repaint of the view."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def split_finished(text: str) -> int:
    """Offset up to which ``text`` holds only finished top-level blocks (0 when none)."""
    fence: str | None = None
    cut = 0
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
            cut = start
        if match:
            fence = match.group(1)
        previous_blank = line.strip() == "" and line.endswith("\n")
    return cut


class StreamingMarkdown(Vertical):
    """A column of frozen ``Markdown`` widgets followed by one live one."""

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; }
    StreamingMarkdown > Static { margin: 0; padding: 0; }
    StreamingMarkdown > .done-block { margin: 0 0 1 0; }
    """

    def __init__(self, text: str = "", *, live: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self._initial = text
        self._open = ""
        self._pending: list[str] = []
        self._timer: Timer | None = None
        self._live_widget: Static | None = None
        self.message = None
        """The kernel message this text belongs to (for the transcript window)."""
        self.live = live
        """Still receiving text (False once ``finish`` ran or for replayed history)."""
        self.text = text
        """Everything written so far."""
        self.open_text = ""
        """Text of the block still being written (what the live widget shows)."""

    def compose(self):
        if self.live:
            self._live_widget = Static("", classes="open-block")
            yield self._live_widget
        else:
            yield Static(PiMarkdown(self._initial))

    def on_mount(self) -> None:
        if self.live:
            if self._initial:
                self._pending.append(self._initial)
            self._timer = self.set_interval(FRAME_SECONDS, self._flush, pause=not self._pending)

    def write(self, delta: str) -> None:
        """Buffer a delta; it reaches the screen at the next frame."""
        if not delta or not self.live:
            return
        self._pending.append(delta)
        self.text += delta
        if self._timer is not None:
            self._timer.resume()

    async def _flush(self) -> None:
        if not self._pending:
            if self._timer is not None:
                self._timer.pause()
            return
        self._open += "".join(self._pending)
        self._pending.clear()
        await self._render_open(final=False)

    async def _render_open(self, *, final: bool) -> None:
        live = self._live_widget
        if live is None:
            return
        cut = 0 if final else split_finished(self._open)
        if cut:
            done, self._open = self._open[:cut], self._open[cut:]
            await self.mount(Static(PiMarkdown(done.rstrip("\n")), classes="done-block"), before=live)
        self.open_text = self._open
        live.update(PiMarkdown(self._open) if self._open.strip() else "")

    async def finish(self) -> None:
        """Render what is buffered and stop the frame timer; the text stays on screen."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._pending:
            self._open += "".join(self._pending)
            self._pending.clear()
        await self._render_open(final=True)
        self.live = False
