"""No text on screen can act on the terminal.

What pi draws comes from strangers: a model's answer, a command's output, a file, an extension.
Textual writes a line's text to the terminal as it is, after dropping only BEL, BS, VT, FF and
CR; an ESC or a C1 control in that text reaches the terminal as a command. An answer holding
``ESC [2J`` cleared pi's screen (Pi 1.6's too), and ``!printf '\\033]0;x\\007'`` retitled the
window.

Every line Textual draws is a :class:`~textual.strip.Strip`, written by ``Strip.render``; that
one method is guarded here, once, rather than each of the hundred-odd places pi hands text to
a widget (any one of them forgotten would be a hole). Control characters (C0, DEL, C1) are dropped from the text and the
rest of a sequence stays visible (``ESC [2J`` shows as ``[2J``). Textual counts a control
character as zero cells wide, so dropping it keeps every line exactly the width Textual laid
out; dropping the whole sequence would shorten the line and leave stale cells at its end.
Textual's own colours, cursor moves and links come from segment styles and the compositor,
never from segment text, so they pass untouched.
"""

from __future__ import annotations

import re

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_GUARDED = "_pi_controls_dropped"


def _has_controls(segment: Segment) -> bool:
    # A control segment (Rich's cursor moves) is a renderable's own command, never text.
    return segment.control is None and _CONTROL.search(segment.text) is not None


def _visible(segment: Segment) -> Segment:
    return Segment(_CONTROL.sub("", segment.text), segment.style) if _has_controls(segment) else segment


def guard_strip_output() -> None:
    """Make ``Strip.render`` drop control characters from text (once per process)."""
    render = Strip.render
    if getattr(render, _GUARDED, False):
        return

    def render_without_controls(self: Strip, console: Console) -> str:
        if any(_has_controls(segment) for segment in self):
            # Rare: draw a clean copy (uncached, so the guard never depends on Strip's cache).
            return render(Strip([_visible(segment) for segment in self], self.cell_length), console)
        return render(self, console)

    setattr(render_without_controls, _GUARDED, True)
    Strip.render = render_without_controls  # type: ignore[method-assign]
