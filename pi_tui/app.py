"""``PiApp``: the full-screen app. Layout, and the glue between widgets and the kernel (the key
table, Pi's ids, is ``keys/key_table.py``; what the keys do, ``flows/app_actions.py``; where a key
goes first, ``flows/key_routing.py``; what follows a session's attach, ``flows/session_start.py``;
the shown session's events, ``flows/shown_events.py``; what settings do, ``flows/app_settings.py``).

The app receives kernel events only through ``Bridge`` (``on_kernel_events``) and talks to the
kernel only through ``SessionPort``, in named workers (``exit_on_error=False``). ``session``,
``transcript`` and ``bridge`` are the workspace's shown tab's, read-only; slash commands are
declared once in ``commands.py`` and get the session they were typed in.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.driver import Driver
from textual.reactive import Reactive
from textual.widgets import TextArea
from textual.worker import Worker, WorkerState

from .bridge import EVENT_BATCH_SECONDS, Bridge, KernelEvents
from .commands.commands import COMMANDS
from .editor.completion_menu import CompletionMenu
from .editor.key_hold import KeyHold
from .editor.prompt_editor import PromptEditor
from .flows.app_actions import AppActions
from .flows.app_settings import apply_display_settings, apply_editor_keys, reload_resources, use_session_themes
from .flows.completion_controller import CompletionController
from .flows.input_controller import InputController
from .flows.key_routing import KeyRouting
from .flows.pane_controller import TreePaneController
from .flows.session_chrome import SessionChrome
from .flows.session_start import help_can_come_first, show_start_help, start_session
from .flows.shown_events import apply_events, show_session_notices
from .flows.shown_title import show_window_title
from .flows.theme_colors import ThemeColors
from .flows.typed_routing import editor_caught_up, take_in_app
from .flows.workspace import Workspace
from .footer.footer_bar import FooterBar
from .footer.header_bar import HeaderBar
from .keys.key_table import APP_BINDINGS
from .keys.keymap import Keymap, load_keymap
from .queue.queue_pane import QueuePane
from .sessions.session_tabs import SessionTabs
from .terminal import escape_key, extended_keys, terminal_keys, typed_runs
from .terminal.app_driver import driver_class_for
from .terminal.terminal_input import TerminalInput
from .terminal.typed_runs import TypedRun, is_plain_printable
from .theme.theme_service import ThemeService, theme_variable_defaults
from .transcript.jump_hint import EndOutOfSight, JumpToLatest
from .transcript.transcript import Transcript

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort
    from pi_runtime.frontend.app_support import CliArgs

    from .extension_ui.extension_area import ExtensionAreas
    from .flows.app_extension_ui import AppExtensionUI
    from .terminal.steady_screen import SteadyScreen

terminal_keys.install()
extended_keys.install()
escape_key.install()
typed_runs.install()


class PiApp(AppActions, inherit_bindings=False):
    """The interactive pi app (Textual's own ctrl+q/ctrl+c bindings are dropped: every key comes from Pi's keymap)."""

    CSS_PATH = "app.tcss"
    TITLE = "pi"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = APP_BINDINGS
    theme: Reactive[str] = Reactive("dark")
    """pi starts in its own "dark" (see ``__init__``); the settings' choice is applied at attach."""

    def __init__(self, session: SessionPort | None = None, *, session_factory: Callable[[], Any] | None = None,
                 static: bool = False, agent_dir: str | None = None, cwd: str | None = None,
                 version: str | None = None, watch_themes: bool | None = None) -> None:
        """
        Args:
            session: a ready ``AgentSession`` (tests, screenshots), or None with ``session_factory``.
            session_factory: builds the session in a worker thread after the first paint.
            static: no spinner/clock/cursor blink (snapshots).
            agent_dir: where keybindings.json and themes/ live (default: the agent dir).
            cwd: shown in header and footer (default: the session's or the process's).
            watch_themes: reload edited theme files live (default: on unless ``static``).
        """
        # ANSI colours pass through as they are: the terminal's default background ($pi-bg) is
        # drawn as "default", not converted into the theme's truecolor grey.
        super().__init__(ansi_color=True)
        from pi_runtime.frontend import __version__
        from pi_runtime.frontend import agent_dir as default_agent_dir

        self.workspace = Workspace(self)
        """The open sessions (tabs); ``session``, ``transcript`` and ``bridge`` are the shown one's."""
        self._first_session: SessionPort | None = session
        """The session given or built, until it is attached (then the workspace's shown one counts)."""
        self._first_transcript: Transcript | None = None
        """The transcript composed with the app, until the first session is attached."""
        self.session_factory = session_factory
        self.static = static
        self.agent_dir = Path(agent_dir) if agent_dir else default_agent_dir()
        self._start_cwd = cwd or getattr(session, "cwd", None) or os.getcwd()
        """Where pi started: the folder shown until a session (which has its own) is."""
        self.version = version or __version__
        self.keymap: Keymap = load_keymap(self.agent_dir / "keybindings.json")
        self.watch_themes = (not static) if watch_themes is None else watch_themes
        self.themes = ThemeService(self, [self.agent_dir / "themes"])
        """Loaded themes, the user's choice and live reload (a project's themes join once the
        session says the project is trusted: ``attach_session``)."""
        self.input = InputController(self)
        self.key_hold = KeyHold(self)
        """Keys typed right after a slash command, until what it opens is on screen (``key_hold.py``)."""
        """Where sent text goes; Esc and the quit keys."""
        self.completion = CompletionController(self, lambda: COMMANDS.menu_entries(self.session))
        self.last_input_at = 0.0
        """``time.perf_counter()`` of the last key or paste (streaming frames yield to it)."""
        self.extension_keys: dict[str, str] = {}
        """Textual key -> the key (Pi's syntax) an extension registered a shortcut for."""
        self.key_routing = KeyRouting(self.host, lambda: self.terminal_input, super().on_event)
        """Where a key goes before the bindings (``flows/key_routing.py``)."""
        self.terminal_input: TerminalInput = TerminalInput(report=self.key_routing.report_listener_failure)
        """Extensions' ``ctx.ui.on_terminal_input`` listeners (they see keys before anything else)."""
        self.extension_ui: AppExtensionUI | None = None
        """The shown session's extensions' ``ctx.ui`` (each open session has its own)."""
        self.extension_areas: ExtensionAreas | None = None
        """Where extensions' statuses and widget lines are drawn (mounted with the first ``ctx.ui``)."""
        self.initial_prompt: str | None = None
        """Sent once the session is attached (``pi "message"``)."""
        self.command_line: CliArgs | None = None
        """The ``pi`` command line (``CliArgs``) the first session was built from, as given: a
        session resumed from another folder is built from it again there (None: the defaults)."""
        self.typeahead_lines: list[str] = []
        """Lines typed (with Enter) while pi started, before the app read the terminal."""
        self.typeahead_partial = ""
        """Text typed after the last of those lines (it starts the editor)."""
        self.theme_colors = ThemeColors(self)
        """The theme's colours where CSS does not reach (``flows/theme_colors.py``)."""
        self.tmux_checked = False
        """Whether tmux's extended-keys setting was looked at (once per app)."""
        self.start_notices: list[tuple[str, str]] = []
        self.tree_pane = TreePaneController(self)
        """The live session tree beside the transcript (``/pane tree``)."""
        self.themes.load()
        # "dark" is the starting theme (the class default) but was registered only just now: the
        # stylesheet takes its colours here, before its first parse. Setting ``theme`` instead (from
        # Textual's "textual-dark") parsed and applied every stylesheet a second time before the
        # first frame (7 ms).
        self.stylesheet.set_variables(self.get_css_variables())
        self.set_class(True, "-theme-dark")

    # The shown session and its panes: derived from the workspace's shown tab, never re-pointed, so
    # there is one source of truth. Flows that act on one session take it when they start.

    @property
    def session(self) -> SessionPort | None:
        """The session shown; None while it is being built (``session_factory``)."""
        active = self.workspace.active
        return active.session if active is not None else self._first_session

    @property
    def cwd(self) -> str:
        """The shown session's folder (each session runs in its own: a resumed one's may differ)."""
        session = self.session
        return (session.cwd if session is not None else None) or self._start_cwd

    @property
    def transcript(self) -> Transcript:
        """The shown session's transcript."""
        active = self.workspace.active
        if active is not None:
            return active.transcript
        assert self._first_transcript is not None, "the transcript is composed with the app"
        return self._first_transcript

    @property
    def bridge(self) -> Bridge | None:
        """The shown session's bridge (None until the first session is attached)."""
        active = self.workspace.active
        return active.bridge if active is not None else None

    # ------------------------------------------------------------------ setup

    def get_driver_class(self) -> type[Driver]:
        # Pi's modifyOtherKeys request (Shift+Enter under tmux) and a safe end when the terminal closes.
        return driver_class_for(super().get_driver_class(), typed_runs=True)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, TypedRun):  # keys that arrived together (terminal/typed_runs.py)
            self.last_input_at = time.perf_counter()
            await take_in_app(self, event)
            return
        if isinstance(event, events.Key) and not event.is_forwarded and not is_plain_printable(event):
            await editor_caught_up(self.editor)  # the app's keys come after the ones typed before them
        await self.key_routing.take(event)

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG screenshot, in a terminal whose background is the theme's page colour
        (pi draws on the terminal's own background; see ``theme/screenshot_terminal.py``)."""
        from .theme.screenshot_terminal import export_svg

        return export_svg(self, title or self.title, simplify)

    def _handle_exception(self, error: Exception) -> None:
        # Textual's private hook (terminal/textual_internals.py checks it is still called) for an
        # exception in any widget (it ends the app). An extension's own
        # widget breaking is the extension's failure, not pi's: reported, widget removed.
        from .flows.extension_guard import contain_extension_error

        if contain_extension_error(self, error):
            return
        super()._handle_exception(error)

    def get_default_screen(self) -> SteadyScreen:
        from .terminal.steady_screen import SteadyScreen

        return SteadyScreen(id="_default")

    def compose(self) -> ComposeResult:
        self.header_bar = HeaderBar(version=self.version, cwd=self.cwd, id="header")
        self.session_tabs = SessionTabs(id="session-tabs")
        self._first_transcript = Transcript(self.session, cwd=self.cwd, id="transcript")
        self.menu = CompletionMenu(id="completion")
        self.queue_view = QueuePane(id="queue")
        # "thinking-off" (the border every model without a level shows) from the start: the session's
        # level, known once it is attached, is most often "off", and a class changed then restyles
        # the editor (2 ms) while the first prompt is typed.
        self.editor = PromptEditor(id="editor", classes="thinking-off")
        self.default_editor = self.editor
        """pi's own editor; ``editor`` is an extension's while one replaced it (``editor_swap.py``)."""
        self.footer_bar = FooterBar(cwd=self.cwd, static=self.static, id="footer")
        self.editor.menu = self.menu
        self.queue_view.return_focus = lambda: self.set_focus(self.editor)
        self.menu.refresh_for_text = lambda: self.completion.update()
        self.footer_bar.branch = self.header_bar.branch
        self.chrome = SessionChrome(self.header_bar, self.footer_bar, self.queue_view, self.editor)
        yield self.header_bar
        yield self.session_tabs
        self.jump_hint = JumpToLatest(id="jump-to-latest")
        with Horizontal(id="workspace"):  # the transcripts (one per session), and the tree pane beside them when open
            yield self.transcript
            yield self.jump_hint
        yield self.menu
        yield self.queue_view
        yield self.editor
        yield self.footer_bar

    def on_mount(self) -> None:
        from .terminal.terminal_passthrough import TerminalPassthrough
        from .terminal.textual_internals import hide_toast_rack

        hide_toast_rack(self.screen)

        self.terminal_passthrough = TerminalPassthrough(self)
        self.begin_capture_print(self, stdout=True, stderr=False)
        self.set_keymap(self.keymap.textual_keymap())
        self.jump_hint.key = self.keymap.first_key("tui.altScreen.bottom")
        apply_editor_keys(self)
        self.theme_changed_signal.subscribe(self, lambda _theme: self.theme_colors.push())
        # Back from Ctrl+Z (fg): the terminal shows the shell's screen until everything is drawn
        # again; Textual only draws what changes, so nothing came back until the next message.
        self.app_resume_signal.subscribe(self, lambda _app: self.repaint_all())
        self.theme_colors.push()
        if self.static:
            self.editor.cursor_blink = False
        self.editor.focus()
        self.input.take_typeahead(self.typeahead_lines, self.typeahead_partial)
        for problem in self.keymap.problems + self.themes.errors:
            self.notify(problem, severity="warning", timeout=8)
        if self.watch_themes:
            self.call_after_refresh(self.themes.start_watching)
        if self.session is not None:
            self.call_later(self.attach_session, self.session)
        elif self.session_factory is not None:
            self.input.show_starting()
            self.run_worker(self.session_factory, thread=True, name="build-session", group="startup",
                            exit_on_error=False)

    def show_status(self, text: str) -> None:
        """A status line in the shown transcript (``Transcript.show_status``), as Pi's ``showStatus``."""
        self.call_later(self.transcript.show_status, text)

    def repaint_all(self) -> None:
        """Draw every cell of the screen again (after the terminal was given to another program)."""
        for screen in self.screen_stack:
            screen.refresh(layout=True)

    def request_render(self, force: bool = False) -> None:
        """Draw extensions' components of Pi's shape again (Pi's ``tui.requestRender()``, for the
        components a factory built with this app as its ``tui``)."""
        from .extension_ui.component_lines_view import redraw_component_views

        redraw_component_views(self.screen_stack)

    def on_end_out_of_sight(self, message: EndOutOfSight) -> None:
        if message.transcript is self.transcript:  # not a hidden tab's, nor the tree's preview
            self.jump_hint.place(message.transcript)

    async def on_jump_to_latest_clicked(self, message: JumpToLatest.Clicked) -> None:
        await self.action_scroll_transcript("end")

    def on_print(self, event: events.Print) -> None:
        """Captured stdout: an extension's OSC escapes (notifications) go on to the terminal."""
        self.terminal_passthrough.feed(event.text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.name == "build-session":
            if event.state == WorkerState.SUCCESS:
                self.footer_bar.set_working(False)
                self.call_later(self.attach_session, worker.result)
            elif event.state == WorkerState.ERROR:
                from pi_runtime.frontend.app_support import UsageError

                # A command-line mistake found only now (an extension flag, once the trust
                # question let project extensions load) is still a usage error: exit 2.
                code = 2 if isinstance(worker.error, UsageError) else 1
                self.exit(code, return_code=code, message=f"pi: {worker.error}")
        elif event.state == WorkerState.ERROR:
            self.notify(f"{worker.name or 'task'} failed: {worker.error}", severity="error", timeout=8)

    async def attach_session(self, session: SessionPort) -> None:
        """Show ``session``: subscribe through the bridge and render its history."""
        # One frame for the chrome, the history and the start-up help (each its own frame, with
        # its own layout, cost 4-7 ms while the first prompt is typed).
        with self.batch_update():
            self._first_session = session
            self.transcript.session = session
            use_session_themes(self, session)
            bridge = Bridge(session, self)
            self.transcript.messages_when = bridge.messages_when
            bridge.start()
            self.workspace.adopt_first(session, bridge, self.transcript)
            self.chrome.show(session)
            show_window_title(self)
            show_session_notices(self.host)
            await self.transcript.load_messages(session.messages)
            help_shown = help_can_come_first(session)
            if help_shown:
                await show_start_help(self, session)
        # Extensions start in a worker, never in this message handler: a session_start handler
        # that asks something (ctx.ui.select) needs the app's loop free to take the keys.
        from pi_runtime.frontend.app_support import startup_problems

        # What is wrong with the config files (a settings key left out, a broken models.json),
        # said once at start as the headless modes say it on stderr (Pi shows them too).
        self.start_notices.extend((problem, "warning") for problem in startup_problems(session))
        self.run_worker(start_session(self, session, help_shown=help_shown), name="start-session", group="session",
                        exit_on_error=False)

    def apply_display_settings(self) -> None:
        """Padding, menu height, scrollbar and folded thinking from the settings (start, /settings)."""
        apply_display_settings(self)

    # ------------------------------------------------------------------ kernel events

    def push_screen(self, *args: Any, **kwargs: Any) -> Any:
        result = super().push_screen(*args, **kwargs)
        self.key_hold.release_after_refresh()  # keys typed after the command that opened it
        return result

    async def on_kernel_events(self, message: KernelEvents) -> None:
        await apply_events(self.host, message.bridge, EVENT_BATCH_SECONDS)

    def model_ref(self) -> str:
        """``provider/id`` of the model in use ("" before there is one)."""
        model = self.session.model if self.session is not None else None
        return model.ref if model is not None else ""

    async def run_command(self, text: str) -> bool:
        """Start the built-in slash command ``text`` for the shown session (``CommandRegistry.run``)."""
        return await COMMANDS.run(self, text)

    async def run_command_now(self, name: str, session: SessionPort, arg: str = "") -> None:
        """Run built-in ``/name`` for ``session`` and wait for it."""
        command = COMMANDS.get(name)
        if command is None:
            raise ValueError(f"/{name} is not a built-in command")
        await command.run(self, session, arg)

    # ------------------------------------------------------------------ themes

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def refresh_theme(self) -> None:
        """Re-apply the current theme's colours (same name, edited file)."""
        self.mutate_reactive(App.theme)

    async def reload_resources(self) -> None:
        """``/reload``: settings, keybindings, themes and resources from disk again."""
        await reload_resources(self)

    # ------------------------------------------------------------------ editor messages

    async def on_prompt_editor_submitted(self, message: PromptEditor.Submitted) -> None:
        await self.input.submit(message.text, message.mode, message.images)

    def on_prompt_editor_completion_requested(self, message: PromptEditor.CompletionRequested) -> None:
        self.completion.complete_path()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self.editor:
            self.completion.update()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self.editor and self.menu.is_open:
            self.completion.update()

    # ------------------------------------------------------------------ leaving

    def request_quit(self) -> None:
        """Every way of quitting comes here: asks first when another open session still works."""
        from .flows.open_flows import request_quit

        request_quit(self)

    async def action_quit(self) -> None:
        self.request_quit()

    async def on_unmount(self) -> None:
        self.themes.stop_watching()
        # Quitting ends every open session like every other mode does: runs are aborted and
        # extensions get session_shutdown, once per session. A hung handler must not keep pi open.
        if self.workspace.sessions:
            await self.workspace.shut_down()
        elif self.session is not None:
            from .flows.workspace import dispose_session

            if self.bridge is not None:
                self.bridge.stop()
            await dispose_session(self.session)
