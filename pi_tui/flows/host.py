"""``PiHost``: what the flows and the slash commands use of the app, as a Protocol.

Controllers used to take ``app: PiApp``, so ``app.py`` imported them while they imported
``app.py``: one object spread over many files. The flows (this folder) and the slash commands
(above it) type against this Protocol instead; ``PiApp`` satisfies it structurally (mypy checks
that wherever the app is handed over). It names the panes the flows act on (the transcript, the
editor, the queue, the footer...), which sit below this floor, but no controller: the workspace,
the input, the chrome, the tree pane, themes and held keys appear as the small Protocols below,
holding only what is used through the host. Panes and areas below do not import this module: each
declares the little it needs of the app next to itself (``ThemeTarget``, ``EditorSlot``,
``TrustAsker``...). Add a member here only when a flow or a command needs it.
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
    from textual.reactive import Reactive
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.timer import Timer
    from textual.widget import AwaitMount, Widget
    from textual.worker import Worker, WorkType

    from pi_runtime.frontend import SessionPort
    from pi_runtime.frontend import events as ev
    from pi_runtime.frontend.app_support import CliArgs

    from ..editor.completion_menu import CompletionMenu
    from ..editor.prompt_editor import PromptEditor
    from ..extension_ui.extension_area import ExtensionAreas
    from ..footer.footer_bar import FooterBar
    from ..keys.keymap import Keymap
    from ..queue.queue_pane import QueuePane
    from ..sessions.open_session import OpenSession
    from ..transcript.jump_hint import JumpToLatest
    from ..transcript.transcript import Transcript
    from .app_extension_ui import AppExtensionUI

QueryType = TypeVar("QueryType", bound="Widget")


class Tabs(Protocol):
    """The open sessions (``Workspace``) as the flows use them."""

    @property
    def sessions(self) -> list[OpenSession]:
        """Every open session, in tab order."""
    @property
    def active(self) -> OpenSession | None:
        """The session shown."""
    @property
    def busy(self) -> list[OpenSession]:
        """Sessions still working (closing them asks first)."""
    def entry_for(self, session: object) -> OpenSession | None: ...
    async def open(self, session: SessionPort, *, editor_text: str = "") -> OpenSession: ...
    async def show(self, entry: OpenSession) -> None: ...
    async def replace(self, entry: OpenSession, session: SessionPort) -> OpenSession: ...
    async def close(self, entry: OpenSession, *, reason: str = "quit") -> None: ...
    def asked(self, entry: OpenSession, title: str) -> None:
        """``entry``'s extensions opened a dialog (its tab is marked until shown)."""
    def answered(self, entry: OpenSession) -> None: ...
    async def route(self, bridge: Any) -> OpenSession | None:
        """A background session's events applied; the shown entry when ``bridge`` is its."""
    def note_shown(self, event: ev.SessionEvent) -> None: ...


class SentText(Protocol):
    """Where sent text goes (``InputController``)."""

    async def send(self, text: str, mode: str = "send", images: list[Any] | None = None) -> None: ...
    async def session_attached(self) -> None: ...
    @property
    def pending_texts(self) -> list[str]:
        """Texts waiting for the session (shown while starting; perf2 reads it at start-up)."""


class Chrome(Protocol):
    """What mirrors the shown session around the panes (``SessionChrome``)."""

    def use_editor(self, editor: PromptEditor) -> None: ...
    def show(self, session: SessionPort) -> None: ...
    def refresh_model(self, session: SessionPort) -> None: ...
    def refresh_stats(self, session: SessionPort) -> None: ...
    def apply(self, event: ev.SessionEvent, session: SessionPort) -> None: ...
    def settle(self, session: SessionPort) -> None: ...


class TreePaneToggle(Protocol):
    """The live tree beside the transcript (``TreePaneController``)."""

    @property
    def is_open(self) -> bool: ...
    @property
    def previewing(self) -> bool: ...
    @property
    def pane(self) -> Any:
        """The ``TreePane`` while open."""
    async def toggle(self) -> None: ...
    def shown_session_changed(self) -> None: ...
    def session_closed(self, session: SessionPort) -> None: ...
    def sync(self) -> None: ...
    def session_changed(self, reason: str) -> None: ...
    def takes_key(self, key: str, character: str | None, printable: bool) -> bool: ...


class Themes(Protocol):
    """The app's themes (``ThemeService``)."""

    @property
    def themes(self) -> dict[str, Any]:
        """Valid themes by name."""
    def load(self) -> None: ...
    def knows(self, name: str) -> bool: ...
    def apply(self, name: str, *, persist: bool = False, force: bool = False) -> bool: ...


class HeldKeys(Protocol):
    """Keys typed right after a slash command (``KeyHold``)."""

    @property
    def holding(self) -> bool: ...
    def release_after_refresh(self) -> None: ...
    def keep(self, event: events.Event) -> bool:
        """Keep ``event`` if keys are held (True: the caller drops it)."""


class PiHost(Protocol):
    """The app as its controllers see it: the session, the main view's parts and Textual's calls."""

    # The session and where it lives.
    @property
    def session(self) -> SessionPort | None:
        """The shown session (read-only: the workspace's shown tab decides)."""
    agent_dir: Path
    @property
    def cwd(self) -> str:
        """The shown session's folder (read-only: each session runs in its own)."""
    command_line: CliArgs | None
    """The ``pi`` command line (``CliArgs``) the first session was built from; None: the defaults."""
    keymap: Keymap
    @property
    def themes(self) -> Themes: ...

    # The main view's parts.
    @property
    def transcript(self) -> Transcript:
        """The shown session's transcript."""
    jump_hint: JumpToLatest
    """"Jump to latest message" over the shown transcript while it is scrolled up."""
    editor: PromptEditor
    """The editor in use: pi's own, or an extension's while it replaced it (``editor_swap.py``)."""
    @property
    def default_editor(self) -> PromptEditor:
        """pi's own editor, whichever is in use (the extension areas are mounted around it)."""
    menu: CompletionMenu
    queue_view: QueuePane
    footer_bar: FooterBar
    @property
    def chrome(self) -> Chrome: ...
    extension_ui: AppExtensionUI | None
    """The shown session's extensions' ``ctx.ui``."""
    extension_areas: ExtensionAreas | None
    extension_keys: dict[str, str]
    @property
    def tree_pane(self) -> TreePaneToggle:
        """The live session tree beside the transcript (``/pane tree``)."""
    @property
    def workspace(self) -> Tabs:
        """Every open session (tabs); the attributes above are the shown session's."""
    @property
    def bridge(self) -> Any:
        """The shown session's bridge (None before the first attach)."""
    @property
    def input(self) -> SentText:
        """Where sent text goes; Esc and the quit keys."""
    static: bool
    """No spinner, clock or cursor blink, and no questions to the terminal (snapshots)."""
    initial_prompt: str | None
    """Sent once the first session is attached (``pi "message"``)."""
    tmux_checked: bool
    @property
    def key_hold(self) -> HeldKeys:
        """Keys typed right after a slash command, until what it opens is on screen."""
    last_input_at: float
    """``time.perf_counter()`` of the last key or paste."""
    start_notices: list[tuple[str, str]]
    """(text, kind) said while the first session was still being built (the trust answer):
    shown after it is attached, whose history replaces the transcript."""

    # What the app itself does.
    async def reload_resources(self) -> None: ...
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
    def set_reactive(self, reactive: Reactive[str], value: str) -> None: ...
    @property
    def is_headless(self) -> bool: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    @property
    def focused(self) -> Widget | None: ...
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

