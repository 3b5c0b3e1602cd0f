"""``CustomEditor``: the base of an extension's editor (``ctx.ui.set_editor_component``), Pi's
``CustomEditor``.

It is pi's prompt editor, so everything the app does with the editor keeps working with it:
Enter submits through the normal path, the completion menu, history, pastes, and the app's
keys (Esc aborts, Ctrl+D, model switching). An extension overrides ``handle_input(data)``
(Pi's ``handleInput``): it sees each key first, Esc included, and returns True for the keys it
handled, False for the normal meaning (Pi's ``super.handleInput(data)``).
"""

from __future__ import annotations

from typing import Any

from ..editor.prompt_editor import PromptEditor


class CustomEditor(PromptEditor):
    """Subclass it; build it in the factory given to ``ctx.ui.set_editor_component``.

    Args:
        tui: The app (the factory's first argument).
        theme: ``ctx.ui.theme`` (``fg``, ``bold``…), kept as ``ui_theme``: ``TextArea.theme`` is
            Textual's syntax theme.
        keybindings: The app's keymap.
    """

    def __init__(self, tui: Any = None, theme: Any = None, keybindings: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tui = tui
        self.ui_theme = theme
        self.keybindings = keybindings
