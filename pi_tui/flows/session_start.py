"""What happens once a session is shown: its extensions start, an empty session gets the key
hints (or, with no usable model, how to connect one), tmux's extended keys are checked once and
the message given on the command line is sent."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ..terminal import extended_keys
from ..transcript.start_hints import StartHints
from .bound import transcript_of
from .session_chrome import loaded_resources

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .host import PiHost



async def start_session(app: PiHost, session: SessionPort, *, help_shown: bool = False) -> None:
    """After a session is attached: its extensions start, then the start-up help (unless the attach
    showed it: ``help_shown``), the tmux warning and the message given on the command line (a
    worker: a handler may ask something)."""
    from .tab_extensions import start_tab_extensions

    entry = app.workspace.entry_for(session)
    if entry is not None:
        await start_tab_extensions(app, app.workspace, entry)
    if not help_shown:
        await show_start_help(app, session)
    await warn_about_tmux_keys(app)
    await say_full_screen_only(app, session)
    notices, app.start_notices = app.start_notices, []
    for text, kind in notices:
        await app.transcript.add_notice(text, kind)
    sending = bool(app.initial_prompt or app.input.pending_texts)
    if app.initial_prompt:
        text, app.initial_prompt = app.initial_prompt, None
        await app.input.send(text)
    await app.input.session_attached()
    app.transcript.warm_up(at_answer=sending)
    build_picker_models_soon(app, session)


PICKER_MODELS_DELAY = 0.25
"""Seconds after a session starts, and again while it answers or the user types, before the model
picker's rows are built ahead (``build_models_ahead``): not while a prompt is typed, on its way or
streaming (measured with ``bench/tui_first_answer.py --after-footer``)."""


def build_picker_models_soon(app: PiHost, session: SessionPort) -> None:
    """Build the models ``/model`` offers once the session is quiet, so its first open does not."""
    import time

    def due() -> None:
        if session.is_streaming or time.perf_counter() - app.last_input_at < PICKER_MODELS_DELAY:
            app.set_timer(PICKER_MODELS_DELAY, due)
            return
        from ..dialogs.model_picker import build_models_ahead

        # The function, not a coroutine: an app closing before the worker starts leaves none unawaited.
        app.run_worker(partial(build_models_ahead, session), name="picker-models", group="startup",
                       exit_on_error=False)

    app.set_timer(PICKER_MODELS_DELAY, due)


FULL_SCREEN_ONLY = ("pi always runs full-screen: tuiMode \"regular\" (Pi's inline mode, in the terminal's "
                    "own scrollback) is not available; the conversation is printed when pi exits.")


async def say_full_screen_only(app: PiHost, session: SessionPort) -> None:
    """Once per app: the settings (or ``--tui-mode``) ask for Pi's inline mode, which pi has not."""
    from pi_runtime.frontend import typed_settings

    if getattr(app, "_said_full_screen_only", False):
        return
    asked = getattr(app.command_line, "tui_mode", None) or typed_settings(session.settings).tui_mode
    if asked == "regular":
        app._said_full_screen_only = True  # type: ignore[attr-defined]  # once per app
        await transcript_of(app, session).add_notice(FULL_SCREEN_ONLY, "warning")


async def warn_about_tmux_keys(app: PiHost) -> None:
    """Pi's start-up warning when tmux would drop Shift+Enter (asked once, off the loop)."""
    if app.static or app.tmux_checked:
        return
    app.tmux_checked = True
    if not extended_keys.inside_tmux():
        return  # nothing to ask: no thread hop ahead of a prompt typed while pi started
    import asyncio

    warning = await asyncio.to_thread(extended_keys.tmux_warning)
    if warning:
        await app.transcript.add_notice(warning, "warning")


def help_can_come_first(session: SessionPort) -> bool:
    """Whether the key hints can be shown as the session is attached, before its extensions start:
    none runs in this process (a handler's message, provider or resources could change what the
    hints say), so nothing comes between the attach and the hints either way. (Not the welcome
    panel of a session without a usable model: it probes for local servers as it comes, and stays
    after the start.)"""
    from ..sessions.served import is_served

    return session.extension_runner is None and not is_served(session) and has_credentials(session)


async def show_start_help(app: PiHost, session: SessionPort) -> None:
    """An empty session starts with the key hints, or how to connect a model if none can be used."""
    if session.messages:
        return
    from pi_runtime.frontend import typed_settings

    quiet = typed_settings(session.settings).quiet_startup
    verbose = bool(getattr(app.command_line, "verbose", False))
    if verbose:  # --verbose: the whole start-up help, whatever quietStartup says (Pi)
        quiet = False
    # The session's own transcript: its extensions' start may have awaited while another tab came up.
    transcript = transcript_of(app, session)
    if has_credentials(session):
        if quiet is True:
            return
        loaded = [] if quiet == "header" else loaded_resources(session)
        await transcript.mount(StartHints(app.keymap, loaded=loaded,
                                          expanded=verbose or transcript.tools_expanded))
    else:
        # Imported here: it lists the catalogue's providers (the catalogue decoded, about 8 ms), which
        # the first frame never shows and a session with credentials never needs.
        from ..transcript.welcome_panel import WelcomePanel

        await transcript.mount(WelcomePanel(model=app.model_ref(), agent_dir=str(app.agent_dir)))
        # Read from its headline down: the guide is often taller than the window.
        transcript.release_anchor()
        app.call_after_refresh(transcript.scroll_home, animate=False)


def has_credentials(session: SessionPort) -> bool:
    """Whether the session's model can be used (a key or a login for its provider)."""
    registry = session.model_registry
    model = session.model
    if model is None:
        return False
    try:
        return registry is None or bool(registry.has_credentials(model))
    except Exception:  # noqa: BLE001
        return False
