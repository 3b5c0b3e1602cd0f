"""The app's key actions (``action_*``: the ids ``keys/key_table.py`` binds) as a base class of
``PiApp``, so ``app.py`` keeps the layout and the kernel glue. Each action hands off to the part
that owns the state (input controller, transcript, tree pane, workspace)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import App

from ..keys.key_table import MAIN_VIEW_ACTIONS

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..editor.prompt_editor import PromptEditor
    from ..queue.queue_pane import QueuePane
    from ..sessions.session_tabs import SessionTabs
    from ..transcript.transcript import Transcript
    from .host import PiHost
    from .input_controller import InputController
    from .pane_controller import TreePaneController
    from .workspace import Workspace


class AppActions(App[int], inherit_bindings=False):
    """What the app's keys do; ``PiApp`` builds the parts named below."""

    if TYPE_CHECKING:
        session: SessionPort | None
        input: InputController
        editor: PromptEditor
        queue_view: QueuePane
        transcript: Transcript
        tree_pane: TreePaneController
        workspace: Workspace
        session_tabs: SessionTabs

    @property
    def host(self) -> PiHost:
        """This app as the controllers type it (``PiApp``, the one subclass, has every part)."""
        return cast("PiHost", self)

    def action_interrupt(self) -> None:
        self.input.interrupt()

    def action_clear(self) -> None:
        self.input.clear()

    def action_exit_if_empty(self) -> None:
        self.input.exit_if_empty()

    async def action_dequeue(self) -> None:
        await self.input.dequeue()

    def action_focus_queue(self) -> None:
        if not self.queue_view.take_focus():  # said, as Alt+Up says "No queued messages to restore"
            self.notify("No queued messages to edit", timeout=3)

    async def on_queue_pane_editor_wanted(self, message: QueuePane.EditorWanted) -> None:
        if message.text:
            self.input.restore_to_editor([message.text])
        self.editor.focus()
        if message.notice:
            await self.transcript.add_notice(message.notice, "warning")

    def action_external_editor(self) -> None:
        self.input.edit_externally()

    async def action_slash(self, command: str) -> None:
        await self.input.send(command)

    def action_select_model(self) -> None:
        from ..dialogs.model_picker import open_model_picker

        open_model_picker(self)

    def action_cycle_model(self, direction: int) -> None:
        if self.session is not None:
            self.run_worker(self._cycle_model(self.session, direction), name="cycle-model", group="kernel",
                            exit_on_error=False)

    async def _cycle_model(self, session: SessionPort, direction: int) -> None:
        result = await session.cycle_model(direction)
        if result is None:
            self.host.show_status("Only one model in scope" if session.scoped_models else "Only one model available")
        else:
            model = result.model
            level = f" (thinking: {result.thinking_level})" if model.reasoning and result.thinking_level != "off" else ""
            self.host.show_status(f"Switched to {model.name or model.id}{level}")

    def action_cycle_thinking(self) -> None:
        if self.session is not None:
            self.run_worker(self._cycle_thinking(self.session), name="thinking", group="kernel", exit_on_error=False)

    async def _cycle_thinking(self, session: SessionPort) -> None:
        if await session.cycle_thinking_level() is None:
            self.notify("This model does not support thinking levels", timeout=3)

    def action_toggle_thinking(self) -> None:
        self.transcript.set_thinking_collapsed(not self.transcript.thinking_collapsed)

    def action_toggle_tools(self) -> None:
        self.transcript.set_tools_expanded(not self.transcript.tools_expanded)

    async def action_scroll_transcript(self, where: str) -> None:
        t = self.transcript
        if where in ("page_up", "home"):
            t.release_anchor()  # the user moved away from the bottom: stop following output
        if where == "end":
            await t.restore_end()  # the newest messages may have been unmounted while reading old ones
        elif where == "home":
            await t.restore_start()  # the very first message, not just the oldest one mounted
        {"page_up": t.scroll_page_up, "page_down": t.scroll_page_down,
         "home": t.scroll_home, "end": t.scroll_end}[where](animate=False)
        if where == "end":
            t.anchor()

    async def action_toggle_tree_pane(self) -> None:
        await self.tree_pane.toggle_or_focus()

    def action_focus_next_pane(self) -> None:
        self.tree_pane.focus_next()

    def action_copy_last(self) -> None:
        from .view_actions import copy_message

        copy_message(self.host)

    def action_pi_cmd(self, name: str) -> None:
        from .view_actions import run_action

        if self.session is not None:
            run_action(self.host, name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The main view's keys are priority bindings, which Textual checks even under a
        # modal; a picker or dialog on top must get them (Esc cancels it, Ctrl+L filters).
        if action in MAIN_VIEW_ACTIONS and len(self.screen_stack) > 1 and self.screen.is_modal:
            return False
        if self.queue_view.takes_app_action(action):
            return False  # Esc in the queue list goes back to the editor; it does not abort the run
        return super().check_action(action, parameters)

    # ------------------------------------------------------------------ several sessions (workspace.py)

    def refresh_session_tabs(self) -> None:
        """Redraw the tab bar from the workspace (a session opened, closed, changed state)."""
        self.session_tabs.sync(self.workspace.sessions, self.workspace.active)

    async def on_session_tabs_selected(self, message: SessionTabs.Selected) -> None:
        await self.workspace.show(message.entry)

    async def action_session_step(self, direction: int) -> None:
        await self.workspace.step(direction)

    async def action_session_open(self) -> None:
        from .open_flows import open_command

        await open_command(self.host, "new")
