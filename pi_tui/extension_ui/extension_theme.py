"""``ctx.ui.theme`` in the app: Pi's theme calls (``fg``, ``bg``, ``bold``...) returning Rich text
in the colours of the theme in use.

``theme.fg("accent", "Saved")`` looks the colour token up in the current Pi theme (any token of
``themes/*.json``: ``accent``, ``success``, ``toolTitle``...); a name that is not a token is used as
a Rich colour (``"red"``, ``"#ff8800"``). Each call returns a ``StyledText`` (a ``rich.text.Text``);
join pieces with ``+`` — on either side of a plain string too, as Pi's ANSI strings allow
(``"\n" + theme.dim(hint)``). Extensions' renderers return these (or any Rich renderable).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from ..theme.theme import variable_name

if TYPE_CHECKING:
    from textual.app import App


class StyledText(Text):
    """Rich text that a plain string can be added to from the left as well.

    Pi's theme calls return strings with escape codes, so its extensions write
    ``"prefix" + theme.fg(...)``; ``str + Text`` is a TypeError in Rich, which would make every
    such line of a port fail. Sums stay ``StyledText`` so longer chains work too.
    """

    def __add__(self, other: Any) -> StyledText:
        if not isinstance(other, (str, Text)):
            return NotImplemented
        out = StyledText()
        out.append_text(self)
        out.append_text(other) if isinstance(other, Text) else out.append(other)
        return out

    def __radd__(self, other: Any) -> StyledText:
        if not isinstance(other, (str, Text)):
            return NotImplemented
        out = StyledText()
        out.append_text(other) if isinstance(other, Text) else out.append(other)
        out.append_text(self)
        return out


class AppTheme:
    """The current theme's styles for extension text (read at each call: switching themes applies)."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app

    @property
    def name(self) -> str:
        return str(self._app.theme)

    def color(self, token: str) -> str:
        """``#rrggbb`` of a Pi colour token in the current theme (the name itself if not a token)."""
        return self._app.theme_variables.get(variable_name(token), token)

    def _styled(self, text: Any, style: str) -> StyledText:
        out = StyledText()
        out.append_text(text) if isinstance(text, Text) else out.append(str(text))
        out.stylize_before(style)  # as with nested escape codes, the inner style wins
        return out

    def fg(self, color: str, text: Any) -> StyledText:
        return self._styled(text, self.color(color))

    def bg(self, color: str, text: Any) -> StyledText:
        return self._styled(text, f"on {self.color(color)}")

    def bold(self, text: Any) -> StyledText:
        return self._styled(text, "bold")

    def italic(self, text: Any) -> StyledText:
        return self._styled(text, "italic")

    def underline(self, text: Any) -> StyledText:
        return self._styled(text, "underline")

    def dim(self, text: Any) -> StyledText:
        return self._styled(text, "dim")

    def strikethrough(self, text: Any) -> StyledText:
        return self._styled(text, "strike")
