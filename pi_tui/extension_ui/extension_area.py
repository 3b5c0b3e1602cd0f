"""What extensions publish around the editor: widget lines and footer-style statuses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.widget import Widget


def _as_text(value: Any) -> Text:
    """Rich text as it is; a string with ANSI colour codes (what Pi's theme makes, and Pi's examples
    write by hand) in those colours; any other value as plain text."""
    if isinstance(value, Text):
        return value
    text = str(value)
    return Text.from_ansi(text) if "\x1b[" in text else Text(text)


def as_extension_text(value: Any) -> Text:
    """See :func:`_as_text` (for other widgets that draw extension strings)."""
    return _as_text(value)


def _one_line(text: Text) -> Text:
    """The text with its line breaks and runs of spaces as single spaces (styles kept)."""
    words = [word for line in text.split("\n") for word in line.split(" ") if word.plain]
    return Text(" ").join(words)


class ExtensionArea(Static):
    """Shows extension widgets (lines) and statuses (their texts, as Pi); hidden when empty."""

    DEFAULT_CSS = """
    ExtensionArea { height: auto; padding: 0 1; color: $pi-muted; }
    """

    def __init__(self, placement: str = "aboveEditor", **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.placement = placement

    def on_mount(self) -> None:
        self.display = False

    def show(self, widgets: dict[str, tuple[list[Any], str]], statuses: dict[str, Any]) -> None:
        """Render the widgets placed here (the ``footer`` area: the statuses, Pi's last line).

        Lines and statuses are strings or Rich text (``ctx.ui.theme``'s colours are kept)."""
        text = Text()
        for lines, placement in widgets.values():
            if placement != self.placement:
                continue
            for line in lines:
                text.append_text(_as_text(line))
                text.append("\n")
        if self.placement == "footer" and statuses:
            # Pi shows the texts (never the keys), sorted by key, each on one line, joined by a space.
            parts = [_one_line(_as_text(status)) for _, status in sorted(statuses.items())]
            text.append_text(Text(" ", style="italic").join(parts))
        text.rstrip()  # in place
        self.display = bool(text.plain.strip())
        self.update(text)


class ExtensionAreas:
    """The app's three extension areas, mounted once and shared by every open session's
    extensions: the shown session's ``AppExtensionUI`` draws in them (``draw``); a session put in
    the background keeps its statuses and widgets to itself until its tab is shown again."""

    def __init__(self) -> None:
        self.above = ExtensionArea("aboveEditor", id="ext-above")
        self.below = ExtensionArea("belowEditor", id="ext-below")
        self.status = ExtensionArea("footer", id="ext-status")
        """Statuses: the last line, under pi's footer (Pi)."""

    def mount_in(self, app: Any, editor: Widget, footer: Widget) -> Any:
        """Mount the areas around pi's ``editor`` and under its ``footer`` (both handed down by the
        flow that mounts them: this pane knows no other pane); returns the awaitable.

        Textual places the widgets at once (later mounts may name them as neighbours at once);
        awaiting waits for their ``on_mount``."""
        mounts = [app.mount(self.above, before=editor), app.mount(self.below, after=editor),
                  app.mount(self.status, after=footer)]

        async def mounted() -> None:
            for mount in mounts:
                await mount

        return mounted()

    def draw(self, widgets: dict[str, tuple[list[Any], str]], statuses: dict[str, Any]) -> None:
        """Show these widget lines and statuses (nothing: the areas hide)."""
        for area in (self.above, self.below, self.status):
            area.show(widgets, statuses)
