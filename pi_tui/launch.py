"""Entry points: ``run_interactive`` for the ``pi`` command, ``create_app`` for tests and
screenshots. Both build the same ``PiApp``.

``run_interactive`` paints first and builds the session afterwards, in a worker thread
that waits for the first frame, and for the resumed conversation's preview when there is one
(so the import-heavy build does not compete with them for the GIL). The footer shows a provisional model id from ``model_hint`` (``--demo``, an explicit
``--model provider/id``, or the global ``defaultModel`` setting) until the session is
attached and reports the real one.
"""

from __future__ import annotations

import copy
import gc
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import Worker

from .app import PiApp
from .tree.session_preview import may_preview, preview_file, read_json_object, read_preview, trusted_project_settings

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

DEMO_MODEL_ID = "demo-model"
"""``pi_runtime.modes.demo.DEMO_MODEL_ID``, repeated so the first frame needs no runtime import."""
_THINKING_SUFFIXES = ("off", "minimal", "low", "medium", "high", "xhigh")
FIRST_FRAME_WAIT = 1.0
"""Longest time the session build waits for the first frame (seconds)."""


def create_app(session: SessionPort, *, static: bool = False, agent_dir: str | None = None,
               watch_themes: bool | None = None) -> PiApp:
    """The app for a ready session (tests, screenshots, SDK users).

    Args:
        session: an ``AgentSession``.
        static: no spinner, clock or cursor blink (deterministic snapshots).
        agent_dir: where keybindings.json and themes/ are read (default: the agent dir).
        watch_themes: reload edited theme files live (default: on unless ``static``).
    """
    return PiApp(session, static=static, agent_dir=agent_dir, watch_themes=watch_themes)


def model_hint(args: Any, agent_dir: Path, cwd: str) -> str | None:
    """The model id the footer can show before the session exists, when it is known cheaply.

    None when it could differ from what the session picks: a resumed or forked session
    keeps its own model, a bare ``--model`` pattern is resolved fuzzily, ``--models`` scopes,
    and a project settings file may override the default (if the project is trusted).

    Args:
        args: the parsed command line (``CliArgs``).
        agent_dir: the agent dir (global ``settings.json``).
        cwd: the working directory (project ``.pi/settings.json``).
    """
    if any(getattr(args, name, None) for name in ("continue_", "session", "session_id", "fork", "models")):
        return None
    if getattr(args, "demo", False):
        return DEMO_MODEL_ID
    model = getattr(args, "model", None)
    if model:
        ref, _, suffix = model.rpartition(":")
        if not ref or suffix not in _THINKING_SUFFIXES:
            ref = model
        if getattr(args, "provider", None) and "/" not in ref:
            return ref
        return ref.split("/", 1)[1] if "/" in ref else None
    project = trusted_project_settings(args, agent_dir, cwd)
    if project is None or project.get("defaultModel"):
        return None  # the project may choose (or does), once its trust is known
    value = read_json_object(agent_dir / "settings.json").get("defaultModel")
    return value if isinstance(value, str) and value else None


class _CommandLineApp(PiApp):
    """``PiApp`` as the ``pi`` command runs it: a provisional footer model and a session build
    that starts once the first frame is out. (Textual also runs ``PiApp.on_mount``.)"""

    def __init__(self, *, hint: str | None, first_frame: threading.Event, args: Any = None, **kwargs: Any) -> None:
        super().__init__(None, **kwargs)
        self._hint = hint
        self._first_frame = first_frame
        self._args = args
        self.ended_by_signal: int | None = None
        """SIGTERM or SIGHUP, when one of them ended the app (``terminal/exit_signals.py``)."""

    def on_mount(self) -> None:
        from .terminal import exit_signals

        exit_signals.install(self)
        if self._hint:
            self.footer_bar.set_model(self._hint, "", False)

    def on_ready(self) -> None:
        # Textual's Ready comes as the first frame is out. (``call_after_refresh`` from on_mount
        # waited for the second layout Textual always runs after the first, ~12 ms later; the
        # interpreter sat idle for most of that while the user started typing.)
        if self._args is None or not may_preview(self._args):
            self._first_frame.set()
        else:
            # The build waits for the preview's frame too: both need the interpreter, and the
            # last messages on screen are what the user looks at first.
            self.run_worker(self._read_preview, thread=True, name="preview", group="startup", exit_on_error=False)

    async def ask_missing_folder(self, recorded: str, current: str) -> str | None:
        """Pi's start-up question when the chosen session's folder is gone (the build waits):
        ``continue``, ``fork`` or None (cancel: pi ends, as Pi does)."""
        from .flows.resume_flows import MissingFolderPrompt, ask_screen

        return await ask_screen(self, MissingFolderPrompt(recorded, current))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Textual runs PiApp's handler after this one unless the default is prevented.
        if event.worker.name == "build-session" and isinstance(event.worker.error, StartCancelled):
            event.prevent_default()
            self.exit(0)  # the user cancelled at a start-up question: nothing to show

    async def ask_project_trust(self, folder: str) -> bool:
        """Pi's trust question (the build thread waits for it); saves the decision when asked to."""
        from .dialogs.trust_prompt import ask_project_trust

        return await ask_project_trust(self, folder)

    def _read_preview(self) -> None:
        """The end of the resumed conversation, shown while the session is still being built."""
        try:
            path = preview_file(self._args, self.agent_dir, self.cwd)
            messages = read_preview(path) if path is not None else None
        except Exception:  # noqa: BLE001 - a preview is a nicety; the session shows the truth
            messages = None
        if not messages:
            self._first_frame.set()
            return
        # mypy cannot solve Textual's return type variable for a coroutine callback.
        self.call_from_thread(self._show_preview, messages)  # type: ignore[arg-type]

    async def _show_preview(self, messages: list[Any]) -> None:
        try:
            if self.session is None:
                await self.transcript.show_preview(messages)
        finally:
            self.call_after_refresh(self._first_frame.set)


