"""The shown session's kernel events, applied to the app around it.

A bridge posts ``KernelEvents`` to the app; the workspace takes a background session's (its
transcript and tab only). The shown session's go to its transcript, then to the chrome (header,
footer, queue), the window title, the tree pane and the extensions' components, which mirror
the session on screen.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from pi_runtime.frontend import events as ev

from .session_start import show_start_help
from .shown_title import show_window_title

if TYPE_CHECKING:
    from .host import PiHost


class EventQueue(Protocol):
    """A session's waiting events (``Bridge``)."""

    def drain(self, budget: float | None = None) -> Iterator[ev.SessionEvent]: ...


async def apply_events(app: PiHost, bridge: EventQueue, budget: float) -> None:
    """Apply what ``bridge`` has waiting, for at most ``budget`` seconds (the rest comes in the
    bridge's next message)."""
    if await app.workspace.route(bridge) is None:
        return  # a background session's events: its transcript and tab took them
    for event in bridge.drain(budget=budget):
        await _apply(app, event)
    if app.session is not None:
        app.chrome.settle(app.session)
    app.tree_pane.sync()
    if app.extension_ui is not None:
        # Pi draws an extension's footer/header/widgets on every repaint, so they read the
        # session as it is now; Textual only redraws a widget that asks. Redraw them with pi's chrome.
        app.extension_ui.refresh_components()


async def _apply(app: PiHost, event: ev.SessionEvent) -> None:
    await app.transcript.handle(event)
    session = app.session
    assert session is not None  # the bridge exists only once a session is attached
    app.chrome.apply(event, session)
    match event:
        case ev.SessionInfoChangedEvent():
            show_window_title(app)
        case ev.SessionChangedEvent(reason=reason):
            show_window_title(app)
            app.tree_pane.session_changed(reason)
            await show_start_help(app, session)
            show_session_notices(app)  # e.g. lines skipped in the file switched to
        case ev.AgentStartEvent():
            app.transcript.set_streaming(True)
        case ev.AgentSettledEvent():
            app.transcript.set_streaming(False)
            show_session_notices(app)
            if app.extension_ui is not None and app.extension_ui.footer_data is not None:
                app.extension_ui.footer_data.check_branch()  # the run may have switched branches
        case ev.MessageEndEvent():
            show_session_notices(app)  # a save that failed is said at once
        case _:
            pass
    app.workspace.note_shown(event)


def show_session_notices(app: PiHost) -> None:
    """Lines skipped when the shown session's file was loaded, saves that failed or work again."""
    if app.session is None:
        return
    for notice in app.session.take_session_notices():
        failed = notice.startswith("Could not save")
        app.notify(notice, severity="error" if failed else "warning", timeout=12 if failed else 8)
