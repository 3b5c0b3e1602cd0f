"""``ctx.ui.set_editor_component``: put an extension's editor where pi's is, and back.

The replacement must be a ``PromptEditor`` (an extension subclasses ``CustomEditor``), so the
app keeps one kind of editor: ``app.editor`` is whichever is in use, and submitting, completion,
``get_editor_text`` and the keys work unchanged. The text, pastes, images, history and key
settings move over to it. pi's own editor is only hidden (it keeps its id and state) so None
brings it back as it was; a replaced extension editor is removed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .prompt_editor import PromptEditor

if TYPE_CHECKING:
    from ..host import PiHost


def swap_editor(app: PiHost, factory: Callable[..., Any] | None, theme: Any) -> PromptEditor:
    """Show the editor ``factory(app, theme, app.keymap)`` builds (None: pi's own); returns it.

    Raises:
        TypeError: The factory built something that is not a ``PromptEditor``.
    """
    current, default = app.editor, app.default_editor
    new = default if factory is None else factory(app, theme, app.keymap)
    if not isinstance(new, PromptEditor):
        raise TypeError(f"set_editor_component: the factory must return a CustomEditor, not {type(new).__name__}")
    if new is current:
        return new
    text = current.text
    cursor = current.cursor_location
    new.menu = current.menu
    new.key_actions = dict(current.key_actions)
    # The same history, pastes and images: a paste marker in the text must still expand on submit.
    new.prompt_history, new.pastes, new.images = current.prompt_history, current.pastes, current.images
    new.styles.padding = current.styles.padding
    new.cursor_blink = current.cursor_blink  # static snapshots turn it off
    for name in current.classes:
        if name.startswith("thinking-"):
            new.add_class(name)
    if new is default:
        default.display = True
    else:
        new.add_class("pi-editor")
        app.mount(new, after=current)
    if current is default:
        default.display = False
    else:
        current.remove()
    app.editor = new
    app.chrome.use_editor(new)
    new.load_text(text)
    new.move_cursor(cursor)
    new.focus()
    return new
