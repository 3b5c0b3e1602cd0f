"""``ctx.ui.set_editor_component``: put an extension's editor where pi's is, and back.

The replacement must be a ``PromptEditor`` (an extension subclasses ``CustomEditor``), so the
app keeps one kind of editor: ``app.editor`` is whichever is in use, and submitting, completion,
``get_editor_text`` and the keys work unchanged. The text, pastes, images, history and key
settings move over to it. pi's own editor is only hidden (it keeps its id and state) so None
brings it back as it was; a replaced extension editor is removed.

With several sessions open each session's extensions may have an editor of their own: a
background session's is built hidden (``build_hidden_editor``) and ``change_editor`` shows it
when its tab is shown, keeping the one it hides mounted for when that tab comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..editor.prompt_editor import PromptEditor

if TYPE_CHECKING:
    from textual.widget import AwaitMount, Widget

    from ..keys.keymap import Keymap


class _Border(Protocol):
    def use_editor(self, editor: PromptEditor) -> None: ...


class EditorSlot(Protocol):
    """Where the editor in use sits in the app: pi's own, the one shown, and its border."""

    editor: PromptEditor
    """The editor in use."""
    @property
    def default_editor(self) -> PromptEditor: ...
    @property
    def keymap(self) -> Keymap:
        """Handed to an extension's editor factory (Pi's ``keybindings``)."""
    @property
    def chrome(self) -> _Border: ...
    def mount(self, *widgets: Widget, before: int | str | Widget | None = None,
              after: int | str | Widget | None = None) -> AwaitMount: ...


def _build(app: EditorSlot, factory: Callable[..., Any], theme: Any) -> PromptEditor:
    new = factory(app, theme, app.keymap)
    if not isinstance(new, PromptEditor):
        raise TypeError(f"set_editor_component: the factory must return a CustomEditor, not {type(new).__name__}")
    new.add_class("pi-editor")
    return new


def swap_editor(app: EditorSlot, factory: Callable[..., Any] | None, theme: Any) -> PromptEditor:
    """Show the editor ``factory(app, theme, app.keymap)`` builds (None: pi's own); returns it.

    Raises:
        TypeError: The factory built something that is not a ``PromptEditor``.
    """
    current, default = app.editor, app.default_editor
    new = default if factory is None else _build(app, factory, theme)
    if new is current:
        return new
    text = current.text
    cursor = current.cursor_location
    _take_over(app, current, new)
    if current is not default:
        current.remove()
    new.load_text(text)
    new.move_cursor(cursor)
    new.focus()
    return new


def build_hidden_editor(app: EditorSlot, factory: Callable[..., Any], theme: Any) -> PromptEditor:
    """An extension editor for a session in the background: mounted hidden beside pi's.

    Raises:
        TypeError: The factory built something that is not a ``PromptEditor``.
    """
    new = _build(app, factory, theme)
    new.display = False
    app.mount(new, after=app.default_editor)
    return new


def change_editor(app: EditorSlot, new: PromptEditor) -> None:
    """Show ``new`` (pi's or a session's extension editor) instead of the editor in use, which
    stays mounted, hidden, with its state. The rest is the caller's (a tab switch): the shown
    session's draft goes into it next, and ``chrome.show`` gives it that session's thinking border."""
    current = app.editor
    if new is current:
        return
    had_focus = current.has_focus
    _take_over(app, current, new, same_session=False)
    if had_focus:
        new.focus()


def _take_over(app: EditorSlot, current: PromptEditor, new: PromptEditor, *, same_session: bool = True) -> None:
    """``new`` becomes ``app.editor`` with ``current``'s settings; ``current`` is hidden."""
    new.menu = current.menu
    new.key_actions = dict(current.key_actions)
    # The same history, pastes and images: a paste marker in the text must still expand on submit.
    new.prompt_history, new.pastes, new.images = current.prompt_history, current.pastes, current.images
    new.styles.padding = current.styles.padding
    new.cursor_blink = current.cursor_blink  # static snapshots turn it off
    if same_session:  # the thinking level's border colour
        for name in current.classes:
            if name.startswith("thinking-"):
                new.add_class(name)
    if new.is_attached:
        new.display = True
    else:
        app.mount(new, after=current)
    current.display = False
    app.editor = new
    app.chrome.use_editor(new)
