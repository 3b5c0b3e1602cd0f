"""What the settings make the running app do: the theme chosen, the display settings (padding,
menu height, scrollbar, folded thinking), the editor's keys, and ``/reload`` of all of them.

They act on several panes (editor, menu, transcript, queue, chrome), so they live here rather
than in one pane; ``PiApp`` calls them at start, on ``/settings`` and on ``/reload``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..keys.keymap import load_keymap

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from pi_runtime.frontend import SessionPort
    from pi_runtime.frontend.app_support import CliArgs

    from ..editor.completion_menu import CompletionMenu
    from ..editor.prompt_editor import PromptEditor
    from ..keys.keymap import Keymap
    from ..queue.queue_pane import QueuePane
    from ..theme.theme_service import ThemeService
    from ..transcript.transcript import Transcript
    from .session_chrome import SessionChrome


class SettingsHost(Protocol):
    """The parts of the app the settings change."""

    @property
    def session(self) -> SessionPort | None: ...
    @property
    def transcript(self) -> Transcript: ...
    command_line: CliArgs | None
    """The ``pi`` command line (``--use-theme``, ``--theme``, ``--no-themes``); None: the defaults."""
    agent_dir: Path
    @property
    def cwd(self) -> str: ...
    themes: ThemeService
    keymap: Keymap
    editor: PromptEditor
    default_editor: PromptEditor
    menu: CompletionMenu
    queue_view: QueuePane
    chrome: SessionChrome
    def set_keymap(self, keymap: Mapping[str, str]) -> None: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...


def use_session_themes(app: SettingsHost, session: SessionPort) -> None:
    """The themes ``session`` knows of (a trusted project's, packages', the command line's), and
    its settings' choice of theme and display, at attach."""
    from pi_runtime.frontend import typed_settings

    themes = app.themes
    themes.save_choice = lambda name: session.settings.set("theme", name)
    if session.settings.project_trusted:
        # A stranger's clone does not get its theme files read: only a trusted project's.
        themes.set_folders([app.agent_dir / "themes", Path(app.cwd) / ".pi" / "themes"])
    from pi_runtime.frontend.app_support import theme_filter

    # The themes lists' "-themes/x.json" and "!pattern" entries, as Pi applies them.
    themes.keep = theme_filter(session.settings, app.agent_dir, Path(app.cwd))
    args = app.command_line
    if args is not None:  # --theme paths, --no-themes
        themes.cli_paths = [Path(app.cwd) / Path(p).expanduser() for p in getattr(args, "themes", [])]
        themes.discover = not getattr(args, "no_themes", False)
    theme_paths = getattr(getattr(session, "resources", None), "theme_paths", None)
    if theme_paths is not None:
        # Packages' themes (and extensions' themePaths) are the session's to know.
        themes.more_paths = theme_paths
    themes.load_if_changed()
    apply_display_settings(app)
    if typed_settings(session.settings).hide_thinking_block:
        app.transcript.set_thinking_collapsed(True)
    chosen = settings_theme(app)
    if chosen:
        themes.apply(chosen)


def settings_theme(app: SettingsHost) -> str | None:
    """The theme to show: ``--use-theme`` for this run, else the settings' (``system`` when
    none, as Pi: light or dark as the terminal is; a ``light/dark`` pair picks by it too)."""
    from pi_runtime.frontend import typed_settings

    from ..theme.theme import resolve_theme_setting

    if app.session is None:
        return None
    chosen = getattr(app.command_line, "use_theme", None) or typed_settings(app.session.settings).theme
    return resolve_theme_setting(str(chosen) if chosen else "system")


def apply_display_settings(app: SettingsHost) -> None:
    """Padding, menu height, scrollbar and folded thinking from the settings (start, /settings)."""
    if app.session is None:
        return
    from pi_runtime.frontend import typed_settings

    settings = typed_settings(app.session.settings)
    app.editor.styles.padding = (0, 1 + int(settings.editor_padding_x))
    app.transcript.set_class(settings.output_pad == 0, "-pad-0")
    app.menu.styles.max_height = int(settings.autocomplete_max_visible) + 2  # and its border
    app.transcript.scrollbar_mode = settings.fullscreen_scrollbar
    app.transcript.set_streaming(app.session.is_streaming)  # applies the scrollbar mode


def apply_editor_keys(app: SettingsHost) -> None:
    """The keymap's submit, new-line, follow-up and tab keys in the editors; the queue's hints."""
    actions: dict[str, str] = {}
    for action_id, action in (("tui.input.submit", "submit"), ("tui.input.newLine", "newline"),
                              ("app.message.followUp", "followUp"), ("tui.input.tab", "tab")):
        for key in app.keymap.keys(action_id):
            actions[key] = action
    # Both editors: pi's, hidden behind an extension's, must have the keys when it comes back.
    app.editor.key_actions = actions
    app.default_editor.key_actions = dict(actions)
    app.queue_view.restore_key = app.keymap.first_key("app.message.dequeue") or "—"
    app.queue_view.focus_key = app.keymap.first_key("pi.queue.focus") or "—"


async def reload_resources(app: SettingsHost) -> None:
    """``/reload``: settings, keybindings, themes and resources from disk again."""
    session = app.session
    if session is not None:
        session.reload_settings()  # first: what follows reads them
    app.keymap = load_keymap(app.agent_dir / "keybindings.json")
    app.set_keymap(app.keymap.textual_keymap())
    apply_editor_keys(app)
    app.themes.load()
    app.themes.apply(settings_theme(app) or app.themes.wanted, force=True)
    if session is not None:
        from pi_runtime.frontend import typed_settings

        apply_display_settings(app)
        app.transcript.set_thinking_collapsed(bool(typed_settings(session.settings).hide_thinking_block))
    resources = getattr(session, "resources", None)
    if resources is not None and hasattr(resources, "reload"):
        resources.reload()
    if session is not None:
        app.chrome.refresh_resources(session)
        app.chrome.refresh_stats(session)  # "(auto)" follows compaction.enabled
    problems = app.keymap.problems + app.themes.errors
    for problem in problems:
        app.notify(problem, severity="warning", timeout=8)
    await app.transcript.add_notice("Reloaded settings, keybindings, themes and resources" +
                                    (f" ({len(problems)} problem(s))" if problems else ""))
