"""The app's key table: every main-view action under Pi's keybinding id.

The keys written here are only defaults until ``PiApp.set_keymap`` applies
``keybindings/default.json`` and the user's ``keybindings.json`` (``keymap.py``); the ids are
what those files, ``/hotkeys`` and the hint lines name.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType


def _b(action_id: str, action: str, description: str, key: str) -> Binding:
    # Default keys here only matter until set_keymap applies keybindings/default.json.
    return Binding(key, action, description, show=False, priority=True, id=action_id)


APP_BINDINGS: list[BindingType] = [
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
    _b("pi.queue.focus", "focus_queue", "Queue", "alt+q"),
    _b("app.session.new", "slash('/new')", "New session", "pi_disabled_key"),
    # pi's tabs (sessions/): several sessions at once.
    _b("app.session.open", "session_open", "Open a session in a new tab", "alt+n"),
    _b("app.session.next", "session_step(1)", "Next session tab", "alt+pagedown"),
    _b("app.session.previous", "session_step(-1)", "Previous session tab", "alt+pageup"),
    _b("tui.altScreen.pageUp", "scroll_transcript('page_up')", "Page up", "pageup"),
    _b("tui.altScreen.pageDown", "scroll_transcript('page_down')", "Page down", "pagedown"),
    _b("tui.altScreen.top", "scroll_transcript('home')", "Top", "ctrl+home"),
    _b("tui.altScreen.bottom", "scroll_transcript('end')", "Bottom", "ctrl+end"),
    # Commands, search and message selection (handled in flows/view_actions.run_action).
    _b("app.session.tree", "pi_cmd('tree')", "Session tree", "pi_disabled_key"),
    _b("app.session.fork", "pi_cmd('fork')", "Fork", "pi_disabled_key"),
    _b("app.session.resume", "pi_cmd('resume')", "Resume", "pi_disabled_key"),
    _b("tui.altScreen.search", "pi_cmd('search')", "Search", "ctrl+shift+f"),
    _b("pi.search", "pi_cmd('search')", "Search", "alt+s"),
    _b("pi.search.next", "pi_cmd('search_next')", "Next match", "f3"),
    _b("pi.search.previous", "pi_cmd('search_prev')", "Previous match", "shift+f3"),
    _b("tui.altScreen.previousPrompt", "pi_cmd('select_prev')", "Previous message", "ctrl+shift+up"),
    _b("tui.altScreen.nextPrompt", "pi_cmd('select_next')", "Next message", "ctrl+shift+down"),
    # The live session tree beside the transcript (pi_tui/flows/pane_controller.py).
    _b("app.pane.tree", "toggle_tree_pane", "Tree pane", "alt+t"),
    _b("pi.pane.focus", "focus_next_pane", "Next pane", "f6"),
]
"""The main view's bindings (priority bindings, so they work whatever has focus)."""

MAIN_VIEW_ACTIONS = frozenset(b.action.split("(")[0] for b in APP_BINDINGS if isinstance(b, Binding))
"""Actions of the main view, which a modal screen on top must get instead (``PiApp.check_action``)."""
