"""``PiHost``: what the app's controllers use of the app, as a Protocol.

Controllers (input, completion, themes, slash commands, view actions, extension hosting) used to
take ``app: PiApp``, so ``app.py`` imported them while they imported ``app.py``: one object spread
over many files. They type against this Protocol instead; ``PiApp`` satisfies it structurally
(mypy checks that wherever the app is handed to a controller), and a test or a future host (a
second session's workspace) can supply the same narrow surface. Add a member here only when a
controller needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from textual import events
    from textual.css.query import DOMQuery
    from textual.notifications import SeverityLevel
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.theme import Theme
    from textual.timer import Timer
    from textual.widget import AwaitMount, Widget
    from textual.worker import Worker, WorkType

    from pi_runtime.frontend import SessionPort

    from .editor.completion_menu import CompletionMenu
    from .editor.key_hold import KeyHold
    from .editor.prompt_editor import PromptEditor
    from .extension_ui.extension_area import ExtensionAreas
    from .extension_ui.extension_ui import AppExtensionUI
    from .flows.input_controller import InputController
    from .flows.pane_controller import TreePaneController
    from .flows.session_chrome import SessionChrome
    from .flows.workspace import Workspace
    from .footer.footer_bar import FooterBar
    from .keys.keymap import Keymap
    from .queue.queue_pane import QueuePane
    from .terminal.terminal_input import TerminalInput
    from .theme.theme_service import ThemeService
    from .transcript.jump_hint import JumpToLatest
    from .transcript.transcript import Transcript

QueryType = TypeVar("QueryType", bound="Widget")


class PiHost(Protocol):
    """The app as its controllers see it: the session, the main view's parts and Textual's calls."""

    # The session and where it lives.
    session: SessionPort | None
    agent_dir: Path
    cwd: str
    command_line: Any
    """The ``pi`` command line (``CliArgs``) the first session was built from; None: the defaults."""
    keymap: Keymap
    themes: ThemeService
    theme: str

    # The main view's parts.
    transcript: Transcript
    jump_hint: JumpToLatest
    """"Jump to latest message" over the shown transcript while it is scrolled up."""
    editor: PromptEditor
    """The editor in use: pi's own, or an extension's while it replaced it (``editor_swap.py``)."""
    default_editor: PromptEditor
    menu: CompletionMenu
    queue_view: QueuePane
    footer_bar: FooterBar
    chrome: SessionChrome
    extension_ui: AppExtensionUI | None
    """The shown session's extensions' ``ctx.ui``."""
    extension_areas: ExtensionAreas | None
    extension_keys: dict[str, str]
    tree_pane: TreePaneController
    """The live session tree beside the transcript (``/pane tree``)."""
    workspace: Workspace
    """Every open session (tabs); the attributes above are the shown session's."""
    bridge: Any
    input: InputController
    """Where sent text goes; Esc and the quit keys."""
    static: bool
    """No spinner, clock or cursor blink, and no questions to the terminal (snapshots)."""
    initial_prompt: str | None
    """Sent once the first session is attached (``pi "message"``)."""
    tmux_checked: bool
    key_hold: KeyHold
    """Keys typed right after a slash command, until what it opens is on screen."""
    terminal_input: TerminalInput
    """Extensions' ``ctx.ui.on_terminal_input`` listeners."""
    last_input_at: float
    """``time.perf_counter()`` of the last key or paste."""
    start_notices: list[tuple[str, str]]
    """(text, kind) said while the first session was still being built (the trust answer):
    shown after it is attached, whose history replaces the transcript."""

    # What the app itself does.
    async def reload_resources(self) -> None: ...
    def refresh_theme(self) -> None: ...
    async def action_quit(self) -> None: ...
    def request_quit(self) -> None: ...
    def refresh_session_tabs(self) -> None: ...
    def model_ref(self) -> str: ...
    async def run_command(self, text: str) -> bool:
        """Start the built-in slash command ``text`` (``/name args``) for the shown session; False
        when it names none (it goes to the kernel as a prompt)."""
    async def run_command_now(self, name: str, session: SessionPort, arg: str = "") -> None:
        """Run built-in ``/name`` for ``session`` and wait for it (``ctx.reload()`` runs ``/reload``)."""

    # Textual's App calls the controllers make.
    title: str
    app_focus: bool
    @property
    def focused(self) -> Widget | None: ...
    async def on_event(self, event: events.Event) -> None: ...
    @property
    def is_headless(self) -> bool: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def push_screen(self, screen: Screen[Any] | str, callback: ScreenResultCallbackType[Any] | None = None,
                    wait_for_dismiss: Literal[False] = False, *, mode: str | None = None) -> AwaitMount: ...
    def run_worker(self, work: WorkType[Any], name: str | None = "", group: str = "default",
                   description: str = "", exit_on_error: bool = True, start: bool = True,
                   exclusive: bool = False, thread: bool = False) -> Worker[Any]: ...
    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
    def set_timer(self, delay: float, callback: Callable[[], Any] | None = None, *, name: str | None = None,
                  pause: bool = False) -> Timer: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...
    def mount(self, *widgets: Widget, before: int | str | Widget | None = None,
              after: int | str | Widget | None = None) -> AwaitMount: ...
    def exit(self, result: int | None = None, return_code: int = 0, message: Any = None) -> None: ...
    def suspend(self) -> AbstractContextManager[None]: ...
    def show_status(self, text: str) -> None: ...
    @overload
    def query(self, selector: str | None = None) -> DOMQuery[Widget]: ...
    @overload
    def query(self, selector: type[QueryType]) -> DOMQuery[QueryType]: ...
    def register_theme(self, theme: Theme) -> None: ...

