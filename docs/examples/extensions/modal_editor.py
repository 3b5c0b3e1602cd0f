"""Modal editor: vim-like modal editing in the prompt (Pi's ``modal-editor.ts``, in Python).

- Esc: insert -> normal mode (in normal mode Esc is pi's again: it aborts the agent)
- i: insert mode; a: insert after the cursor
- h j k l, 0, $: move; x: delete the character under the cursor
- Enter, Ctrl+C, Ctrl+D and the other app keys work in both modes

The mode is shown in the editor's bottom border. App only (``ctx.mode == "tui"``).

    pi -e docs/examples/extensions/modal_editor.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI


def _modal_editor_class():
    # Imported here, not at the top: in print/JSON mode the extension must load without the app.
    from pi_tui.extension_ui import CustomEditor

    normal_keys = {
        "h": "action_cursor_left", "j": "action_cursor_down", "k": "action_cursor_up",
        "l": "action_cursor_right", "0": "action_cursor_line_start", "$": "action_cursor_line_end",
        "x": "action_delete_right",
    }

    class ModalEditor(CustomEditor):
        def on_mount(self):
            self.set_mode("insert")

        def set_mode(self, mode):
            self.vim_mode = mode
            self.border_subtitle = " NORMAL " if mode == "normal" else " INSERT "

        def handle_input(self, data):
            if data == "escape":
                if getattr(self, "vim_mode", "insert") == "insert":
                    self.set_mode("normal")
                    return True
                return False  # normal mode: Esc keeps pi's meaning (abort)
            if getattr(self, "vim_mode", "insert") == "insert":
                return False  # everything types as usual
            if data == "i":
                self.set_mode("insert")
                return True
            if data == "a":
                self.set_mode("insert")
                self.action_cursor_right()
                return True
            if data in normal_keys:
                getattr(self, normal_keys[data])()
                return True
            # Other printable keys do nothing in normal mode; Enter, Ctrl+… keep their meaning.
            return len(data) == 1

    return ModalEditor


def extension(pi: ExtensionAPI) -> None:
    def session_start(event, ctx):
        if ctx.mode != "tui":
            return
        editor_class = _modal_editor_class()
        ctx.ui.set_editor_component(lambda tui, theme, keybindings: editor_class(tui, theme, keybindings))

    pi.on("session_start", session_start)
