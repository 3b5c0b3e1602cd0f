"""Where a key or a paste goes before Textual's bindings see it.

In order: keys held while a slash command's screen comes up (``key_hold.py``), extensions'
terminal input listeners (they may swallow or rewrite the input), an extension's editor, an
extension's shortcut, the focused tree pane; whatever is left goes on to Textual.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import events

from ..terminal.key_sequences import PASTE_END, PASTE_START, events_for, sequence_for
from ..terminal.terminal_input import TerminalInput, editor_key

if TYPE_CHECKING:
    from .host import PiHost


class KeyRouting:
    """The app's input before its bindings; owns nothing but the order."""

    def __init__(self, app: PiHost, listeners: Callable[[], TerminalInput],
                 pass_on: Callable[[events.Event], Awaitable[None]]) -> None:
        """Args:
            app: the app whose keys these are.
            listeners: the shown tab's extensions' ``ctx.ui.on_terminal_input`` listeners (each
                tab has its own: asked for each key).
            pass_on: Textual's own handling of what nobody here took (``App.on_event``).
        """
        self._app = app
        self._listeners = listeners
        self._pass_on = pass_on

    async def take(self, event: events.Event) -> None:
        """Route ``event`` (a key, a paste, or any other event, which goes straight on)."""
        app = self._app
        if isinstance(event, (events.Key, events.Paste)):
            app.last_input_at = time.perf_counter()
            if not event.is_forwarded and app.key_hold.keep(event):
                return
            listeners = self._listeners()
            if not event.is_forwarded and listeners.active:
                raw = sequence_for(event) if isinstance(event, events.Key) else PASTE_START + event.text + PASTE_END
                data = listeners.dispatch(raw)
                if data != raw:
                    # An extension's listener swallowed or rewrote the input: the original goes no
                    # further, and what it wrote instead arrives as the keys (or paste) it encodes.
                    event.stop()
                    event.prevent_default()
                    for replacement in events_for(data or ""):
                        await self._past_listeners(replacement)
                    return
        await self._past_listeners(event)

    async def _past_listeners(self, event: events.Event) -> None:
        """Input past the terminal listeners: an extension's editor, then its shortcuts, then Textual."""
        app = self._app
        if (isinstance(event, events.Key) and not event.is_forwarded and app.focused is app.editor
                and app.editor.handle_input(editor_key(event))):
            # An extension's editor (CustomEditor.handle_input) took the key before the app's keys.
            event.stop()
            event.prevent_default()
            return
        if isinstance(event, events.Key) and event.key in app.extension_keys and len(app.screen_stack) == 1:
            # An extension's shortcut (pi.registerShortcut) comes before every other binding.
            event.stop()
            event.prevent_default()
            app.run_worker(self._run_shortcut(app.extension_keys[event.key]), name="extension-shortcut",
                           group="extensions", exit_on_error=False)
            return
        if (isinstance(event, events.Key) and len(app.screen_stack) == 1
                and app.tree_pane.takes_key(event.key, event.character, event.is_printable)):
            # The focused tree pane reads its keys (/tree's filters are main-view keys elsewhere).
            event.stop()
            event.prevent_default()
            return
        await self._pass_on(event)

    def report_listener_failure(self, path: str, message: str) -> None:
        """A terminal input listener's failure, shown as any extension's error is (event ``ui``)."""
        session = self._app.session
        runner = session.extension_runner if session is not None else None
        if runner is not None:
            runner.reporter.report_soon(path, "ui", message)

    async def _run_shortcut(self, key: str) -> None:
        from ..sessions.served import is_served

        session = self._app.session  # the shown tab's, when the key was pressed
        runner = session.extension_runner if session is not None else None
        if runner is not None:
            await runner.run_shortcut(key)
        elif is_served(session):
            await session.run_shortcut(key)  # the extension runs in pi serve
