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
from textual.binding import Binding, BindingsMap
from textual.message import Message
from textual.widgets import TextArea

from ..terminal.textual_internals import active_keymap, own_bindings
from . import images as image_files
from . import paste
from .completion_menu import CompletionMenu
from .kill_ring import KillRing
from .typed_text import take_in_editor

if TYPE_CHECKING:
    from ..terminal.clipboard import ClipboardContent
    from ..terminal.typed_runs import TypedRun

EDITOR_ACTIONS = ("submit", "newline", "followUp", "tab")


def _key(action_id: str, action: str, keys: str) -> Binding:
    # The keys here are Pi's defaults; the app's keymap (keybindings.json) rebinds each by id.
    return Binding(keys, action, show=False, id=action_id)


class PromptEditor(TextArea, inherit_bindings=False):
    """TextArea with Pi's editing keys (by id, so ``keybindings.json`` applies), submit/newline/
    follow-up keys, history, a kill ring, paste folding and images."""

    BINDINGS = [
        _key("tui.editor.cursorUp", "cursor_up", "up"),
        _key("tui.editor.cursorDown", "cursor_down", "down"),
        _key("tui.editor.cursorLeft", "cursor_left", "left,ctrl+b"),
        _key("tui.editor.cursorRight", "cursor_right", "right,ctrl+f"),
        _key("tui.editor.cursorWordLeft", "cursor_word_left", "alt+left,ctrl+left,alt+b"),
        _key("tui.editor.cursorWordRight", "cursor_word_right", "alt+right,ctrl+right,alt+f"),
        _key("tui.editor.cursorLineStart", "cursor_line_start", "home,ctrl+a"),
        _key("tui.editor.cursorLineEnd", "cursor_line_end", "end,ctrl+e"),
        _key("tui.editor.pageUp", "cursor_page_up", "pageup,ctrl+pageup"),
        _key("tui.editor.pageDown", "cursor_page_down", "pagedown,ctrl+pagedown"),
        _key("tui.editor.deleteCharBackward", "delete_left", "backspace"),
        _key("tui.editor.deleteCharForward", "delete_right", "delete,ctrl+d"),
        _key("tui.editor.deleteWordBackward", "kill('word_left')", "ctrl+w,alt+backspace"),
        _key("tui.editor.deleteWordForward", "kill('word_right')", "alt+d,alt+delete"),
        _key("tui.editor.deleteToLineStart", "kill('line_start')", "ctrl+u"),
        _key("tui.editor.deleteToLineEnd", "kill('line_end')", "ctrl+k"),
        _key("tui.editor.yank", "yank", "ctrl+y"),
        _key("tui.editor.yankPop", "yank_pop", "alt+y"),
        _key("tui.editor.undo", "undo", "ctrl+minus"),
        _key("tui.editor.jumpForward", "jump(1)", "ctrl+right_square_bracket"),
        _key("tui.editor.jumpBackward", "jump(-1)", "alt+ctrl+right_square_bracket"),
        # Not a priority binding: the app's keymap rebinds it by id like the app's own keys.
        _key("app.clipboard.pasteImage", "paste_clipboard", "ctrl+v"),
        # Selection keys have no Pi id; they keep TextArea's meaning.
        Binding("shift+left", "cursor_left(True)", show=False),
        Binding("shift+right", "cursor_right(True)", show=False),
        Binding("shift+up", "cursor_up(True)", show=False),
        Binding("shift+down", "cursor_down(True)", show=False),
        Binding("shift+home", "cursor_line_start(True)", show=False),
        Binding("shift+end", "cursor_line_end(True)", show=False),
        Binding("ctrl+shift+left", "cursor_word_left(True)", show=False),
        Binding("ctrl+shift+right", "cursor_word_right(True)", show=False),
        Binding("f7", "select_all", show=False),
    ]

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
        self._own_bindings: tuple[object, BindingsMap] | None = None
        """(the app's keymap, this editor's bindings with it applied): see ``_run_own_binding``."""
        self.prompt_history: list[str] = []
        """Sent prompts, oldest first."""
        self._history_pos: int | None = None
        self.pastes: dict[str, str] = {}
        """Paste marker -> pasted text."""
        self.images: dict[str, image_files.AttachedImage] = {}
        """Image marker -> attached image."""
        self.kill_ring = KillRing()
        self._after_kill: tuple[object, ...] | None = None
        """(cursor, text length) right after the last kill: a kill from the same spot joins it."""
        self._after_yank: tuple[object, ...] | None = None
        """The same right after a yank, and where the yanked text starts (for yank_pop)."""
        self._jump: int = 0
        """Set by jumpForward/jumpBackward: the next character typed is the one to jump to."""

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

    def handle_input(self, data: str) -> bool:
        """A key (``terminal_input.editor_key``: the character typed, else the key's name) offered
        before the app's keys and the editor's own; True when handled. pi's editor takes none; an
        extension's ``CustomEditor`` (``ctx.ui.set_editor_component``) overrides this, as Pi's
        ``handleInput``, and returns False for what the normal keys should do."""
        return False

    async def _on_key(self, event: events.Key) -> None:
        hold = getattr(self.app, "key_hold", None)
        if hold is not None and hold.keep(event):  # typed after a slash command: for what it opens
            self._stop(event)
            return
        key = event.key
        if self._jump and event.character and event.is_printable:
            self._stop(event)
            self._jump_to(event.character, self._jump)
            return
        self._jump = 0
        menu = self.menu
        if menu is not None and menu.is_open:
            row = self.cursor_location[0]
            menu.catch_up(row, self.document.get_line(row))
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
        # Textual calls Alt+D printable (its character is "d"): a key with a modifier is never
        # typing. Unbound, it goes on to the app's keys and types nothing (Pi: Alt+D deletes a
        # word; a free Alt key does nothing).
        modified = any(mod in key for mod in ("alt+", "ctrl+", "super+"))
        if (modified or not event.is_printable) and await self._run_own_binding(key):
            self._stop(event)
            return
        if modified:
            return
        await super()._on_key(event)

    async def _on_typed_run(self, run: TypedRun) -> None:
        """Keys typed together, forwarded by the app: one insertion, or each key as it would come alone."""
        await take_in_editor(self, run, waiting_jump=bool(self._jump))

    async def _run_own_binding(self, key: str) -> bool:
        """Run the editor's own binding for ``key`` now; False when it has none.

        Textual runs a widget's bindings only once the key has bubbled up to the app, behind
        the keys already handed to the widget: keys arriving together (a fast typist, tmux,
        a terminal macro) came out of order, so ``abc``, Home, ``X`` gave ``abcX``. Pi applies
        them in order; so does this, for the editor's keys (the app's own keys still bubble).
        """
        # The editor's bindings as Textual's binding chain has them: keybindings.json applied.
        # Made once per keymap (Textual replaces the dict when it changes): 0.7 ms a key else.
        keymap = active_keymap(self.app)
        if self._own_bindings is None or self._own_bindings[0] is not keymap:
            own = own_bindings(self).copy()
            if keymap:
                own.apply_keymap(keymap)
            self._own_bindings = (keymap, own)
        for binding in self._own_bindings[1].key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    # ------------------------------------------------------------------ kill ring and jumps

    def _spot(self) -> tuple[object, ...]:
        return (self.cursor_location, len(self.text))

    def action_kill(self, what: str) -> None:
        """Remove to the line start/end or a word back/forward, keeping the text for ``yank``."""
        start, end = self.selection
        if start != end:  # a selection is what goes
            target = start
        elif what == "line_end":
            target = self.get_cursor_line_end_location()
            if target == end and end[0] < self.document.line_count - 1:
                target = (end[0] + 1, 0)  # at the end of a line: take the line break
        elif what == "line_start":
            target = self.get_cursor_line_start_location()
        elif what == "word_left":
            target = self.get_cursor_word_left_location()
        else:
            target = self.get_cursor_word_right_location()
        if target == end:
            return
        continues = self._after_kill == self._spot()
        result = self.delete(min(target, end), max(target, end), maintain_selection_offset=False)
        self.kill_ring.kill(result.replaced_text, backward=target < end, continues=continues)
        self._after_kill = self._spot()

    def action_yank(self) -> None:
        text = self.kill_ring.yank()
        if text is None:
            return
        begin = self.selection.start
        self.replace(text, *self.selection)
        self._after_yank = (*self._spot(), begin)

    def action_yank_pop(self) -> None:
        if self._after_yank is None or self._after_yank[:2] != self._spot():
            self.kill_ring.other_key()
            return
        text = self.kill_ring.yank_pop()
        if text is None:
            return
        begin = self._after_yank[2]
        assert isinstance(begin, tuple)
        self.replace(text, begin, self.cursor_location)
        self._after_yank = (*self._spot(), begin)

    def action_jump(self, direction: int) -> None:
        """Jump to the next (or previous) place of the character typed next."""
        self._jump = direction

    def _jump_to(self, character: str, direction: int) -> None:
        self._jump = 0
        row, col = self.cursor_location
        lines = self.text.split("\n")
        offset = sum(len(line) + 1 for line in lines[:row]) + col
        text = "\n".join(lines)
        found = text.find(character, offset + 1) if direction > 0 else text.rfind(character, 0, offset)
        if found < 0:
            return
        before = text[:found]
        self.move_cursor((before.count("\n"), found - (before.rfind("\n") + 1)))

    def _submit(self, mode: str) -> None:
        if self.menu is not None:
            self.menu.hide()
        images = self.take_images()
        text = self.take_text()
        if text.strip() or images:
            self.remember(text)
        hold = getattr(self.app, "key_hold", None)
        if hold is not None and text.lstrip().startswith("/"):
            hold.start()
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
        on_accept = menu.on_accept
        menu.hide()
        if choice is None:
            return
        if on_accept is not None:
            on_accept(choice)
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
        from ..terminal.clipboard import read_clipboard

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
