"""The multi-line prompt editor.

Keys are configurable: the app sets ``key_actions`` (Textual key -> editor action) from
the keymap. It posts ``Submitted`` (send or follow-up) and ``HistoryRequested``-free: prompt
history is kept here. While the completion menu is open, up/down/tab/enter/escape drive it.
Large pastes are replaced by a marker and expanded again when the text is taken.
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from .. import paste
from .completion_menu import CompletionMenu

EDITOR_ACTIONS = ("submit", "newline", "followUp", "tab")


class PromptEditor(TextArea):
    """TextArea with Pi's submit/newline/follow-up keys, history and paste folding."""

    class Submitted(Message):
        """The user sent the editor's text."""

        def __init__(self, text: str, mode: str) -> None:
            super().__init__()
            self.text = text
            """Full text (paste markers expanded)."""
            self.mode = mode
            """``send`` (Enter: prompt, or steer while working) or ``followUp``."""

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.key_actions: dict[str, str] = {"enter": "submit", "shift+enter": "newline", "ctrl+j": "newline",
                                            "alt+enter": "followUp", "tab": "tab"}
        """Textual key -> editor action (set by the app from the keymap)."""
        self.menu: CompletionMenu | None = None
        """The completion menu this editor drives (set by the app)."""
        self.prompt_history: list[str] = []
        """Sent prompts, oldest first."""
        self._history_pos: int | None = None
        self.pastes: dict[str, str] = {}
        """Paste marker -> pasted text."""

    # ------------------------------------------------------------------ text

    def take_text(self) -> str:
        """The text with pastes expanded; clears the editor."""
        text = paste.expand(self.text, self.pastes)
        self.clear()
        self.pastes.clear()
        self._history_pos = None
        return text

    def set_text(self, text: str) -> None:
        """Replace the text and put the cursor at the end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def remember(self, text: str) -> None:
        if text.strip() and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)

    # ------------------------------------------------------------------ keys

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        menu = self.menu
        if menu is not None and menu.visible:
            if key in ("up", "down"):
                self._stop(event)
                menu.move(-1 if key == "up" else 1)
                return
            if key in ("tab", "enter"):
                self._stop(event)
                self.accept_completion()
                return
            if key == "escape":
                self._stop(event)
                menu.hide()
                return
        action = self.key_actions.get(key)
        if action == "submit":
            self._stop(event)
            self.post_message(self.Submitted(self.text, "send"))
            return
        if action == "followUp":
            self._stop(event)
            self.post_message(self.Submitted(self.text, "followUp"))
            return
        if action == "newline":
            self._stop(event)
            self.insert("\n")
            return
        if action == "tab":
            self._stop(event)
            return
        if key == "up" and self.cursor_location[0] == 0 and self._browse(-1):
            self._stop(event)
            return
        if key == "down" and self._history_pos is not None and self.cursor_location[0] == self.document.line_count - 1:
            self._stop(event)
            self._browse(1)
            return
        await super()._on_key(event)

    @staticmethod
    def _stop(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def _browse(self, step: int) -> bool:
        """Walk prompt history (only from an empty editor or while already browsing)."""
        if not self.prompt_history:
            return False
        if self._history_pos is None:
            if self.text.strip():
                return False
            self._history_pos = len(self.prompt_history)
        pos = self._history_pos + step
        if pos < 0:
            return True
        if pos >= len(self.prompt_history):
            self._history_pos = None
            self.set_text("")
            return True
        self._history_pos = pos
        self.set_text(self.prompt_history[pos])
        return True

    def accept_completion(self) -> None:
        menu = self.menu
        if menu is None:
            return
        choice = menu.selected()
        menu.hide()
        if choice is None:
            return
        row, start, end = menu.span
        self.replace(choice.value + " ", (row, start), (row, end))

    # ------------------------------------------------------------------ paste

    async def _on_paste(self, event: events.Paste) -> None:
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if paste.is_large(text):
            event.stop()
            event.prevent_default()
            mark = paste.marker(text, len(self.pastes) + 1)
            self.pastes[mark] = text
            self.insert(mark)
            return
        await super()._on_paste(event)
