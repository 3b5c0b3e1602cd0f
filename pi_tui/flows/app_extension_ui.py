"""Extensions' ``ctx.ui`` in the app: real dialogs, notifications, footer statuses, widgets.

Dialogs are modal screens pushed on the app; the extension's coroutine waits on a future
that the screen's dismiss callback resolves. Timeouts and failures are applied by the
runtime's ``GuardedUI`` around this object, so a dialog nobody answers resolves to its
default there.

With several sessions open (tabs) each session's extensions have an ``AppExtensionUI`` of their
own, and what they set is theirs: statuses and widget lines, their widgets, header, footer and
editor (``screen_parts.py``), the working indicator's look, the terminal title, terminal input
listeners and completion providers. Only the shown session's are on screen: ``put_away`` takes
them off when its tab goes to the background, keeping them, and ``bring_back`` draws them again
(``extension_host.show_extension_ui``). A change made meanwhile is stored and drawn on return;
the editor text and the transcript a background session's extensions reach are its tab's
(``TabPlace``).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text

from ..extension_ui.tab_place import DraftLike, TabPlace, paste_into_draft, set_draft_text
from ..terminal.terminal_input import TerminalInput
from ..terminal.window_title import write_title
from .screen_parts import ScreenParts
from .shown_title import show_window_title

WORKING_LOOK_DEFAULTS: dict[str, object] = {"working_message": None, "working_visible": True,
                                            "spinner_frames": None, "spinner_interval": None}
"""pi's own working indicator (``FooterBar.set_working_look``), put back when a session's look leaves."""


class AppExtensionUI:
    has_ui = True
    accepts_styled_text = True
    """Statuses and widget lines keep ``ctx.ui.theme``'s colours (Rich text) here."""

    def __init__(self, app: Any, areas: Any = None, place: TabPlace | None = None) -> None:
        """
        Args:
            app: The app.
            areas: The app's ``ExtensionAreas`` (statuses and widget lines are drawn there).
            place: The session's tab (None: the editor and transcript on screen are always its).
        """
        self.app = app
        self.areas = areas
        self.place = place
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, tuple[list[str], str]] = {}
        self.parts = ScreenParts(app, areas)
        """The widgets the extensions mounted (components, their editor)."""
        self.editor_factory: Callable[..., Any] | None = None
        """The factory of the extension editor in use (``get_editor_component``)."""
        self.look: dict[str, object] = {}
        """What the extensions changed of the working indicator (``FooterBar.set_working_look``)."""
        self.title: str | None = None
        """The terminal title the extensions set."""
        self.terminal_input = TerminalInput(report=app.terminal_input.report)
        """Their ``on_terminal_input`` listeners (``app.terminal_input`` while shown)."""
        self.providers: Any = None
        """Their completion providers (``app.completion.providers`` while shown)."""
        self.footer_data: Any = None
        """The ``FooterData`` given to an extension's footer (``footer_data.py``)."""
        self.before_dialog: Callable[[str], Awaitable[None]] | None = None
        """Awaited before a dialog is shown, with its title: with several sessions open, a background
        session's question waits until its tab is shown (``flows/tab_extensions.py``)."""

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
        # Statuses are part of pi's footer: an extension's footer shows them itself, if it
        # wants (footer_data.get_extension_statuses()), as in Pi.
        if self.shown and self.areas is not None:
            self.areas.draw(self.widgets, {} if "#footer" in self.components else self.statuses)

    # ------------------------------------------------------------------ on screen or put away

    @property
    def shown(self) -> bool:
        """Whether this session's tab is the one shown (what it sets is drawn at once)."""
        return self.parts.shown

    @property
    def components(self) -> dict[str, Any]:
        """Widgets extensions mounted (by widget key; ``#header``/``#footer`` for replacements)."""
        return self.parts.components

    def put_away(self) -> None:
        """Off the screen, kept: the session's tab goes to the background and pi's own look is back."""
        if not self.shown:
            return
        self.parts.hide()
        if self.areas is not None:
            self.areas.draw({}, {})
        self._pis_look_back()
        self.app.terminal_input = TerminalInput(report=self.terminal_input.report)
        self.app.completion.providers = None

    def bring_back(self) -> None:
        """On the screen again as it was left, with what changed meanwhile."""
        if self.shown:
            return
        self.parts.show()
        self._refresh()
        if self.look:
            self.app.footer_bar.set_working_look(**self.look)
        self.app.terminal_input = self.terminal_input
        self.app.completion.providers = self.providers
        self.parts.refresh()

    def discard(self) -> None:
        """The session closed: its widgets go."""
        self.put_away()
        self.parts.discard()

    def _pis_look_back(self) -> None:
        """pi's own working indicator where this session's extensions changed it."""
        if self.look:
            self.app.footer_bar.set_working_look(**{name: WORKING_LOOK_DEFAULTS[name] for name in self.look})

    def _transcript(self) -> Any:
        return self.place.transcript if self.place is not None else self.app.transcript

    def _draft(self) -> DraftLike | None:
        """The tab's draft while it is in the background (None: the editor on screen is this session's)."""
        return None if self.shown or self.place is None else self.place.draft

    # ------------------------------------------------------------------ the display layer

    async def custom(self, factory: Any, *, overlay: bool = False, overlay_options: Any = None) -> Any:
        """Show the extension's own widget until it calls ``done(value)``; returns that value."""
        from ..extension_ui.extension_screen import ExtensionScreen, build_custom

        holder: dict[str, Any] = {}

        def done(value: Any = None) -> None:
            # Once only: a second call (a loader's abort hook as its screen unmounts) would
            # dismiss whatever screen is on top by then, e.g. the extension's next dialog.
            screen = holder.get("screen")
            if screen is None:  # called inside the factory (Pi's interactive-shell example)
                holder.setdefault("early", (value,))
            elif not screen.finished:
                screen.finish(value)

        try:
            widget = build_custom(factory, self.app, self.theme, done)
        except TypeError:
            if "early" not in holder:
                raise
        if "early" in holder:
            # Finished before it was shown: nothing to show, whatever the factory returned (Pi keeps
            # the value of a done() called inside the factory even when it returns no component).
            return holder["early"][0]
        screen = ExtensionScreen(widget, overlay=overlay)
        holder["screen"] = screen
        return await self._ask(screen, None)

    def served_component(self, component: Any, *, takes_keys: bool) -> Any:
        """The widget showing a served session's component (``pi_runtime.remote.remote_ui``)."""
        from ..extension_ui.component_lines_view import ComponentLinesView  # lazily: off the start-up path
        return ComponentLinesView(component, takes_keys=takes_keys)

    def set_widget_component(self, key: str, factory: Any, *, placement: str = "aboveEditor") -> None:
        """A widget of the extension's own (``factory(tui, theme)``) above or below the editor."""
        if factory is None:
            self.parts.drop(key)
            return
        from ..extension_ui.local_lines import as_widget  # lazily: off the start-up path
        built = factory(self.app, self.theme)
        self.parts.put(key, as_widget(built) or built, placement)  # Pi's shape, or a Textual widget

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """Replace the editor with ``factory(tui, theme, keybindings)``'s ``CustomEditor`` (None: pi's)."""
        self.parts.set_editor(factory, self.theme)
        self.editor_factory = factory

    def get_editor_component(self) -> Callable[..., Any] | None:
        return self.editor_factory

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        """``factory(current)``'s provider goes on top of the completion (``extension_completion.py``)."""
        completion = self.app.completion
        on_screen = completion.providers
        completion.providers = self.providers  # a background session's stack is built aside
        try:
            completion.add_provider(factory)
            self.providers = completion.providers
        finally:
            if not self.shown:
                completion.providers = on_screen

    def session_switching(self) -> None:
        """Before ``session_start`` of a session switched to (new, resume, fork) or of reloaded
        extensions: what the extensions set goes, as Pi's ``resetExtensionUI`` does — statuses,
        widgets, header, footer, editor, completion providers, terminal listeners, the working
        look, the title and the hidden-thinking label — so handlers that set them up at start do it
        once more, not twice, and a reloaded extension does not find its old instance's widgets."""
        self.terminal_input.clear()
        self.providers = None
        if self.shown:
            self.app.completion.providers = None
        if self.editor_factory is not None:
            self.set_editor_component(None)
        for key in list(self.components):
            self.parts.drop(key)
        self.footer_data = None
        self.statuses.clear()
        self.widgets.clear()
        if self.shown:
            self._pis_look_back()
        had_title, self.look, self.title = self.title is not None, {}, None
        if had_title and self.shown:
            show_window_title(self.app)  # Pi's own title again
        if self._transcript().hidden_thinking_label is not None:
            self._transcript().set_hidden_thinking_label(None)
        self._refresh()

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        """See ``terminal_input.py``: keys reach ``handler`` first; returns the unsubscriber."""
        return self.terminal_input.add(handler)

    def set_title(self, title: str) -> None:
        """The terminal's window title (OSC 2), as Pi's ``setTitle``; Textual's ``App.title`` is only
        read by its Header widget, which pi does not show."""
        self.title = title
        if self.shown:
            write_title(self.app, title)

    def set_editor_text(self, text: str) -> None:
        draft = self._draft()
        if draft is None:
            self.app.editor.set_text(text)
        else:
            set_draft_text(draft, text)

    def get_editor_text(self) -> str:
        draft = self._draft()
        return str(self.app.editor.text if draft is None else draft.text)

    def paste_to_editor(self, text: str) -> None:
        draft = self._draft()
        if draft is None:
            self.app.editor.paste_text(text)
        else:
            paste_into_draft(draft, text)

    def _set_look(self, **changes: object) -> None:
        self.look.update(changes)
        if self.shown:
            self.app.footer_bar.set_working_look(**changes)

    def set_working_message(self, message: str | None = None) -> None:
        self._set_look(working_message=message)

    def set_working_visible(self, visible: bool) -> None:
        self._set_look(working_visible=visible)

    def set_working_indicator(self, frames: list[str] | None = None, interval_ms: int | None = None) -> None:
        from ..extension_ui.extension_area import as_extension_text

        self._set_look(
            spinner_frames=[as_extension_text(frame) for frame in frames] if frames is not None else None,
            spinner_interval=interval_ms / 1000 if interval_ms and interval_ms > 0 else None)

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        self._transcript().set_hidden_thinking_label(None if label is None else str(label))

    def set_tools_expanded(self, expanded: bool) -> None:
        self._transcript().set_tools_expanded(expanded)

    def get_tools_expanded(self) -> bool:
        return bool(self._transcript().tools_expanded)

    def set_header(self, factory: Any) -> None:
        """Replace the header line with the extension's widget (None brings pi's back)."""
        self._replace("header", factory)

    def set_footer(self, factory: Any) -> None:
        """Replace the footer with the extension's widget (None brings pi's back)."""
        self._replace("footer", factory)

    def refresh_components(self) -> None:
        """Redraw the footer, header and widgets extensions mounted (the session changed)."""
        self.parts.refresh()

    def drop_component(self, key: str) -> None:
        """Take away a component that broke (``extension_guard.py``); pi's header or footer returns."""
        self.parts.drop(key)
        self._refresh()

    def _replace(self, key: str, factory: Any) -> None:
        if factory is None:
            self.parts.drop(f"#{key}")
        else:
            from ..footer.footer_data import FooterData, takes_footer_data

            extra: tuple[Any, ...] = ()
            if key == "footer" and takes_footer_data(factory):  # Pi's (tui, theme, footerData)
                self.footer_data = FooterData(str(self.app.cwd), self.statuses)
                extra = (self.footer_data,)
            self.parts.put(f"#{key}", factory(self.app, self.theme, *extra))
        self._refresh()  # statuses leave with pi's footer and come back with it

    @property
    def theme(self) -> Any:
        from ..extension_ui.extension_theme import AppTheme

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
