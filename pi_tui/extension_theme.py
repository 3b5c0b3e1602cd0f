"""``ctx.ui.theme`` in the app: Pi's theme calls (``fg``, ``bg``, ``bold``...) returning Rich text
in the colours of the theme in use.

``theme.fg("accent", "Saved")`` looks the colour token up in the current Pi theme (any token of
``themes/*.json``: ``accent``, ``success``, ``toolTitle``...); a name that is not a token is used as
a Rich colour (``"red"``, ``"#ff8800"``). Each call returns a ``rich.text.Text``; join pieces with
``+`` or ``Text.assemble``. Extensions' renderers return these (or any Rich renderable).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from .theme import variable_name

if TYPE_CHECKING:
    from textual.app import App


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

    def _styled(self, text: Any, style: str) -> Text:
        out = text.copy() if isinstance(text, Text) else Text(str(text))
        out.stylize_before(style)  # as with nested escape codes, the inner style wins
        return out

    def fg(self, color: str, text: Any) -> Text:
        return self._styled(text, self.color(color))

    def bg(self, color: str, text: Any) -> Text:
        return self._styled(text, f"on {self.color(color)}")

    def bold(self, text: Any) -> Text:
        return self._styled(text, "bold")

    def italic(self, text: Any) -> Text:
        return self._styled(text, "italic")

    def underline(self, text: Any) -> Text:
        return self._styled(text, "underline")

    def dim(self, text: Any) -> Text:
        return self._styled(text, "dim")

    def strikethrough(self, text: Any) -> Text:
        return self._styled(text, "strike")