class StartCancelled(Exception):
    """The user cancelled a question asked while the session was being built."""


def _session_factory(args: Any, first_frame: threading.Event | None = None,
                     ask_trust: Callable[[str], bool] | None = None, preloaded: Any = None,
                     ask_folder: Callable[[str, str], str | None] | None = None):
    """The session build, for a worker thread; ``ask_trust(folder)`` asks the user (on the app's
    loop) when the project's trust is still open, and its answer becomes ``--approve``;
    ``ask_folder(recorded, current)`` asks what to do when the chosen session's folder is gone.
    ``preloaded``: the extensions the command line loaded to check their flags before the app
    painted (``pi_runtime.modes.cli_extensions.preload_for_app``), for the build to reuse."""
    def build() -> Any:
        if first_frame is not None:
            first_frame.wait(FIRST_FRAME_WAIT)
        try:
            from pi_runtime.frontend.app_support import collector_paused
        except ImportError:  # the CLI helper's start-up module is not there yet
            return _fallback_session(args)
        # The kernel's and the HTTP client's imports (hardly any garbage) without collections on the way.
        with collector_paused():
            try:
                from pi_runtime.frontend.app_support import prepare_requests
            except ImportError:
                return _fallback_session(args)
            # The HTTP client's imports, beside the kernel's and the build: a prompt typed as the first
            # frame shows waits for both (they cost about what the build does).
            prepare_requests()
            from pi_runtime.frontend.app_support import build_session, trust_question
        if ask_trust is not None:
            folder = trust_question(args)
            if folder is not None:
                args.approve = ask_trust(folder)
        try:
            session = build_session(args, preloaded=preloaded)
        except Exception as exc:
            from pi_runtime.frontend.app_support import SessionFolderGone

            if ask_folder is None or not isinstance(exc, SessionFolderGone):
                raise
            session = _build_in_place_of(args, exc, ask_folder(exc.recorded, exc.current), preloaded)
        # Its model's provider module (and trust store), on a worker thread while the session is
        # attached and the user types.
        prepare_requests(getattr(session, "model", None))
        return session

    return build


def _build_in_place_of(args: Any, gone: Any, choice: str | None, preloaded: Any) -> Any:
    """The session when its recorded folder is gone, after the user's ``choice``: continued in the
    current folder, or forked into a new session there (the original file is left as it is)."""
    from pi_runtime.frontend import SettingsManager
    from pi_runtime.frontend.app_support import build_session, fork_into, session_dir_for

    if choice is None:
        raise StartCancelled
    if choice == "continue":
        return build_session(args, preloaded=preloaded, folder_gone_ok=True)
    session_dir = session_dir_for(args, SettingsManager.create(gone.current), gone.current)
    args.session = fork_into(gone.session_file, gone.current, session_dir)
    args.continue_, args.fork, args.session_id = False, None, None
    return build_session(args, preloaded=preloaded)


def _fallback_session(args: Any) -> Any:
    from pi_runtime.frontend import create_agent_session

    model = None
    if getattr(args, "demo", False):
        from pi_runtime.frontend import ScriptedProvider, scripted_text

        provider = ScriptedProvider("demo", responder=lambda ctx, opts: scripted_text("This is the demo model."))
        model = provider.model("demo")
    return create_agent_session(cwd=os.getcwd(), model=model)


def _pick_session(args: Any) -> str | None:
    """``pi -r``: the session picker on its own, before the app; the chosen file (or None)."""
    from pi_runtime.frontend import SettingsManager, agent_dir
    from pi_runtime.frontend.app_support import session_dir_for

    from .sessions.session_picker import SessionPicker
    from .terminal import exit_signals
    from .terminal.app_driver import driver_class_for
    from .tree.nav_host import NavHostApp

    class PickerApp(NavHostApp):
        ended_by_signal: int | None = None

        def get_driver_class(self) -> Any:
            return driver_class_for(super().get_driver_class())

        def on_mount(self) -> None:  # NavHostApp's own on_mount runs too (Textual calls each class's)
            exit_signals.install(self)  # SIGTERM/SIGHUP leave the picker as Esc does

    cwd = os.getcwd()
    settings = SettingsManager.create(cwd)
    session_dir = session_dir_for(args, settings, cwd)
    picker = PickerApp(lambda: SessionPicker(cwd, session_dir=session_dir),
                       theme=settings.settings.theme or "dark", agent_dir=str(agent_dir()))
    chosen = picker.run()
    return str(chosen) if chosen else None


