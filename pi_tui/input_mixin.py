"""What the app does with the user's input: prompts, steering, follow-ups, ``!`` commands,
slash commands, completion (``/``, ``@`` and Tab paths), the queue and the model/thinking keys.

Every kernel call that may wait runs in a named worker with ``exit_on_error=False``; a
refused prompt (``PromptError``) becomes an inline notice, never a traceback.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any

from textual import work
from textual.widgets import TextArea

from . import path_completion
from .commands import all_commands, run_command
from .completion import file_completions, list_files, slash_completions
from .widgets.prompt_editor import PromptEditor

if TYPE_CHECKING:
    from .app import PiApp


class InputMixin:
    # ------------------------------------------------------------------ submit

    async def on_prompt_editor_submitted(self: PiApp, message: PromptEditor.Submitted) -> None:
        images = [image.to_content() for image in self.editor.take_images()]
        text = self.editor.take_text()
        self.menu.hide()
        if not text.strip() and not images:
            return
        self.editor.remember(text)
        await self.handle_text(text, message.mode, images)

    async def handle_text(self: PiApp, text: str, mode: str, images: list[Any] | None = None) -> None:
        """Route editor text: ``!``/``!!`` bash, built-in ``/command``, else a prompt (with ``images``)."""
        if self.session is None:
            self.notify("Still starting up…", timeout=2)
            self.editor.set_text(text)
            return
        stripped = text.strip()
        if stripped.startswith("!") and len(stripped) > 1:
            exclude = stripped.startswith("!!")
            command = stripped[2:] if exclude else stripped[1:]
            if command.strip():
                self._run_bash(command.strip(), exclude)
                return
        if stripped.startswith("/") and await run_command(self, stripped):
            return
        self._send(text, mode, images or None)

    @work(name="prompt", group="kernel", exit_on_error=False)
    async def _send(self: PiApp, text: str, mode: str, images: list[Any] | None = None) -> None:
        from pi_runtime.frontend import PromptError

        # One path in every state: extension commands and input hooks see the text even while
        # the agent streams; the kernel decides whether it starts a run, steers or follows up.
        behaviour = "followUp" if mode == "followUp" else "steer"
        try:
            await self.session.prompt(text, images, streaming_behavior=behaviour, wait=False)
        except PromptError as exc:
            await self.transcript.add_notice(str(exc), "error")

    @work(name="bash", group="bash", exit_on_error=False)
    async def _run_bash(self: PiApp, command: str, exclude: bool) -> None:
        request_id = uuid.uuid4().hex[:12]
        await self.transcript.start_bash(request_id, command, exclude)
        result = await self.session.execute_bash(command, exclude, request_id=request_id)
        self.transcript.finish_bash(request_id, command, result, exclude)

    # ------------------------------------------------------------------ queue and abort

    def action_dequeue(self: PiApp) -> None:
        """Bring queued steering/follow-up messages back into the editor."""
        if self.session is None:
            return
        steering, follow_up = self.session.clear_queue()
        self._restore_to_editor(steering + follow_up)

    def _restore_to_editor(self: PiApp, texts: list[str]) -> None:
        if not texts:
            return
        current = self.editor.text
        self.editor.set_text("\n\n".join(texts + ([current] if current.strip() else [])))
        self.queue_view.set_queue([], [])

    async def action_interrupt(self: PiApp) -> None:
        """Esc: close the menu, else abort the run (queued messages return to the editor)."""
        if self.menu.visible:
            self.menu.hide()
            return
        if self.session is None:
            return
        from .commands import escape_pressed

        if escape_pressed(self, idle=False):  # search bar or message selection
            return
        self.session.abort_bash()
        if self.session.is_streaming or self.session.is_compacting:
            steering, follow_up = self.session.clear_queue()
            self._restore_to_editor(steering + follow_up)
            self.run_worker(self.session.abort(), name="abort", group="kernel", exit_on_error=False)
        else:
            escape_pressed(self, idle=True)  # double Esc: doubleEscapeAction

    # ------------------------------------------------------------------ model and thinking

    @work(name="thinking", group="kernel", exit_on_error=False)
    async def action_cycle_thinking(self: PiApp) -> None:
        if self.session is None:
            return
        level = await self.session.cycle_thinking_level()
        if level is None:
            self.notify("This model does not support thinking levels", timeout=3)

    @work(name="cycle-model", group="kernel", exit_on_error=False)
    async def action_cycle_model(self: PiApp, direction: int) -> None:
        if self.session is None:
            return
        result = await self.session.cycle_model(direction)
        if result is None:
            self.notify("Only one model available", timeout=3)
        else:
            self.notify(f"Model: {result.model.ref}", timeout=2)

    def action_select_model(self: PiApp) -> None:
        from .screens.model_picker import open_model_picker

        open_model_picker(self)

    # ------------------------------------------------------------------ external editor, reload

    def action_external_editor(self: PiApp) -> None:
        import shlex
        import subprocess
        import tempfile

        command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "nano"
        with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as handle:
            handle.write(self.editor.text)
            path = handle.name
        try:
            with self.suspend():
                subprocess.run([*shlex.split(command), path], check=False)
            with open(path, encoding="utf-8") as handle:
                self.editor.set_text(handle.read().rstrip("\n"))
        except Exception as exc:  # noqa: BLE001
            self.notify(f"External editor failed: {exc}", severity="error")
        finally:
            os.unlink(path)

    async def reload_resources(self: PiApp) -> None:
        """``/reload``: keybindings, themes and resources from disk again."""
        from .keymap import load_keymap

        self.keymap = load_keymap(self.agent_dir / "keybindings.json")
        self.set_keymap(self.keymap.textual_keymap())
        self._apply_editor_keys()
        self._load_themes()
        self.apply_theme(self.wanted_theme, force=True)
        resources = getattr(self.session, "resources", None)
        if resources is not None and hasattr(resources, "reload"):
            resources.reload()
        self._refresh_header()
        problems = self.keymap.problems + self.theme_errors
        for problem in problems:
            self.notify(problem, severity="warning", timeout=8)
        await self.transcript.add_notice("Reloaded keybindings, themes and resources" +
                                         (f" ({len(problems)} problem(s))" if problems else ""))

    # ------------------------------------------------------------------ completion

    def on_text_area_changed(self: PiApp, event: TextArea.Changed) -> None:
        if event.text_area is self.editor:
            self.update_completion()

    def on_text_area_selection_changed(self: PiApp, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self.editor and self.menu.visible:
            self.update_completion()

    def update_completion(self: PiApp) -> None:
        if self.menu.kind == "path" and self.menu.visible:
            self._refilter_paths()
            return
        row, col = self.editor.cursor_location
        line = self.editor.document.get_line(row)
        before = line[:col]
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        token = before[start:]
        end = col
        while end < len(line) and not line[end].isspace():
            end += 1
        if row == 0 and start == 0 and token.startswith("/") and self.session is not None:
            self.menu.show(slash_completions(token[1:], all_commands(self.session)), "slash", (row, start, end))
        elif token.startswith("@"):
            if self._files is None:
                self._index_files()
                self.menu.hide()
                return
            self.menu.show(file_completions(token[1:], self._files), "file", (row, start, end))
        else:
            self.menu.hide()

    @work(name="index-files", group="files", thread=True, exclusive=True, exit_on_error=False)
    def _index_files(self: PiApp) -> None:
        files = list_files(self.cwd)
        self.call_from_thread(self._files_ready, files)

    def _files_ready(self: PiApp, files: list[str]) -> None:
        self._files = files
        self.update_completion()

    # ------------------------------------------------------------------ Tab: paths

    def on_prompt_editor_completion_requested(self: PiApp, message: PromptEditor.CompletionRequested) -> None:
        """Tab with the menu closed: complete the path before the cursor (see path_completion)."""
        row, col = self.editor.cursor_location
        before = self.editor.document.get_line(row)[:col]
        start = path_completion.token_start(before)
        token = before[start:]
        if not token or (row == 0 and start == 0 and token.startswith("/")):
            return  # nothing typed, or a slash command: Tab keeps its old meaning
        # "@src/ma" + Tab completes the path and keeps the "@".
        prefix = "@" if token.startswith("@") else ""
        result = path_completion.complete(token[len(prefix):], self.cwd)
        if result is None:
            return
        replacement = prefix + result.replacement
        if replacement != token:
            self.editor.replace(replacement, (row, start), (row, col))
        if result.candidates:
            self._show_paths(row, start, prefix, result.candidates)

    def _show_paths(self: PiApp, row: int, start: int, prefix: str, candidates: list[Any]) -> None:
        from .widgets.completion_menu import Completion

        col = self.editor.cursor_location[1]
        line = self.editor.document.get_line(row)
        end = col
        while end < len(line) and not line[end].isspace():
            end += 1
        items = [Completion(prefix + c.value, c.label, c.description) for c in candidates]
        self.menu.show(items, "path", (row, start, end))

    def _refilter_paths(self: PiApp) -> None:
        """Typing while the path menu is open narrows it (an emptied token closes it)."""
        row, col = self.editor.cursor_location
        before = self.editor.document.get_line(row)[:col]
        start = path_completion.token_start(before)
        token = before[start:]
        if not token:
            self.menu.hide()
            return
        prefix = "@" if token.startswith("@") else ""
        self._show_paths(row, start, prefix, path_completion.candidates(token[len(prefix):], self.cwd))
