"""The editor's completion: ``/`` commands, ``@`` files and Tab paths, shown in the menu above it.

``CompletionController`` owns the file index behind ``@`` (built once, in a thread) and decides
what the menu shows as the text and the cursor move. The editor drives the open menu with its
own keys (``PromptEditor``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import path_completion
from .completion import file_completions, list_files, slash_completions
from .widgets.completion_menu import Completion

if TYPE_CHECKING:
    from .app import PiApp


class CompletionController:
    """Completion for one app's editor.

    Args:
        app: Its editor, menu and working directory; runs the indexing worker.
        commands: ``(name, description)`` of every slash command available now.
    """

    def __init__(self, app: PiApp, commands: Callable[[], list[tuple[str, str]]]) -> None:
        self._app = app
        self._commands = commands
        self._files: list[str] | None = None

    # ------------------------------------------------------------------ typing

    def update(self) -> None:
        """The text or the cursor changed: show, refilter or hide the menu."""
        app = self._app
        editor, menu = app.editor, app.menu
        if menu.kind == "path" and menu.is_open:
            self._refilter_paths()
            return
        row, col = editor.cursor_location
        line = editor.document.get_line(row)
        before = line[:col]
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        token = before[start:]
        end = _token_end(line, col)
        if row == 0 and start == 0 and token.startswith("/") and app.session is not None:
            menu.show(slash_completions(token[1:], self._commands()), "slash", (row, start, end))
        elif token.startswith("@"):
            if self._files is None:
                self._index_files()
                menu.hide()
                return
            menu.show(file_completions(token[1:], self._files), "file", (row, start, end))
        else:
            menu.hide()

    def _index_files(self) -> None:
        app = self._app

        def index() -> None:
            files = list_files(app.cwd)
            app.call_from_thread(self._files_ready, files)

        app.run_worker(index, name="index-files", group="files", thread=True, exclusive=True, exit_on_error=False)

    def _files_ready(self, files: list[str]) -> None:
        self._files = files
        self.update()

    # ------------------------------------------------------------------ Tab: paths

    def complete_path(self) -> None:
        """Tab with the menu closed: complete the path before the cursor (see path_completion)."""
        editor = self._app.editor
        row, col = editor.cursor_location
        before = editor.document.get_line(row)[:col]
        start = path_completion.token_start(before)
        token = before[start:]
        if not token or (row == 0 and start == 0 and token.startswith("/")):
            return  # nothing typed, or a slash command: Tab keeps its old meaning
        # "@src/ma" + Tab completes the path and keeps the "@".
        prefix = "@" if token.startswith("@") else ""
        result = path_completion.complete(token[len(prefix):], self._app.cwd)
        if result is None:
            return
        replacement = prefix + result.replacement
        if replacement != token:
            editor.replace(replacement, (row, start), (row, col))
        if result.candidates:
            self._show_paths(row, start, prefix, result.candidates)

    def _show_paths(self, row: int, start: int, prefix: str, candidates: list[Any]) -> None:
        editor = self._app.editor
        end = _token_end(editor.document.get_line(row), editor.cursor_location[1])
        items = [Completion(prefix + c.value, c.label, c.description) for c in candidates]
        self._app.menu.show(items, "path", (row, start, end))

    def _refilter_paths(self) -> None:
        """Typing while the path menu is open narrows it (an emptied token closes it)."""
        editor = self._app.editor
        row, col = editor.cursor_location
        before = editor.document.get_line(row)[:col]
        start = path_completion.token_start(before)
        token = before[start:]
        if not token:
            self._app.menu.hide()
            return
        prefix = "@" if token.startswith("@") else ""
        self._show_paths(row, start, prefix, path_completion.candidates(token[len(prefix):], self._app.cwd))


def _token_end(line: str, col: int) -> int:
    """Where the token under the cursor ends (the next blank, or the end of the line)."""
    end = col
    while end < len(line) and not line[end].isspace():
        end += 1
    return end
