"""Entry points: ``run_interactive`` for the ``pi`` command, ``create_app`` for tests and
screenshots. Both build the same ``PiApp``.

``run_interactive`` paints first and builds the session afterwards, in a worker thread,
so the footer is on screen before models, sessions and resources are read.
"""

from __future__ import annotations

import gc
import os
from typing import Any

from .app import PiApp


def create_app(session: Any, *, static: bool = False, agent_dir: str | None = None) -> PiApp:
    """The app for a ready session (tests, screenshots, SDK users).

    Args:
        session: an ``AgentSession``.
        static: no spinner, clock or cursor blink (deterministic snapshots).
        agent_dir: where keybindings.json and themes/ are read (default: the agent dir).
    """
    return PiApp(session, static=static, agent_dir=agent_dir)


def _session_factory(args: Any):
    def build() -> Any:
        try:
            from pi_runtime.modes.startup import build_session
        except ImportError:  # the CLI helper's start-up module is not there yet
            return _fallback_session(args)
        return build_session(args)

    return build


def _fallback_session(args: Any) -> Any:
    from pi_runtime.sdk import create_agent_session

    model = None
    if getattr(args, "demo", False):
        from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text

        provider = ScriptedProvider("demo", responder=lambda ctx, opts: scripted_text("This is the demo model."))
        model = provider.model("demo")
    return create_agent_session(cwd=os.getcwd(), model=model)


def _pick_session(args: Any) -> str | None:
    """``pi -r``: the session picker on its own, before the app; the chosen file (or None)."""
    from pi_runtime.modes.startup import session_dir_for
    from pi_runtime.settings import SettingsManager

    from .nav_host import NavHostApp
    from .screens.session_picker import SessionPicker

    from pi_runtime.paths import agent_dir

    cwd = os.getcwd()
    settings = SettingsManager.create(cwd)
    session_dir = session_dir_for(args, settings, cwd)
    picker = NavHostApp(lambda: SessionPicker(cwd, session_dir=session_dir),
                        theme=str(settings.get("theme") or "dark"), agent_dir=str(agent_dir()))
    chosen = picker.run()
    return str(chosen) if chosen else None


def run_interactive(args: Any) -> int:
    """Run the full-screen app until the user quits; returns the exit code."""
    if getattr(args, "resume", False):
        chosen = _pick_session(args)
        if chosen is None:
            return 0  # the user left the picker: nothing to resume
        args.session, args.resume = chosen, False
    app = PiApp(None, session_factory=_session_factory(args))
    first = _initial_prompt(args)
    if first:
        app.initial_prompt = first
    # Long streams allocate many small objects; keep start-up objects out of every collection.
    gc.freeze()
    try:
        code = app.run()
    finally:
        gc.unfreeze()
    return int(code or 0)


def _initial_prompt(args: Any) -> str | None:
    messages = list(getattr(args, "messages", []) or [])
    files = list(getattr(args, "files", []) or [])
    if not messages and not files:
        return None
    try:
        from pi_runtime.modes.inputs import initial_prompts

        prompts = initial_prompts(messages, files, None, os.getcwd())
        return prompts[0].text if prompts else None
    except Exception:  # noqa: BLE001 - fall back to the plain message text
        return "\n\n".join(messages) or None
