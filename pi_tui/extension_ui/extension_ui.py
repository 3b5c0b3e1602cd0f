"""Extensions' ``ctx.ui`` in the app: real dialogs, notifications, footer statuses, widgets.

Dialogs are modal screens pushed on the app; the extension's coroutine waits on a future
that the screen's dismiss callback resolves. Timeouts and failures are applied by the
runtime's ``GuardedUI`` around this object, so a dialog nobody answers resolves to its
default there.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text


class AppExtensionUI:
    has_ui = True
    accepts_styled_text = True
    """Statuses and widget lines keep ``ctx.ui.theme``'s colours (Rich text) here."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, tuple[list[str], str]] = {}
        self.on_change: Callable[[AppExtensionUI], None] | None = None
        """Called when statuses or widgets change (the app redraws its extension areas)."""
        self.editor_factory: Callable[..., Any] | None = None
        """The factory of the extension editor in use (``get_editor_component``)."""
        self.components: dict[str, Any] = {}
        """Widgets extensions mounted (by widget key; ``#header``/``#footer`` for replacements)."""
        self.footer_data: Any = None
        """The ``FooterData`` given to an extension's footer (``footer_data.py``)."""
        self.before_dialog: Callable[[str], Awaitable[None]] | None = None
        """Awaited before a dialog is shown, with its title: with several sessions open, a background
        session's question waits until its tab is shown (``sessions/tab_extensions.py``)."""

    async def _ask(self, screen: Any, timeout: float | None, title: str | None = None) -> Any:
        if self.before_dialog is not None:
            await self.before_dialog(title or "")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, done)
        if timeout and title is not None:
            # Pi's timed dialogs count down in their title: "Title (5s)", "Title (4s)", ...
            deadline = time.monotonic() + timeout

            def tick() -> None:
                left = max(0, math.ceil(deadline - time.monotonic()))
                for label in screen.query(".dialog-title, .picker-title"):
                    label.update(f"{title} ({left}s)")

            screen.call_after_refresh(tick)
            screen.set_interval(0.25, tick)
        try:
            return await (asyncio.wait_for(future, timeout) if timeout else future)
        except TimeoutError:
            # Nobody answered in time: take the dialog down, the caller gets the default.
            if screen.is_attached:
                screen.dismiss(None)
            return None
        except asyncio.CancelledError:
            # Aborted (the run, or the runtime's guard): the dialog must not stay up.
            if screen.is_attached:
                screen.dismiss(None)
            raise

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        from ..dialogs.pick_list import PickItem, PickList

        items = [PickItem(option, Text(option), option) for option in options]
        value = await self._ask(PickList(title, items), timeout, title)
        return value if value in options else None

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        from ..dialogs.text_prompt import ConfirmPrompt

        return bool(await self._ask(ConfirmPrompt(title, message), timeout, title))

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None) -> str | None:
        from ..dialogs.text_prompt import TextPrompt

        value = await self._ask(TextPrompt(title, placeholder=placeholder or ""), timeout, title)
        return value if isinstance(value, str) else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        from ..dialogs.editor_prompt import EditorPrompt

        value = await self._ask(EditorPrompt(title, prefill or ""), None)
        return value if isinstance(value, str) else None

    def notify(self, message: str, level: str = "info") -> None:
        severity = {"info": "information", "warning": "warning", "error": "error"}.get(level, "information")
        self.app.notify(message, severity=severity)

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text
        self._refresh()

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = (list(lines), placement)
        self._refresh()

    def _refresh(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    # ------------------------------------------------------------------ the display layer

    async def custom(self, factory: Any, *, overlay: bool = False, overlay_options: Any = None) -> Any:
        """Show the extension's own widget until it calls ``done(value)``; returns that value."""
        from .extension_screen import ExtensionScreen, build_custom

        holder: dict[str, Any] = {}

        def done(value: Any = None) -> None:
            # Once only: a second call (a loader's abort hook as its screen unmounts) would
            # dismiss whatever screen is on top by then, e.g. the extension's next dialog.
            screen = holder.get("screen")
            if screen is None:  # called inside the factory (Pi's interactive-shell example)
                holder.setdefault("early", (value,))
            elif not screen.finished:
                screen.finish(value)

        widget = build_custom(factory, self.app, self.theme, done)
        if "early" in holder:
            return holder["early"][0]  # finished before it was shown: nothing to show
        screen = ExtensionScreen(widget, overlay=overlay)
        holder["screen"] = screen
        return await self._ask(screen, None)

    def set_widget_component(self, key: str, factory: Any, *, placement: str = "aboveEditor") -> None:
        """A widget of the extension's own (``factory(tui, theme)``) above or below the editor."""
        host = self.app.query_one("#ext-above" if placement != "belowEditor" else "#ext-below")
        old = self.components.pop(key, None)
        if old is not None:
            old.remove()
        if factory is None:
            return
        widget = factory(self.app, self.theme)
        self.components[key] = widget
        self.app.mount(widget, before=host) if placement != "belowEditor" else self.app.mount(widget, after=host)

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """Replace the editor with ``factory(tui, theme, keybindings)``'s ``CustomEditor`` (None: pi's)."""
        from ..editor.editor_swap import swap_editor

        swap_editor(self.app, factory, self.theme)
        self.editor_factory = factory

    def get_editor_component(self) -> Callable[..., Any] | None:
        return self.editor_factory

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        """``factory(current)``'s provider goes on top of the completion (``extension_completion.py``)."""
        self.app.completion.add_provider(factory)

    def session_switching(self) -> None:
        """Before a switched-to session's ``session_start``: pi's editor and completion again, no
        listeners (handlers that set them up at start do it once more, not twice)."""
        self.app.terminal_input.clear()
        self.app.completion.providers = None
        if self.editor_factory is not None:
            self.set_editor_component(None)

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        """See ``terminal_input.py``: keys reach ``handler`` first; returns the unsubscriber."""
        return self.app.terminal_input.add(handler)

    def set_title(self, title: str) -> None:
        """The terminal's window title (OSC 2), as Pi's ``setTitle``; Textual's ``App.title`` is only
        read by its Header widget, which pi does not show."""
        self.app.title = title
        driver = getattr(self.app, "_driver", None)
        if driver is not None and not self.app.is_headless:
            clean = "".join(ch for ch in title if ch.isprintable())  # no escape can end the sequence early
            driver.write(f"\x1b]2;{clean}\x07")
            driver.flush()

    def set_editor_text(self, text: str) -> None:
        self.app.editor.set_text(text)

    def get_editor_text(self) -> str:
        return str(self.app.editor.text)

    def paste_to_editor(self, text: str) -> None:
        self.app.editor.paste_text(text)

    def set_working_message(self, message: str | None = None) -> None:
        self.app.footer_bar.set_working_look(working_message=message)

    def set_working_visible(self, visible: bool) -> None:
        self.app.footer_bar.set_working_look(working_visible=visible)

    def set_working_indicator(self, frames: list[str] | None = None, interval_ms: int | None = None) -> None:
        from .extension_area import as_extension_text

        self.app.footer_bar.set_working_look(
            spinner_frames=[as_extension_text(frame) for frame in frames] if frames is not None else None,
            spinner_interval=interval_ms / 1000 if interval_ms and interval_ms > 0 else None)

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        self.app.transcript.set_hidden_thinking_label(None if label is None else str(label))

    def set_tools_expanded(self, expanded: bool) -> None:
        self.app.transcript.set_tools_expanded(expanded)

    def get_tools_expanded(self) -> bool:
        return bool(self.app.transcript.tools_expanded)

    def set_header(self, factory: Any) -> None:
        """Replace the header line with the extension's widget (None brings pi's back)."""
        self._replace("header", self.app.header_bar, factory)

    def set_footer(self, factory: Any) -> None:
        """Replace the footer with the extension's widget (None brings pi's back)."""
        self._replace("footer", self.app.footer_bar, factory)

    def refresh_components(self) -> None:
        """Redraw the footer, header and widgets extensions mounted (the session changed)."""
        for widget in self.components.values():
            if widget.is_attached:
                widget.refresh()

    def drop_component(self, key: str) -> None:
        """Take away a component that broke (``extension_guard.py``); pi's header or footer returns."""
        originals = {"#header": self.app.header_bar, "#footer": self.app.footer_bar}
        widget = self.components.pop(key, None)
        if widget is not None and widget.is_attached:
            widget.remove()
        if key in originals:
            originals[key].display = True
        self._refresh()

    def _replace(self, key: str, original: Any, factory: Any) -> None:
        old = self.components.pop(f"#{key}", None)
        if old is not None:
            old.remove()
        original.display = factory is None
        if factory is not None:
            from ..footer.footer_data import FooterData, takes_footer_data

            extra: tuple[Any, ...] = ()
            if key == "footer" and takes_footer_data(factory):  # Pi's (tui, theme, footerData)

                self.footer_data = FooterData(str(self.app.cwd), self.statuses)
                extra = (self.footer_data,)
            widget = factory(self.app, self.theme, *extra)
            self.components[f"#{key}"] = widget
            self.app.mount(widget, after=original)
        self._refresh()  # statuses leave with pi's footer and come back with it

    @property
    def theme(self) -> Any:
        from .extension_theme import AppTheme

        return AppTheme(self.app)

    def get_all_themes(self) -> list[dict[str, Any]]:
        self.app.themes.load()  # themePaths from resources_discover may have come since
        return [{"name": name, "path": str(theme.source) if theme.source else None}
                for name, theme in sorted(self.app.themes.themes.items())]

    def get_theme(self, name: str) -> Any:
        return self.app.themes.themes.get(name) if self.app.themes.knows(name) else None

    def set_theme(self, theme: Any) -> dict[str, Any]:
        name = theme if isinstance(theme, str) else getattr(theme, "name", None)
        if not name or not self.app.themes.knows(name):
            return {"success": False, "error": f"Unknown theme: {name}"}
        self.app.themes.apply(name)
        return {"success": True}
