"""``pi config``: a full-screen list of resources to turn on and off, in Pi's layout.

A rule, the title (``Global Resources`` or ``Project Local Resources``) with the keys, the file
the scope writes, the list (``resource_list.ResourceList``), a rule. Each toggle is written at once
(``pi_runtime.packages.resource_config``) and the list is read again from the files, so what is
shown is what a session would load; a file that cannot be written is said on the line under the
title and left as it is, as is what could not be read. Tab switches scope when the project is
trusted.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Rule, Static

from pi_runtime.frontend.app_support import ConfigError, ResourceConfig, WriteScope
from pi_tui.keys.keymap import Keymap, load_keymap

from .resource_list import ResourceList


def _shown_path(path: Path) -> str:
    """``path`` with the home folder as ``~``."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


class ConfigApp(App[int]):
    """The ``pi config`` screen over one :class:`ResourceConfig`.

    Args:
        config: What to list and where to write.
        scope: The scope shown first (``project`` with ``-l``).
        theme_name: The ``theme`` setting's theme (dark when unknown).
        keymap: Key bindings (the agent dir's ``keybindings.json`` over the defaults).
        ask_trust: A project folder nothing has decided the trust of: asked first; the answer
            sets ``config.project_available`` (and is saved when the user says so). Wanting
            project scope and answering no ends the app with status 1.
    """

    CSS = """
    Screen { background: $background; overflow: hidden; }
    #config-top { margin-top: 1; }
    Rule.config-rule { margin: 0; color: $pi-border; }
    #config-heading { height: 1; margin-top: 1; }
    #config-title { width: 1fr; text-style: bold; }
    #config-keys { width: auto; color: $pi-muted; }
    #config-file { height: 1; color: $pi-muted; }
    #config-error { height: auto; color: $pi-error; display: none; }
    #config-error.-shown { display: block; }
    ResourceList { margin-top: 1; }
    #config-bottom { margin-top: 1; }
    """

    def __init__(self, config: ResourceConfig, scope: WriteScope = "global", *, theme_name: str | None = None,
                 keymap: Keymap | None = None, ask_trust: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.wanted_scope: WriteScope = scope
        self.scope: WriteScope = scope if config.project_available else "global"
        self.ask_trust = ask_trust
        """The project folder to ask about first (Pi's "Trust project folder?"), or None."""
        self.theme_name = theme_name or "dark"
        self.keymap = keymap or load_keymap(config.agent_dir / "keybindings.json")
        self.list = ResourceList(self.keymap, id="config-list")

    def compose(self) -> ComposeResult:
        yield Rule(classes="config-rule", id="config-top")
        with Horizontal(id="config-heading"):
            yield Static(id="config-title")
            yield Static(id="config-keys")
        yield Static(id="config-file")
        yield Static(id="config-error")
        yield self.list
        yield Rule(classes="config-rule", id="config-bottom")

    def on_mount(self) -> None:
        from pi_tui.theme.theme import resolve_theme_setting
        from pi_tui.theme.theme_service import ThemeService

        themes = ThemeService(self, [self.config.agent_dir / "themes"])
        themes.load()
        themes.apply(resolve_theme_setting(self.theme_name) or "dark")
        self._show(keep_cursor=False)
        self.list.focus()
        if self.ask_trust is not None:
            from pi_tui.dialogs.trust_prompt import TrustPrompt

            self.push_screen(TrustPrompt(self.ask_trust), self._trust_answered)

    def _trust_answered(self, answer: tuple[bool, str | None] | None) -> None:
        trusted, save_for = answer if answer is not None else (False, None)
        problem = None
        if save_for is not None:
            from pi_runtime.frontend.app_support import TrustStore, TrustStoreError

            try:
                TrustStore(self.config.agent_dir).set(save_for, trusted)
            except TrustStoreError as exc:  # the answer still holds for this run
                problem = f"Trust decision not saved: {exc}"
        self.config.project_available = bool(trusted)
        if not trusted and self.wanted_scope == "project":
            self.exit(1, return_code=1)  # the command says why, once the screen is gone
            return
        self.scope = self.wanted_scope if trusted else "global"
        self._show(keep_cursor=False)
        if problem is not None:
            self._say(problem)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        from pi_tui.theme.theme_service import theme_variable_defaults

        return theme_variable_defaults()

    def refresh_theme(self) -> None:
        """Re-apply the current theme's colours (the theme service's port asks for it)."""
        self.mutate_reactive(App.theme)

    def _show(self, *, keep_cursor: bool) -> None:
        """Read the files again and draw the current scope."""
        project = self.scope == "project"
        self.query_one("#config-title", Static).update("Project Local Resources" if project else "Global Resources")
        keys = "tab switch mode · " if self.config.project_available else ""
        keys += "space cycle inherit/+/-" if project else "space toggle"
        self.query_one("#config-keys", Static).update(keys + " · esc close")
        where = (".pi/settings.json · inherited global resources are dimmed" if project
                 else _shown_path(self.config.settings_file("global")))
        self.query_one("#config-file", Static).update(where)
        self.list.show(self.config.items(self.scope), self.scope, keep_cursor=keep_cursor)
        # What could not be read (a settings file that is not JSON, a package not installed) is
        # said here, not only on stderr, which the full screen covers.
        self._say("\n".join(self.config.warnings[:3]) or None)

    def _say(self, problem: str | None) -> None:
        line = self.query_one("#config-error", Static)
        line.update(problem or "")
        line.set_class(problem is not None, "-shown")

    def on_resource_list_toggle_requested(self, message: ResourceList.ToggleRequested) -> None:
        try:
            self.config.toggle(message.item, self.scope)
        except ConfigError as exc:
            self._say(str(exc))
            return
        self._show(keep_cursor=True)

    def on_resource_list_scope_switch_requested(self, _: ResourceList.ScopeSwitchRequested) -> None:
        if not self.config.project_available:
            return
        self.scope = "project" if self.scope == "global" else "global"
        self._show(keep_cursor=False)

    def on_resource_list_close_requested(self, _: ResourceList.CloseRequested) -> None:
        self.exit(0)
