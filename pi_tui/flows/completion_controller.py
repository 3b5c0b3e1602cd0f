"""The editor's completion: ``/`` commands, ``@`` files and Tab paths, shown in the menu above it.

``CompletionController`` owns the file index behind ``@`` (built once, in a thread) and decides
what the menu shows as the text and the cursor move. The editor drives the open menu with its
own keys (``PromptEditor``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..editor import path_completion
from ..editor.completion import file_completions, list_files, slash_completions
from ..editor.completion_menu import Completion
from ..extension_ui.extension_completion import BuiltinProvider, ProviderStack

if TYPE_CHECKING:
    from .host import PiHost


class CompletionController:
    """Completion for one app's editor.

    Args:
        app: Its editor, menu and working directory; runs the indexing worker.
        commands: ``(name, description)`` of every slash command available now.
    """

    def __init__(self, app: PiHost, commands: Callable[[], list[tuple[str, str]]]) -> None:
        self._app = app
        self._commands = commands
        self._files: list[str] | None = None
        self.providers: ProviderStack | None = None
        """Extensions' autocomplete providers (``ctx.ui.add_autocomplete_provider``); None until one is added."""

    # ------------------------------------------------------------------ typing

    def update(self) -> None:
        """The text or the cursor changed: show, refilter or hide the menu."""
        app = self._app
        editor, menu = app.editor, app.menu
        row, col = editor.cursor_location
        line = editor.document.get_line(row)
        menu.source = (row, line)  # what is shown below is worked out for this line (hide() clears it)
        if menu.kind == "path" and menu.is_open:
            self._refilter_paths()
            return
        before = line[:col]
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        token = before[start:]
        end = _token_end(line, col)
        if self.providers is not None and (self.providers.wants(token) or (menu.kind == "ext" and menu.is_open)):
            menu.source = (row, None)  # the candidates on show are an older text's until the answer comes
            self._ask_providers(row, col)
        elif row == 0 and start == 0 and token.startswith("/") and app.session is not None:
            menu.show(slash_completions(token[1:], self._commands()), "slash", (row, start, end))
        elif row == 0 and self._argument_command(line) is not None:
            menu.source = (row, None)
            self._complete_arguments(line, col)
        elif token.startswith("@"):
            if self._files is None:
                self._index_files()
                menu.hide()
                return
            menu.show(file_completions(token[1:], self._files), "file", (row, start, end))
        else:
            menu.hide()

    # ------------------------------------------------------------------ extension providers

    def add_provider(self, factory: Callable[[Any], Any]) -> None:
        """Stack an extension's provider on the others (pi's own at the bottom)."""
        if self.providers is None:
            self.providers = ProviderStack(BuiltinProvider(self._commands, lambda: self._files))
        self.providers.add(factory)

    def _ask_providers(self, row: int, col: int, *, force: bool = False) -> None:
        """Show what the providers suggest for the cursor (in a worker: they may wait). Forced
        (Tab) and answered by none of them, pi's path completion runs instead."""
        stack = self.providers
        assert stack is not None
        editor = self._app.editor
        text = editor.text
        lines = text.split("\n")

        async def fetch() -> None:
            result = await stack.suggest(lines, row, col, force=force)
            editor = self._app.editor
            if editor.text != text or editor.cursor_location != (row, col):
                return  # typed on meanwhile: a newer request is on its way
            prefix = str((result or {}).get("prefix") or "")
            raw = [(item, _argument_item(item)) for item in (result or {}).get("items") or []]
            pairs = [(item, shown) for item, shown in raw if shown is not None]
            if not pairs:
                self._app.menu.hide()
                if force:
                    self._complete_path_now()
                return

            def accept(choice: Completion) -> None:
                item = next(item for item, shown in pairs if shown == choice)
                self._apply(stack, lines, row, col, item, prefix)

            self._app.menu.show([shown for _, shown in pairs], "ext", (row, max(0, col - len(prefix)), col),
                                on_accept=accept)
            self._app.menu.source = (row, lines[row])

        self._app.run_worker(fetch, name="provider-completions", group="completion",
                             exclusive=True, exit_on_error=False)

    def _apply(self, stack: ProviderStack, lines: list[str], row: int, col: int, item: Any, prefix: str) -> None:
        result = stack.apply(lines, row, col, item, prefix)
        editor = self._app.editor
        new_lines = [str(line) for line in result["lines"]]
        cursor = (int(result.get("cursor_line", row)), int(result.get("cursor_col", col)))
        editor.replace("\n".join(new_lines), (0, 0), editor.document.end)
        editor.move_cursor(cursor)

    # ------------------------------------------------------------------ extension command arguments

    def _argument_command(self, line: str) -> str | None:
        """``name`` when ``line`` is ``/name args…`` for an extension command that completes its arguments."""
        if not line.startswith("/") or " " not in line:
            return None
        from ..sessions.served import is_served

        session = self._app.session
        runner = session.extension_runner if session is not None else None
        name = line[1:].split(" ", 1)[0]
        if runner is None:
            # A served session's extension command: its server is asked (it may have none to give).
            served = is_served(session) and any(c.get("name") == name and c.get("source") == "extension"
                                                for c in session.extension_commands)
            return name if served else None
        command = runner.commands().get(name)
        return name if command is not None and command.get_argument_completions is not None else None

    def _complete_arguments(self, line: str, col: int) -> None:
        """Ask the extension for completions of the text after ``/name `` (in a worker: it may wait)."""
        name = self._argument_command(line)
        session = self._app.session
        if name is None or session is None:
            return
        from ..sessions.served import is_served

        # The extension's runner here, or a served session (which asks its server).
        source: CommandCompleter | None = session.extension_runner or (session if is_served(session) else None)
        if source is None:
            return
        begin = len(name) + 2
        prefix = line[begin:col]

        async def fetch() -> None:
            items = await source.complete_command(name, prefix)
            editor = self._app.editor
            if editor.document.get_line(0)[begin:editor.cursor_location[1]] != prefix:
                return  # typed on meanwhile: a newer request is on its way
            shown = [_argument_item(item) for item in items or []]
            self._app.menu.show([c for c in shown if c is not None], "args", (0, begin, _token_end(line, col)))
            self._app.menu.source = (0, editor.document.get_line(0))

        # The function, not a coroutine: a request cancelled by a newer one never started, so
        # nothing is left unawaited.
        self._app.run_worker(fetch, name="argument-completions", group="completion",
                             exclusive=True, exit_on_error=False)

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
        """Tab with the menu closed: extensions' providers first (asked with ``force``, unless their
        ``should_trigger_file_completion`` says no), else complete the path before the cursor (see
        path_completion)."""
        editor = self._app.editor
        row, col = editor.cursor_location
        line = editor.document.get_line(row)
        if row == 0 and self._argument_command(line) is not None:
            self._complete_arguments(line, col)  # "/cmd " + Tab: the command's own completions
            return
        if self.providers is not None:
            if not self.providers.wants_tab(editor.text.split("\n"), row, col):
                return  # a provider said Tab completes nothing here (Pi's shouldTriggerFileCompletion)
            self._ask_providers(row, col, force=True)
            return
        self._complete_path_now()

    def _complete_path_now(self) -> None:
        editor = self._app.editor
        row, col = editor.cursor_location
        line = editor.document.get_line(row)
        before = line[:col]
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


class CommandCompleter(Protocol):
    """Who gives an extension command's argument completions: its runner, or a served session."""

    async def complete_command(self, name: str, prefix: str) -> list[Any] | None: ...


def _argument_item(item: object) -> Completion | None:
    """A completion from an extension: a string, or ``{value, label, description}``."""
    if isinstance(item, str):
        return Completion(item, item)
    if isinstance(item, dict) and isinstance(item.get("value"), str):
        value = item["value"]
        return Completion(value, str(item.get("label") or value), str(item.get("description") or ""))
    return None


def _token_end(line: str, col: int) -> int:
    """Where the token under the cursor ends (the next blank, or the end of the line)."""
    end = col
    while end < len(line) and not line[end].isspace():
        end += 1
    return end
