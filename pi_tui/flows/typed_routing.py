"""The app's step for keys typed together (a ``TypedRun``): forward the run to pi's editor when
nothing else could want the keys, else handle them one by one as if each had come alone (see
``editor/typed_text.py`` for the editor's step). Here rather than in ``editor/`` because deciding
looks at the whole app: which editor is in use, the focus, the screens, extensions' listeners and
keys held for a slash command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual import events
    from textual.message_pump import MessagePump
    from textual.screen import Screen
    from textual.widget import Widget

    from ..editor.prompt_editor import PromptEditor
    from ..terminal.typed_runs import TypedRun


class _Flag(Protocol):
    @property
    def active(self) -> bool: ...


class _Hold(Protocol):
    @property
    def holding(self) -> bool: ...


class TypingApp(Protocol):
    """What routing a typed run needs of the app: who could want the keys before the editor."""

    app_focus: bool
    @property
    def editor(self) -> PromptEditor: ...
    @property
    def default_editor(self) -> PromptEditor: ...
    @property
    def focused(self) -> Widget | None: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    @property
    def terminal_input(self) -> _Flag:
        """Extensions' terminal-input listeners (``active`` while one listens)."""
    @property
    def key_hold(self) -> _Hold:
        """Keys held for a slash command's screen."""
    @property
    def extension_keys(self) -> dict[str, str]: ...
    async def on_event(self, event: events.Event) -> None: ...


async def take_in_app(app: TypingApp, run: TypedRun) -> None:
    """The app's step: forward ``run`` to pi's editor, or handle its keys one by one."""
    editor = app.editor
    if (editor is app.default_editor and app.focused is editor and len(app.screen_stack) == 1
            and not app.terminal_input.active and not app.key_hold.holding
            and not any(key.key in app.extension_keys for key in run.keys)):
        app.app_focus = True  # as a key does
        editor.post_message(run)
        return
    for key in run.keys:
        key.set_sender(cast("MessagePump", app))  # as the driver's post would have
        await app.on_event(key)


async def editor_caught_up(editor: Widget, *, limit: float = 0.5) -> None:
    """Wait until ``editor`` has handled the keys it was handed (for a key the app handles itself).

    The app's own keys (Ctrl+C, Ctrl+G, Escape, …) run at the app, and its queue does not wait for
    the editor's: ``draft`` then Ctrl+G in one read (a fast typist, a macro, tmux) opened the
    external editor on an empty prompt and typed ``draft`` after its text; ``draft`` then Ctrl+C
    left ``draft`` and armed the quit. Pi applies keys in order. ``limit`` bounds the wait should
    the editor be stuck waiting on the app.
    """
    if not editor.message_queue_size:
        return
    import asyncio

    handled = asyncio.Event()
    editor.call_later(handled.set)
    try:
        await asyncio.wait_for(handled.wait(), limit)
    except TimeoutError:
        pass