def run_interactive(args: Any, typeahead: Any = None, preloaded: Any = None) -> int:
    """Run the full-screen app until the user quits; returns the exit code.

    Args:
        args: The parsed command line.
        typeahead: What the user typed while pi started (``pi_runtime.modes.typeahead``).
        preloaded: Extensions already loaded for the command line's flags (or None).
    """
    if getattr(args, "resume", False):
        chosen = _pick_session(args)
        if chosen is None:
            return 0  # the user left the picker: nothing to resume
        args.session, args.resume = chosen, False
    from pi_runtime.frontend import agent_dir

    first_frame = threading.Event()
    app = _CommandLineApp(hint=model_hint(args, agent_dir(), os.getcwd()), first_frame=first_frame, args=args)
    # Kept as given: the build below writes the first folder's trust answer into ``args``.
    app.command_line = copy.deepcopy(args)
    def ask_trust(folder: str) -> bool:  # on the build thread: waits for the answer on the app's loop
        return bool(app.call_from_thread(app.ask_project_trust, folder))  # type: ignore[arg-type]  # see above

    def ask_folder(recorded: str, current: str) -> str | None:  # on the build thread, as ask_trust
        return app.call_from_thread(app.ask_missing_folder, recorded, current)  # type: ignore[arg-type]

    app.session_factory = _session_factory(args, first_frame, ask_trust=ask_trust, preloaded=preloaded,
                                           ask_folder=ask_folder)
    first = _initial_prompt(args)
    if first:
        app.initial_prompt = first
    if typeahead is not None:
        app.typeahead_lines, app.typeahead_partial = list(typeahead.lines), typeahead.partial
    _follow_the_terminals_size()
    # Long streams allocate many small objects; keep start-up objects out of every collection.
    gc.freeze()
    try:
        code = app.run()
    finally:
        gc.unfreeze()
    if app.ended_by_signal is None:
        _print_exit_output(app)
    unsaved = _report_unsaved(app)
    return int(code or (1 if unsaved else 0))


def _follow_the_terminals_size() -> None:
    """Drop exported ``COLUMNS``/``LINES`` when the terminal can say its size itself.

    They are a snapshot taken when some parent exported them, and Textual reads them before the
    terminal (``shutil.get_terminal_size``) at start and after every SIGWINCH: with them set, pi
    never followed a resize (the screen stayed drawn for the old size). Pi reads the terminal.
    Where the terminal reports no size (0x0), they stay the only figure there is.
    """
    import sys

    try:
        size = os.get_terminal_size(sys.__stdout__.fileno()) if sys.__stdout__ is not None else None
    except (OSError, ValueError):
        return
    if size is not None and size.columns and size.lines:
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)


def _print_exit_output(app: PiApp) -> None:
    """The conversation and the resume command, on the normal screen the app has gone back to."""
    import shutil
    import sys

    from .transcript.exit_output import exit_output

    session = app.session
    if session is None:
        return
    try:
        from pi_runtime.frontend import typed_settings

        mode = typed_settings(session.settings).fullscreen_exit_output
        # Wrapped one column short of the width: a line exactly as wide as the terminal leaves
        # some terminals' cursor past the edge, and the next line would start a blank one.
        width = shutil.get_terminal_size((80, 24)).columns - 1
        text = exit_output(session, mode, cwd=app.cwd, width=width, color=sys.stdout.isatty())
    except Exception:  # noqa: BLE001 - a failure here must not turn a clean exit into a traceback
        return
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


def _report_unsaved(app: PiApp) -> bool:
    """Say on stderr which open session's file lacks entries a failed save left in memory (a full
    disk): the app's error notice is gone with its screen, and the resume line alone would let the
    user think everything is in the file. True when one does, as headless modes exit 1 then."""
    import sys

    from pi_runtime.frontend.app_support import unsaved_report

    sessions: list[object] = [entry.session for entry in app.workspace.sessions] or [app.session]
    reports = [report for session in sessions if (report := unsaved_report(session))]
    for report in reports:
        print(f"pi: {report}", file=sys.stderr)
    return bool(reports)


def _initial_prompt(args: Any) -> str | None:
    messages = list(getattr(args, "messages", []) or [])
    files = list(getattr(args, "files", []) or [])
    if not messages and not files:
        return None
    try:
        from pi_runtime.frontend.app_support import initial_prompts

        prompts = initial_prompts(messages, files, None, os.getcwd())
        return prompts[0].text if prompts else None
    except Exception:  # noqa: BLE001 - fall back to the plain message text
        return "\n\n".join(messages) or None
