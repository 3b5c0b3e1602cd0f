"""``PiApp``: the full-screen app. Layout, bindings (Pi's ids), theme, and the glue between
widgets and the kernel.

The app receives kernel events only through ``Bridge`` (``on_kernel_events``) and talks to
the kernel only through ``AgentSession`` methods, in named workers (``exit_on_error=False``)
so a failing call becomes an inline notice. Input handling (submit, ``!`` commands,
completion) lives in ``input_mixin.py`` to keep this file small.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from pi_runtime.frontend import events as ev

from . import terminal_keys
from .bridge import Bridge, KernelEvents
from .input_mixin import InputMixin
from .keymap import Keymap, load_keymap
from .theme import PiTheme
from .theme_host import ThemeHost
from .theme_watch import ThemeWatcher
from .widgets.completion_menu import CompletionMenu
from .widgets.footer_bar import FooterBar, FooterStats
from .widgets.header_bar import HeaderBar
from .widgets.prompt_editor import PromptEditor
from .widgets.queue_view import QueueView
from .widgets.transcript import Transcript
from .widgets.welcome_panel import WelcomePanel

terminal_keys.install()



def _b(action_id: str, action: str, description: str, key: str) -> Binding:
    # Default keys here only matter until set_keymap applies keybindings/default.json.
    return Binding(key, action, description, show=False, priority=True, id=action_id)


class PiApp(InputMixin, ThemeHost, App[int], inherit_bindings=False):
    """The interactive pi app (Textual's own ctrl+q/ctrl+c bindings are dropped: every key comes from Pi's keymap)."""

    CSS_PATH = "app.tcss"
    TITLE = "pi"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        _b("app.interrupt", "interrupt", "Abort", "escape"),
        _b("app.clear", "clear", "Clear / quit", "ctrl+c"),
        _b("app.exit", "exit_if_empty", "Quit", "ctrl+d"),
        _b("app.suspend", "suspend_process", "Suspend", "ctrl+z"),
        _b("app.editor.external", "external_editor", "External editor", "ctrl+g"),
        _b("app.model.select", "select_model", "Models", "ctrl+l"),
        _b("app.model.cycleForward", "cycle_model(1)", "Next model", "ctrl+p"),
        _b("app.model.cycleBackward", "cycle_model(-1)", "Previous model", "ctrl+shift+p"),
        _b("app.thinking.cycle", "cycle_thinking", "Thinking level", "shift+tab"),
        _b("app.thinking.toggle", "toggle_thinking", "Show thinking", "ctrl+t"),
        _b("app.tools.expand", "toggle_tools", "Expand tools", "ctrl+o"),
        _b("app.message.copy", "copy_last", "Copy", "ctrl+x"),
        _b("app.message.dequeue", "dequeue", "Edit queued", "alt+up"),
        _b("app.session.new", "slash('/new')", "New session", "pi_disabled_key"),
        _b("tui.altScreen.pageUp", "scroll_transcript('page_up')", "Page up", "pageup"),
        _b("tui.altScreen.pageDown", "scroll_transcript('page_down')", "Page down", "pagedown"),
        _b("tui.altScreen.top", "scroll_transcript('home')", "Top", "ctrl+home"),
        _b("tui.altScreen.bottom", "scroll_transcript('end')", "Bottom", "ctrl+end"),
        # Commands, search and message selection (handled in commands.run_action).
        _b("app.session.tree", "pi_cmd('tree')", "Session tree", "pi_disabled_key"),
        _b("app.session.fork", "pi_cmd('fork')", "Fork", "pi_disabled_key"),
        _b("app.session.resume", "pi_cmd('resume')", "Resume", "pi_disabled_key"),
        _b("tui.altScreen.search", "pi_cmd('search')", "Search", "ctrl+shift+f"),
        _b("pi.search", "pi_cmd('search')", "Search", "ctrl+f"),
        _b("pi.search.next", "pi_cmd('search_next')", "Next match", "f3"),
        _b("pi.search.previous", "pi_cmd('search_prev')", "Previous match", "shift+f3"),
        _b("tui.altScreen.previousPrompt", "pi_cmd('select_prev')", "Previous message", "ctrl+shift+up"),
        _b("tui.altScreen.nextPrompt", "pi_cmd('select_next')", "Next message", "ctrl+shift+down"),
    ]

    def __init__(self, session: Any = None, *, session_factory: Callable[[], Any] | None = None,
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
        super().__init__()
        from pi_runtime.frontend import __version__
        from pi_runtime.frontend import agent_dir as default_agent_dir

        self.session = session
        self.session_factory = session_factory
        self.static = static
        self.agent_dir = Path(agent_dir) if agent_dir else default_agent_dir()
        self.cwd = cwd or getattr(session, "cwd", None) or os.getcwd()
        self.version = version or __version__
        self.bridge: Bridge | None = None
        self.keymap: Keymap = load_keymap(self.agent_dir / "keybindings.json")
        self.pi_themes: dict[str, PiTheme] = {}
        self.theme_errors: list[str] = []
        self.wanted_theme = "dark"
        """The theme the user chose; shown again when its file becomes valid after an edit."""
        self.theme_generation = 0
        """Bumped whenever theme colours are (re)applied, so cached renderings know to redo."""
        self.watch_themes = (not static) if watch_themes is None else watch_themes
        self.theme_watcher: ThemeWatcher | None = None
        self.last_input_at = 0.0
        """``time.perf_counter()`` of the last key or paste (streaming frames yield to it)."""
        self._last_clear = 0.0
        self._files: list[str] | None = None
        self.initial_prompt: str | None = None
        """Sent once the session is attached (``pi "message"``)."""
        self._load_themes()
        self.theme = "dark"

    # ------------------------------------------------------------------ setup

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)):
            self.last_input_at = time.perf_counter()
        await super().on_event(event)

    def compose(self) -> ComposeResult:
        self.header_bar = HeaderBar(version=self.version, cwd=self.cwd, id="header")
        self.transcript = Transcript(self.session, cwd=self.cwd, id="transcript")
        self.menu = CompletionMenu(id="completion")
        self.queue_view = QueueView(id="queue")
        self.editor = PromptEditor(id="editor")
        self.footer_bar = FooterBar(cwd=self.cwd, static=self.static, id="footer")
        self.editor.menu = self.menu
        yield self.header_bar
        yield self.transcript
        yield self.menu
        yield self.queue_view
        yield self.editor
        yield self.footer_bar

    def on_mount(self) -> None:
        self.set_keymap(self.keymap.textual_keymap())
        self._apply_editor_keys()
        self.theme_changed_signal.subscribe(self, lambda _theme: self._push_colors())
        self._push_colors()
        if self.static:
            self.editor.cursor_blink = False
        self.editor.focus()
        for problem in self.keymap.problems + self.theme_errors:
            self.notify(problem, severity="warning", timeout=8)
        if self.watch_themes:
            self.call_after_refresh(self._start_theme_watch)
        if self.session is not None:
            self.call_later(self.attach_session, self.session)
        elif self.session_factory is not None:
            self.footer_bar.set_working(True, "Starting")
            self.run_worker(self.session_factory, thread=True, name="build-session", group="startup",
                            exit_on_error=False)

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
        self.editor.key_actions = actions
        self.queue_view.hint_key = self.keymap.first_key("app.message.dequeue") or "alt+up"

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.name == "build-session":
            if event.state == WorkerState.SUCCESS:
                self.footer_bar.set_working(False)
                self.call_later(self.attach_session, worker.result)
            elif event.state == WorkerState.ERROR:
                self.exit(1, return_code=1, message=f"pi: {worker.error}")
        elif event.state == WorkerState.ERROR:
            self.notify(f"{worker.name or 'task'} failed: {worker.error}", severity="error", timeout=8)

    async def attach_session(self, session: Any) -> None:
        """Show ``session``: subscribe through the bridge and render its history."""
        self.session = session
        self.transcript.session = session
        self.cwd = getattr(session, "cwd", self.cwd)
        from pi_runtime.frontend import typed_settings

        settings_theme = typed_settings(session.settings).theme
        if settings_theme and settings_theme != "system":
            self.apply_theme(str(settings_theme).split("/")[-1])
        self.bridge = Bridge(session, self)
        self.bridge.start()
        self._refresh_header()
        self._refresh_model()
        self._refresh_stats()
        self.footer_bar.set_session_name(session.session_name)
        self._show_session_notices()
        await self.transcript.load_messages(session.messages)
        from .extension_host import attach_extensions

        await attach_extensions(self, session)
        if not session.messages and not self._has_credentials():
            await self.transcript.mount(WelcomePanel(model=self._model_ref(), agent_dir=str(self.agent_dir)))
        if self.initial_prompt:
            text, self.initial_prompt = self.initial_prompt, None
            await self.handle_text(text, "send")

    def _has_credentials(self) -> bool:
        registry = self.session.model_registry
        model = self.session.model
        if model is None:
            return False
        try:
            return registry is None or bool(registry.has_credentials(model))
        except Exception:  # noqa: BLE001
            return False

    # ------------------------------------------------------------------ kernel events

    async def on_kernel_events(self, message: KernelEvents) -> None:
        for event in message.bridge.drain():
            await self._apply_kernel_event(event)

    async def _apply_kernel_event(self, event: ev.SessionEvent) -> None:
        await self.transcript.handle(event)
        match event:
            case ev.QueueUpdateEvent(steering=steering, follow_up=follow_up):
                self.queue_view.set_queue(steering, follow_up)
            case ev.AgentStartEvent():
                self.footer_bar.set_working(True)
                self.transcript.set_streaming(True)
            case ev.AgentSettledEvent():
                self.footer_bar.set_working(False)
                self.transcript.set_streaming(False)
                self._refresh_stats()
                self._show_session_notices()
            case ev.MessageEndEvent():
                self._refresh_stats()
                self._show_session_notices()  # a save that failed is said at once
            case ev.ModelChangedEvent() | ev.ThinkingLevelChangedEvent():
                self._refresh_model()
                self._refresh_stats()  # the context window is the new model's at once
            case ev.SessionInfoChangedEvent(name=name):
                self.footer_bar.set_session_name(name)
            case ev.CompactionStartEvent():
                self.footer_bar.set_working(True, "Compacting")
            case ev.CompactionEndEvent():
                self.footer_bar.set_working(self.session.is_streaming)
                self._refresh_stats()
            case ev.SessionChangedEvent():
                self.footer_bar.set_session_name(self.session.session_name)
                self._refresh_stats()
                self._show_session_notices()  # e.g. lines skipped in the file switched to
            case _:
                pass

    def _model_ref(self) -> str:
        model = self.session.model if self.session is not None else None
        return model.ref if model is not None else ""

    def _refresh_model(self) -> None:
        model = self.session.model
        self.header_bar.set_model(self._model_ref())
        self.footer_bar.set_model(model.id if model else "", self.session.thinking_level, bool(model and model.reasoning))
        level = self.session.thinking_level
        for lv in ("off", "minimal", "low", "medium", "high", "xhigh"):
            self.editor.set_class(lv == level, f"thinking-{lv}")

    def _refresh_header(self) -> None:
        resources = getattr(getattr(self.session, "resources", None), "resources", None)
        if resources is None:
            return
        loaded = [
            ("context files", [str(f.path).replace(str(Path.home()), "~") for f in resources.context_files]),
            ("skills", [s.name for s in resources.skills]),
            ("prompt templates", ["/" + t.name for t in resources.prompt_templates]),
        ]
        self.header_bar.set_loaded(loaded, [str(w) for w in resources.warnings])

    def stats(self) -> FooterStats:
        """Footer figures from the session's usage ledger: spend over the whole file, context now."""
        totals = self.session.usage_totals()
        stats = FooterStats(input=totals.input, output=totals.output, cache_read=totals.cache_read,
                            cache_write=totals.cache_write, cost=totals.cost)
        context = self.session.context_usage()
        if context is not None:
            stats.context_window = context.context_window
            stats.context_tokens = context.tokens
        return stats

    def _refresh_stats(self) -> None:
        if self.session is not None:
            self.footer_bar.set_stats(self.stats())

    # ------------------------------------------------------------------ simple actions

    def action_toggle_thinking(self) -> None:
        self.transcript.set_thinking_collapsed(not self.transcript.thinking_collapsed)

    def action_toggle_tools(self) -> None:
        self.transcript.set_tools_expanded(not self.transcript.tools_expanded)

    async def action_scroll_transcript(self, where: str) -> None:
        t = self.transcript
        if where in ("page_up", "home"):
            t.release_anchor()  # the user moved away from the bottom: stop following output
        if where == "end":
            await t.restore_end()  # the newest messages may have been unmounted while reading old ones
        elif where == "home":
            await t.restore_start()  # the very first message, not just the oldest one mounted
        {"page_up": t.scroll_page_up, "page_down": t.scroll_page_down,
         "home": t.scroll_home, "end": t.scroll_end}[where](animate=False)
        if where == "end":
            t.anchor()

    def action_copy_last(self) -> None:
        from .commands import copy_message

        copy_message(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The main view's keys are priority bindings, which Textual checks even under a
        # modal; a picker or dialog on top must get them (Esc cancels it, Ctrl+L filters).
        if action in _MAIN_VIEW_ACTIONS and len(self.screen_stack) > 1 and self.screen.is_modal:
            return False
        return super().check_action(action, parameters)

    def action_pi_cmd(self, name: str) -> None:
        from .commands import run_action

        if self.session is not None:
            run_action(self, name)

    def action_clear(self) -> None:
        if self.editor.text:
            self.editor.take_text()
            self._last_clear = time.monotonic()
            return
        if time.monotonic() - self._last_clear < 2.0:
            self.exit(0)
            return
        self._last_clear = time.monotonic()
        self.notify("Press ctrl+c again to quit", timeout=2)

    def action_exit_if_empty(self) -> None:
        if not self.editor.text:
            self.exit(0)
        else:
            self.editor.action_delete_right()

    async def action_slash(self, command: str) -> None:
        await self.handle_text(command, "send")

    async def on_unmount(self) -> None:
        if self.theme_watcher is not None:
            self.theme_watcher.stop()
        if self.bridge is not None:
            self.bridge.stop()
        if self.session is not None:
            # Quitting ends the session like every other mode does: the run is aborted and
            # extensions get session_shutdown. A handler that hangs must not keep pi open.
            try:
                await asyncio.wait_for(self.session.dispose("quit"), DISPOSE_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - quitting goes on whatever the session says
                pass


DISPOSE_TIMEOUT_S = 3.0
"""How long quitting waits for the session to shut down (extensions' ``session_shutdown``)."""

_MAIN_VIEW_ACTIONS = frozenset(b.action.split("(")[0] for b in PiApp.BINDINGS)
