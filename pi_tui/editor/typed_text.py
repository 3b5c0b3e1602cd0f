"""Keys typed together (a ``TypedRun``, see ``terminal/typed_runs.py``): one insertion into the editor
when nothing else could want them, else each key handled exactly as if it had come alone.

Two steps, as for a single key. The app decides first (``flows/typed_routing.py``) (a key goes to the app before the focused
widget): an extension listening to terminal input, keys held for a slash command's screen, an
extension's editor or shortcut, another screen or focus, each sends the keys down the ordinary
path one by one. Otherwise the run is forwarded to the editor, behind the keys it has already been
handed, and the editor decides in turn (``take_in_editor``): with the completion menu open, a jump
(``tui.editor.jumpForward``) waiting for its character, or a printable key bound to an editor
action, it handles the keys one by one; else it inserts the text in one edit. (Printable keys never
reach the app's bindings while the editor has the focus: Textual leaves out the keys a text area
consumes.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..terminal.textual_internals import mark_forwarded, restart_cursor_blink

if TYPE_CHECKING:
    from ..terminal.typed_runs import TypedRun
    from .prompt_editor import PromptEditor


async def take_in_editor(editor: PromptEditor, run: TypedRun, waiting_jump: bool) -> None:
    """The editor's step: insert the run's text, or handle its keys one by one."""
    menu = editor.menu
    hold = getattr(editor.app, "key_hold", None)
    if (editor.read_only or waiting_jump or (menu is not None and menu.is_open)
            or (hold is not None and hold.holding) or any(key.key in editor.key_actions for key in run.keys)):
        for key in run.keys:
            key.set_sender(editor.app)
            mark_forwarded(key)  # as the app's forward would have
            await editor.on_event(key)
        return
    restart_cursor_blink(editor)
    editor.replace(run.text, *editor.selection, maintain_selection_offset=False)
