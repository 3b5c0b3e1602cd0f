"""``PiApp``: the full-screen app. Layout, theme, and the glue between widgets and the kernel
(the key table, Pi's ids, is ``keys/key_table.py``; what the keys do, ``flows/app_actions.py``;
what follows a session's attach, ``flows/session_start.py``).

The app receives kernel events only through ``Bridge`` (``on_kernel_events``) and talks to
the kernel only through its ``SessionPort``, in named workers (``exit_on_error=False``) so a
failing call becomes an inline notice. The app composes parts that own their state: the
input controller (what is sent, Esc and the quit keys), completion, and the theme service;
slash commands are declared once in ``commands.py``.
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
from textual.widgets import TextArea
from textual.worker import Worker, WorkerState

from pi_runtime.frontend import events as ev

from .bridge import EVENT_BATCH_SECONDS, Bridge, KernelEvents
from .commands.commands import COMMANDS
from .editor.completion_menu import CompletionMenu
from .editor.key_hold import KeyHold
from .editor.prompt_editor import PromptEditor
from .editor.typed_text import take_in_app
from .flows.app_actions import AppActions
from .flows.completion_controller import CompletionController
from .flows.input_controller import InputController
from .flows.pane_controller import TreePaneController
from .flows.session_chrome import SessionChrome
from .flows.session_start import show_start_help, start_session
from .flows.workspace import Workspace
from .footer.footer_bar import FooterBar
from .footer.header_bar import HeaderBar
from .keys.key_table import APP_BINDINGS
from .keys.keymap import Keymap, load_keymap
from .queue.queue_pane import QueuePane
from .sessions.session_tabs import SessionTabs
from .terminal import escape_key, extended_keys, terminal_keys, typed_runs
from .terminal.app_driver import driver_class_for
from .terminal.key_sequences import PASTE_END, PASTE_START, events_for, sequence_for
from .terminal.terminal_input import TerminalInput, editor_key
from .terminal.textual_internals import whole_screen_render
from .terminal.typed_runs import TypedRun
from .terminal.window_title import show_window_title
from .theme.theme_service import ThemeService, theme_variable_defaults
from .transcript.jump_hint import EndOutOfSight, JumpToLatest
from .transcript.transcript import Transcript

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .extension_ui.extension_area import ExtensionAreas
    from .extension_ui.extension_ui import AppExtensionUI

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

        self.session: SessionPort | None = session
        """The session shown; None while it is being built (``session_factory``)."""
        self.session_factory = session_factory
        self.static = static
        self.agent_dir = Path(agent_dir) if agent_dir else default_agent_dir()
        self.cwd = cwd or getattr(session, "cwd", None) or os.getcwd()
        self.version = version or __version__
        self.bridge: Bridge | None = None
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
        self.terminal_input = TerminalInput(report=self._report_listener_failure)
        """Extensions' ``ctx.ui.on_terminal_input`` listeners (they see keys before anything else)."""
        """Textual key -> the key (Pi's syntax) an extension registered a shortcut for."""
        self.extension_ui: AppExtensionUI | None = None
        """The shown session's extensions' ``ctx.ui`` (each open session has its own)."""
        self.extension_areas: ExtensionAreas | None = None
        """Where extensions' statuses and widget lines are drawn (mounted with the first ``ctx.ui``)."""
        self.initial_prompt: str | None = None
        """Sent once the session is attached (``pi "message"``)."""
        self.command_line: Any = None
        """The ``pi`` command line (``CliArgs``) the first session was built from, as given: a
        session resumed from another folder is built from it again there (None: the defaults)."""
        self.typeahead_lines: list[str] = []
        """Lines typed (with Enter) while pi started, before the app read the terminal."""
        self.typeahead_partial = ""
        """Text typed after the last of those lines (it starts the editor)."""
        self._markdown_theme_pushed = False
        self.tmux_checked = False
        """Whether tmux's extended-keys setting was looked at (once per app)."""
        self.start_notices: list[tuple[str, str]] = []
        self.tree_pane = TreePaneController(self)
        """The live session tree beside the transcript (``/pane tree``)."""
        self.workspace = Workspace(self)
        """The open sessions (tabs); ``session``, ``transcript`` and ``bridge`` are the shown one's."""
        self.themes.load()
        self.theme = "dark"

    # ------------------------------------------------------------------ setup

    def get_driver_class(self) -> type[Driver]:
        # Pi's modifyOtherKeys request (Shift+Enter under tmux) and a safe end when the terminal closes.
        return driver_class_for(super().get_driver_class(), typed_runs=True)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, TypedRun):  # keys that arrived together (terminal/typed_runs.py)
            self.last_input_at = time.perf_counter()
            await take_in_app(self, event)
            return
        if isinstance(event, (events.Key, events.Paste)):
            self.last_input_at = time.perf_counter()
            if not event.is_forwarded and self.key_hold.keep(event):
                return
            if not event.is_forwarded and self.terminal_input.active:
                raw = sequence_for(event) if isinstance(event, events.Key) else PASTE_START + event.text + PASTE_END
                data = self.terminal_input.dispatch(raw)
                if data != raw:
                    # An extension's listener swallowed or rewrote the input: the original goes no
                    # further, and what it wrote instead arrives as the keys (or paste) it encodes.
                    event.stop()
                    event.prevent_default()
                    for replacement in events_for(data or ""):
                        await self._take_input(replacement)
                    return
        await self._take_input(event)

    def _report_listener_failure(self, path: str, message: str) -> None:
        """A terminal input listener's failure, shown as any extension's error is (event ``ui``)."""
        runner = self.session.extension_runner if self.session is not None else None
        if runner is not None:
            runner.reporter.report_soon(path, "ui", message)

    async def _take_input(self, event: events.Event) -> None:
        """Input past the terminal listeners: an extension's editor, then its shortcuts, then Textual."""
        if (isinstance(event, events.Key) and not event.is_forwarded and self.focused is self.editor
                and self.editor.handle_input(editor_key(event))):
            # An extension's editor (CustomEditor.handle_input) took the key before the app's keys.
            event.stop()
            event.prevent_default()
            return
        if isinstance(event, events.Key) and event.key in self.extension_keys and len(self.screen_stack) == 1:
            # An extension's shortcut (pi.registerShortcut) comes before every other binding.
            event.stop()
            event.prevent_default()
            self.run_worker(self._run_shortcut(self.extension_keys[event.key]), name="extension-shortcut",
                            group="extensions", exit_on_error=False)
            return
        if (isinstance(event, events.Key) and len(self.screen_stack) == 1
                and self.tree_pane.takes_key(event.key, event.character, event.is_printable)):
            # The focused tree pane reads its keys (/tree's filters are main-view keys elsewhere).
            event.stop()
            event.prevent_default()
            return
        await super().on_event(event)

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG screenshot, in a terminal whose background is the theme's page colour
        (pi draws on the terminal's own background; see ``theme/screenshot_terminal.py``)."""
        import io

        from rich.console import Console

        from .theme.screenshot_terminal import screenshot_terminal

        width, height = self.size
        console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                          color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
        console.print(whole_screen_render(self, simplify))
        return console.export_svg(title=title or self.title, theme=screenshot_terminal(self))

    def _handle_exception(self, error: Exception) -> None:
        # Textual's private hook (terminal/textual_internals.py checks it is still called) for an
        # exception in any widget (it ends the app). An extension's own
        # widget breaking is the extension's failure, not pi's: reported, widget removed.
        from .extension_ui.extension_guard import contain_extension_error

        if contain_extension_error(self, error):
            return
        super()._handle_exception(error)

    async def _run_shortcut(self, key: str) -> None:
        from .sessions.served import is_served

        runner = self.session.extension_runner if self.session is not None else None
        if runner is not None:
            await runner.run_shortcut(key)
        elif is_served(self.session):
            await self.session.run_shortcut(key)  # the extension runs in pi serve

    def compose(self) -> ComposeResult:
        self.header_bar = HeaderBar(version=self.version, cwd=self.cwd, id="header")
        self.session_tabs = SessionTabs(id="session-tabs")
        self.transcript = Transcript(self.session, cwd=self.cwd, id="transcript")
        self.menu = CompletionMenu(id="completion")
        self.queue_view = QueuePane(id="queue")
        self.editor = PromptEditor(id="editor")
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

        self.terminal_passthrough = TerminalPassthrough(self)
        self.begin_capture_print(self, stdout=True, stderr=False)
        self.set_keymap(self.keymap.textual_keymap())
        self.jump_hint.key = self.keymap.first_key("tui.altScreen.bottom")
        self._apply_editor_keys()
        self.theme_changed_signal.subscribe(self, lambda _theme: self._push_colors())
        # Back from Ctrl+Z (fg): the terminal shows the shell's screen until everything is drawn
        # again; Textual only draws what changes, so nothing came back until the next message.
        self.app_resume_signal.subscribe(self, lambda _app: self.repaint_all())
        self._push_colors()
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
        from .extension_ui.component_lines_view import ComponentLinesView

        for screen in self.screen_stack:
            for view in screen.query(ComponentLinesView):
                view.refresh(layout=True)

    def on_end_out_of_sight(self, message: EndOutOfSight) -> None:
        if message.transcript is self.transcript:  # not a hidden tab's, nor the tree's preview
            self.jump_hint.place(message.transcript)

    def on_print(self, event: events.Print) -> None:
        """Captured stdout: an extension's OSC escapes (notifications) go on to the terminal."""
        self.terminal_passthrough.feed(event.text)

    def _show_session_notices(self) -> None:
        """Lines skipped when the session file was loaded, saves that failed or work again."""
        if self.session is None:
            return
        for notice in self.session.take_session_notices():
            failed = notice.startswith("Could not save")
            self.notify(notice, severity="error" if failed else "warning", timeout=12 if failed else 8)

    def _apply_editor_keys(self) -> None:
        actions: dict[str, str] = {}
        for action_id, action in (("tui.input.submit", "submit"), ("tui.input.newLine", "newline"),
                                  ("app.message.followUp", "followUp"), ("tui.input.tab", "tab")):
            for key in self.keymap.keys(action_id):
                actions[key] = action
        # Both editors: pi's, hidden behind an extension's, must have the keys when it comes back.
        self.editor.key_actions = actions
        self.default_editor.key_actions = dict(actions)
        self.queue_view.restore_key = self.keymap.first_key("app.message.dequeue") or "—"
        self.queue_view.focus_key = self.keymap.first_key("pi.queue.focus") or "—"

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
        self.session = session
        self.transcript.session = session
        self.cwd = session.cwd or self.cwd
        from pi_runtime.frontend import typed_settings

        self.themes.save_choice = lambda name: session.settings.set("theme", name)
        if session.settings.project_trusted:
            # A stranger's clone does not get its theme files read: only a trusted project's.
            self.themes.set_folders([self.agent_dir / "themes", Path(self.cwd) / ".pi" / "themes"])
        args = self.command_line
        if args is not None:  # --theme paths, --no-themes
            self.themes.cli_paths = [Path(self.cwd) / Path(p).expanduser() for p in getattr(args, "themes", [])]
            self.themes.discover = not getattr(args, "no_themes", False)
        theme_paths = getattr(getattr(session, "resources", None), "theme_paths", None)
        if theme_paths is not None:
            # Packages' themes (and extensions' themePaths) are the session's to know.
            self.themes.more_paths = theme_paths
        self.themes.load()
        self.apply_display_settings()
        if typed_settings(session.settings).hide_thinking_block:
            self.transcript.set_thinking_collapsed(True)
        settings_theme = self._settings_theme()
        if settings_theme:
            self.themes.apply(settings_theme)
        self.bridge = Bridge(session, self)
        self.transcript.messages_when = self.bridge.messages_when
        self.bridge.start()
        self.workspace.adopt_first(session, self.bridge, self.transcript)
        self.chrome.show(session)
        show_window_title(self)
        self._show_session_notices()
        await self.transcript.load_messages(session.messages)
        # Extensions start in a worker, never in this message handler: a session_start handler
        # that asks something (ctx.ui.select) needs the app's loop free to take the keys.
        from pi_runtime.frontend.app_support import startup_problems

        # What is wrong with the config files (a settings key left out, a broken models.json),
        # said once at start as the headless modes say it on stderr (Pi shows them too).
        self.start_notices.extend((problem, "warning") for problem in startup_problems(session))
        self.run_worker(start_session(self, session), name="start-session", group="session", exit_on_error=False)

    def _settings_theme(self) -> str | None:
        """The theme to show: ``--use-theme`` for this run, else the settings' (``system`` when
        none, as Pi: light or dark as the terminal is; a ``light/dark`` pair picks by it too)."""
        from pi_runtime.frontend import typed_settings

        from .theme.theme import resolve_theme_setting

        if self.session is None:
            return None
        chosen = getattr(self.command_line, "use_theme", None) or typed_settings(self.session.settings).theme
        return resolve_theme_setting(str(chosen) if chosen else "system")

    def apply_display_settings(self) -> None:
        """Padding, menu height, scrollbar and folded thinking from the settings (start, /settings)."""
        if self.session is None:
            return
        from pi_runtime.frontend import typed_settings

        settings = typed_settings(self.session.settings)
        self.editor.styles.padding = (0, 1 + int(settings.editor_padding_x))
        self.transcript.set_class(settings.output_pad == 0, "-pad-0")
        self.menu.styles.max_height = int(settings.autocomplete_max_visible) + 2  # and its border
        self.transcript.scrollbar_mode = settings.fullscreen_scrollbar
        self.transcript.set_streaming(self.session.is_streaming)  # applies the scrollbar mode

    # ------------------------------------------------------------------ kernel events

    def push_screen(self, *args: Any, **kwargs: Any) -> Any:
        result = super().push_screen(*args, **kwargs)
        self.key_hold.release_after_refresh()  # keys typed after the command that opened it
        return result

    async def on_kernel_events(self, message: KernelEvents) -> None:
        if await self.workspace.route(message.bridge) is None:
            return  # a background session's events: its transcript and tab took them
        for event in message.bridge.drain(budget=EVENT_BATCH_SECONDS):
            await self._apply_kernel_event(event)
        if self.session is not None:
            self.chrome.settle(self.session)
        self.tree_pane.sync()
        if self.extension_ui is not None:
            # Pi draws an extension's footer/header/widgets on every repaint, so they read the
            # session as it is now; Textual only redraws a widget that asks. Redraw them with pi's chrome.
            self.extension_ui.refresh_components()

    async def _apply_kernel_event(self, event: ev.SessionEvent) -> None:
        await self.transcript.handle(event)
        session = self.session
        assert session is not None  # the bridge exists only once a session is attached
        self.chrome.apply(event, session)
        match event:
            case ev.SessionInfoChangedEvent():
                show_window_title(self)
            case ev.SessionChangedEvent(reason=reason):
                show_window_title(self)
                self.tree_pane.session_changed(reason)
                await show_start_help(self, session)
                self._show_session_notices()  # e.g. lines skipped in the file switched to
            case ev.AgentStartEvent():
                self.transcript.set_streaming(True)
            case ev.AgentSettledEvent():
                self.transcript.set_streaming(False)
                self._show_session_notices()
                if self.extension_ui is not None and self.extension_ui.footer_data is not None:
                    self.extension_ui.footer_data.check_branch()  # the run may have switched branches
            case ev.MessageEndEvent():
                self._show_session_notices()  # a save that failed is said at once
            case _:
                pass
        self.workspace.note_shown(event)

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

    def _push_colors(self) -> None:
        from .transcript.markdown_render import markdown_theme, set_code_theme

        self.themes.colors_applied()
        v = self.theme_variables
        if self._markdown_theme_pushed:
            self.console.pop_theme()
        self.console.push_theme(markdown_theme(v))
        self._markdown_theme_pushed = True
        set_code_theme("monokai" if self.current_theme.dark else "friendly")
        colors = {k: v.get(f"pi-{k}", "") for k in ("muted", "dim", "accent", "success", "warning", "error")}
        self.footer_bar.set_palette(colors)
        self.header_bar.set_palette(colors)

    async def reload_resources(self) -> None:
        """``/reload``: settings, keybindings, themes and resources from disk again."""
        if self.session is not None:
            self.session.reload_settings()  # first: what follows reads them
        self.keymap = load_keymap(self.agent_dir / "keybindings.json")
        self.set_keymap(self.keymap.textual_keymap())
        self._apply_editor_keys()
        self.themes.load()
        self.themes.apply(self._settings_theme() or self.themes.wanted, force=True)
        if self.session is not None:
            from pi_runtime.frontend import typed_settings

            self.apply_display_settings()
            self.transcript.set_thinking_collapsed(bool(typed_settings(self.session.settings).hide_thinking_block))
        resources = getattr(self.session, "resources", None)
        if resources is not None and hasattr(resources, "reload"):
            resources.reload()
        if self.session is not None:
            self.chrome.refresh_resources(self.session)
            self.chrome.refresh_stats(self.session)  # "(auto)" follows compaction.enabled
        problems = self.keymap.problems + self.themes.errors
        for problem in problems:
            self.notify(problem, severity="warning", timeout=8)
        await self.transcript.add_notice("Reloaded settings, keybindings, themes and resources" +
                                         (f" ({len(problems)} problem(s))" if problems else ""))

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
