"""The multi-line prompt editor.

Keys are configurable: the app sets ``key_actions`` (Textual key -> editor action) from
the keymap. It posts ``Submitted`` (send or follow-up), and ``CompletionRequested`` when Tab
is pressed with the menu closed (the app completes a path); prompt history is kept here.
While the completion menu is open, up/down/tab/enter/escape drive it. Large pastes are
replaced by a marker and expanded again when the text is taken; images (a dropped file, or
the clipboard's through ``app.clipboard.pasteImage``) are kept beside the text behind an
``[image N: name]`` marker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from .. import images as image_files
from .. import paste
from .completion_menu import CompletionMenu

if TYPE_CHECKING:
    from ..clipboard import ClipboardContent

EDITOR_ACTIONS = ("submit", "newline", "followUp", "tab")


class PromptEditor(TextArea):
    """TextArea with Pi's submit/newline/follow-up keys, history, paste folding and images."""

    # Not a priority binding: the app's keymap rebinds it by id like the app's own keys.
    BINDINGS = [Binding("ctrl+v", "paste_clipboard", "Paste image", show=False, id="app.clipboard.pasteImage")]

    class Submitted(Message):
        """The user sent the editor's text (taken out of the editor when the key was pressed, so
        keys typed right after it start the next message)."""

        def __init__(self, text: str, mode: str, images: list[image_files.AttachedImage]) -> None:
            super().__init__()
            self.text = text
            """Full text (paste markers expanded)."""
            self.mode = mode
            """``send`` (Enter: prompt, or steer while working) or ``followUp``."""
            self.images = images
            """Attached images whose markers were still in the text."""

    class CompletionRequested(Message):
        """Tab with the completion menu closed: complete the token before the cursor."""

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
        self.images: dict[str, image_files.AttachedImage] = {}
        """Image marker -> attached image."""

    # ------------------------------------------------------------------ text

    def take_images(self) -> list[image_files.AttachedImage]:
        """The attached images whose markers are still in the text (call before ``take_text``)."""
        return image_files.images_in(self.text, self.images)

    def take_text(self) -> str:
        """The text with pastes expanded; clears the editor (and its attached images).

        Image markers stay in the text: the model sees ``[image 1: plot.png]`` where the
        user put it, so "compare image 1 with image 2" still makes sense next to the image
        blocks, which follow the text in marker order.
        """
        text = paste.expand(self.text, self.pastes)
        self.clear()
        self.pastes.clear()
        self.images.clear()
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
        if menu is not None and menu.is_open:
            if key in ("up", "down"):
                self._stop(event)
                menu.move(-1 if key == "up" else 1)
                return
            if key in ("tab", "enter"):
                self._stop(event)
                submit = self.key_actions.get(key) == "submit" and menu.kind == "slash"
                self.accept_completion()
                if submit:
                    # Enter on a command name runs it (as Pi does); the menu showing or not a
                    # moment later must not change what one Enter does.
                    self._submit("send")
                return
            if key == "escape":
                self._stop(event)
                menu.hide()
                return
        action = self.key_actions.get(key)
        if action in ("submit", "followUp"):
            self._stop(event)
            self._submit("send" if action == "submit" else "followUp")
            return
        if action == "newline":
            self._stop(event)
            self.insert("\n")
            return
        if action == "tab":
            self._stop(event)
            self.post_message(self.CompletionRequested())
            return
        if key == "up" and self.cursor_location[0] == 0 and self._browse(-1):
            self._stop(event)
            return
        if key == "down" and self._history_pos is not None and self.cursor_location[0] == self.document.line_count - 1:
            self._stop(event)
            self._browse(1)
            return
        await super()._on_key(event)

    def _submit(self, mode: str) -> None:
        if self.menu is not None:
            self.menu.hide()
        images = self.take_images()
        text = self.take_text()
        if text.strip() or images:
            self.remember(text)
        self.post_message(self.Submitted(text, mode, images))

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
        # A folder ("src/") is continued with another Tab, so it gets no space after it.
        self.replace(choice.value + ("" if choice.value.endswith("/") else " "), (row, start), (row, end))

    # ------------------------------------------------------------------ paste

    async def _on_paste(self, event: events.Paste) -> None:
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if self.read_only:
            return
        event.stop()
        event.prevent_default()
        self.paste_text(text)

    def paste_text(self, text: str) -> None:
        """Insert pasted text: a dropped image file becomes an attachment, a large paste a marker."""
        path = image_files.dropped_image_path(text)
        if path is not None:
            loaded = image_files.load_image(path)
            if isinstance(loaded, str):
                self.app.notify(loaded, severity="warning", timeout=4)
            else:
                self.attach_image(loaded)
                return
        if paste.is_large(text):
            mark = paste.marker(text, len(self.pastes) + 1)
            self.pastes[mark] = text
            text = mark
        result = self.replace(text, *self.selection)
        self.move_cursor(result.end_location)

    def attach_image(self, image: image_files.AttachedImage) -> None:
        """Keep ``image`` and put its marker at the cursor."""
        mark = image_files.marker(image, len(self.images) + 1)
        self.images[mark] = image
        self.insert(mark + " ")

    # ------------------------------------------------------------------ clipboard

    def action_paste_clipboard(self) -> None:
        """``app.clipboard.pasteImage``: the system clipboard's image, else its text."""
        self._read_clipboard()

    @work(name="clipboard-paste", group="clipboard", thread=True, exclusive=True, exit_on_error=False)
    def _read_clipboard(self) -> None:
        from ..clipboard import read_clipboard

        content = read_clipboard()
        self.app.call_from_thread(self._clipboard_read, content)

    def _clipboard_read(self, content: ClipboardContent) -> None:
        if content.image is not None:
            image = image_files.image_from_bytes(content.image)
            if image is not None:
                self.attach_image(image)
                return
            self.app.notify("The clipboard image is not PNG, JPEG, GIF or WebP", severity="warning", timeout=4)
        elif content.text:
            self.paste_text(content.text)
        elif content.problem:
            self.app.notify(content.problem, severity="warning", timeout=6)
