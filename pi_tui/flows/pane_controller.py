"""``TreePaneController``: opens, closes, sizes and feeds the tree pane; owns its preview.

The app holds one (``app.tree_pane``) and tells it three things: a batch of kernel events was
applied (``sync``), the session changed (``session_changed``), the terminal was resized
(``layout``); it asks one: does the pane (or a focused transcript) take this key
(``takes_key``). Everything else (preview, navigation, fork, clone, labels, width) happens
here through the session's ``SessionPort``. Nothing is built until the pane is first opened.

Below ``OVERLAY_BELOW`` columns the pane floats over the transcript instead of narrowing it,
so an 80×24 terminal keeps a readable conversation (DESIGN.md: nothing is lost at 80×24).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

from .host import PiHost

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.geometry import Size
    from textual.screen import Screen
    from textual.timer import Timer, TimerCallback
    from textual.widget import Widget
    from textual.worker_manager import WorkerManager

    from pi_runtime.frontend import SessionPort

OVERLAY_BELOW = 100
"""Terminal width under which the pane is an overlay instead of a docked column."""
DEFAULT_WIDTH = 44
MIN_WIDTH = 24
MIN_TRANSCRIPT = 40
"""Columns the transcript keeps beside a docked pane."""
PREVIEW_DELAY = 0.12
"""Seconds the cursor rests on a row before its path is drawn (holding ↓ draws nothing in between)."""


class PaneHost(PiHost, Protocol):
    """What the pane needs of the app beyond ``PiHost``: its size, the focus, timers, workers."""

    @property
    def size(self) -> Size: ...
    @property
    def focused(self) -> Widget | None: ...
    @property
    def screen(self) -> Screen[object]: ...
    @property
    def workers(self) -> WorkerManager: ...
    def set_focus(self, widget: Widget | None, scroll_visible: bool = True) -> None: ...
    def set_timer(self, delay: float, callback: TimerCallback | None = None, *, name: str | None = None,
                  pause: bool = False) -> Timer: ...


class TreePaneController:
    """The tree pane of one app (see the module docstring)."""

    def __init__(self, app: PaneHost) -> None:
        self.app = app
        self.pane: Any = None
        self.preview: Any = None
        self._lives: dict[int, Any] = {}
        """Each open session's rows (``LiveTree``, by the session's ``id()``), kept while the pane is
        closed or another tab is shown: coming back only takes in what was appended since."""
        self.width = DEFAULT_WIDTH
        self._preview_timer: Any = None
        self._wanted_preview: str | None = None
        self._laid_out_for = -1
        """Terminal width the pane was last laid out for."""

    # ------------------------------------------------------------------ open / close

    def _session(self) -> SessionPort:
        session = self.app.session
        assert session is not None  # the pane opens only once a session is attached
        return session

    def _workspace(self) -> Widget:
        """The row the transcript sits in (``#workspace``): the pane and the preview go there too."""
        from textual.widget import Widget

        parent = self.app.transcript.parent
        assert isinstance(parent, Widget)
        return parent

    @property
    def is_open(self) -> bool:
        return self.pane is not None

    @property
    def previewing(self) -> bool:
        return self.preview is not None and bool(self.preview.display)

    async def toggle(self) -> None:
        """``/pane tree``: open the pane (the editor keeps the keys) or close it."""
        await (self.close() if self.is_open else self.open())

    async def toggle_or_focus(self) -> None:
        """Alt+T (``app.pane.tree``): open the pane, or move into the open pane, or close the
        focused one. Opening never takes the editor's keys: a user who opens the pane to look at
        it and goes on typing must not type into its search or switch its filters."""
        if not self.is_open:
            await self.open()
        elif self.has_focus:
            await self.close()
        else:
            self.pane.focus_list()

    @property
    def has_focus(self) -> bool:
        """Whether keys go to the pane (its list is focused)."""
        focused = self.app.focused
        return self.pane is not None and focused is not None and self.pane in focused.ancestors_with_self

    async def open(self) -> None:
        """Dock the live tree beside the transcript; the focus stays where it is (F6, a click or
        Alt+T move into the pane)."""
        app = self.app
        if self.is_open or app.session is None:
            return
        from pi_runtime.frontend import typed_settings

        from ..tree.tree_pane import TreePane

        session = app.session
        self.width = typed_settings(session.settings).tree_pane_width or self.width
        self.pane = TreePane(self._live_for(session), self, id="tree-pane")
        await self._workspace().mount(self.pane)  # the preview is mounted when first shown
        app.transcript.can_focus = True  # a third place for the focus to go (F6, a click)
        self._laid_out_for = -1
        # Every layout pass (a resize among them) publishes this; layout() acts only when the width changed.
        app.screen.screen_layout_refresh_signal.subscribe(self.pane, lambda _screen: self.layout())
        self.layout()

    def _live_for(self, session: SessionPort) -> Any:
        """``session``'s rows: built the first time, else caught up, the cursor where the session is."""
        from pi_runtime.frontend import typed_settings

        from ..tree.live_tree import LiveTree

        live = self._lives.get(id(session))
        if live is None or live.session is not session:
            live = self._lives[id(session)] = LiveTree(session, typed_settings(session.settings).tree_filter_mode)
        else:
            live.sync()
            live.rows.go_to_row(live.rows.display_leaf())
        return live

    def shown_session_changed(self) -> None:
        """Another tab is on screen: the pane shows its tree, and the last tab's preview ends
        (it was of the other session's tree, drawn where the other transcript was)."""
        self._cancel_preview()
        app = self.app
        if self.pane is None:
            return
        for entry in app.workspace.sessions:
            entry.transcript.can_focus = entry.transcript is app.transcript  # F6 and clicks reach the shown one
        self.pane.use(self._live_for(self._session()))

    def session_closed(self, session: SessionPort) -> None:
        """A tab closed: its rows go with it."""
        self._lives.pop(id(session), None)

    def _cancel_preview(self) -> None:
        """No preview any more (none drawn, none waiting to be): the live transcript is shown."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        self.app.workers.cancel_group(cast("DOMNode", self.app), "tree-preview")
        self._show_live()

    async def close(self) -> None:
        if not self.is_open:
            return
        self.end_preview()
        # A preview being drawn has nowhere to go.
        self.app.workers.cancel_group(cast("DOMNode", self.app), "tree-preview")
        pane, preview, self.pane, self.preview = self.pane, self.preview, None, None
        had_focus = pane.has_focus_within
        await pane.remove()
        if preview is not None:
            await preview.remove()
        self.app.transcript.can_focus = False
        if had_focus or self.app.focused is None:
            self.app.set_focus(self.app.editor)

    def layout(self) -> None:
        """Dock or float the pane for the terminal's width, at the remembered width."""
        if self.pane is None or self.app.size.width == self._laid_out_for:
            return
        columns = self._laid_out_for = self.app.size.width
        overlay = columns < OVERLAY_BELOW
        room = self._room(columns)
        self.pane.set_class(overlay, "-overlay")
        self.pane.styles.width = max(min(self.width, room), min(MIN_WIDTH, columns))

    @staticmethod
    def _room(columns: int) -> int:
        """The widest the pane may be: beside the transcript, or over it at most half the
        terminal (at 80 columns a two-thirds overlay hid most of the conversation; deep rows
        pan instead of needing the width)."""
        return columns // 2 if columns < OVERLAY_BELOW else columns - MIN_TRANSCRIPT

    def resize(self, delta: int) -> None:
        """Widen or narrow the pane and remember the width in the settings (``treePaneWidth``)."""
        room = self._room(self.app.size.width)
        self.width = max(MIN_WIDTH, min(self.width + delta, max(room, MIN_WIDTH), 200))
        self._laid_out_for = -1
        self.layout()
        try:
            self._session().settings.set("treePaneWidth", self.width)
        except Exception as exc:  # noqa: BLE001 - a read-only settings file: the width holds for this run
            self.app.notify(f"Could not save the tree pane width: {exc}", severity="warning", timeout=5)

    # ------------------------------------------------------------------ focus

    def focus_next(self) -> None:
        """Editor → tree pane → transcript → editor (the pane only while open)."""
        app = self.app
        if not self.is_open:
            app.set_focus(app.editor)
            return
        transcript = self._shown_transcript()
        order = [app.editor, self.pane.list, transcript]
        focused = app.focused
        current = next((i for i, w in enumerate(order) if focused is w), -1)
        # set_focus, not focus(): focus() lands after the queued keys, so a second F6 in the same
        # burst would start again from the old place.
        app.set_focus(order[(current + 1) % len(order)])

    def leave_pane(self) -> None:
        """Esc (no search left to clear) or a chosen row: the editor takes the keys again."""
        self.app.set_focus(self.app.editor)

    def _shown_transcript(self) -> Any:
        if self.previewing:
            from ..transcript.transcript import Transcript

            view = self.preview.query_one(Transcript)
            view.can_focus = True
            return view
        return self.app.transcript

    def takes_key(self, key: str, character: str | None, printable: bool) -> bool:
        """Give a key to the focused pane before the app's bindings; typing in a focused
        transcript goes to the editor (nothing typed is lost)."""
        if self.pane is None:
            return False
        # Textual calls Alt+T printable (its character is "t"); only unmodified keys are typing.
        printable = printable and not any(mod in key for mod in ("alt+", "ctrl+", "super+"))
        focused = self.app.focused
        if self.has_focus:
            if self.pane.claims(key, printable):
                self.pane.take_key(key, character if printable else None)
                return True
            return False
        if printable and character and focused is self._shown_transcript():
            self.app.set_focus(self.app.editor)
            self.app.editor.insert(character)
            return True
        return False

    # ------------------------------------------------------------------ the session moved on

    def sync(self) -> None:
        """After a batch of kernel events: new entries become rows, the leaf marker follows."""
        if self.pane is not None:
            self.pane.refresh_rows()

    def session_changed(self, reason: str) -> None:
        """Navigated, forked, switched: the live conversation is the one to see."""
        if self.pane is not None:
            if reason != "navigate":  # another session, maybe in the same manager: its own rows
                self.pane.live.reset()
                self.pane.redraw()
            self.end_preview()

    # ------------------------------------------------------------------ preview

    def selection_moved(self, entry_id: str | None) -> None:
        """The cursor moved: preview that point's path once the cursor rests (the leaf is the live view)."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        tree = self.pane.live.rows
        if entry_id is None or tree.current_row == tree.leaf_row:
            self._show_live()
            return
        self._wanted_preview = entry_id
        self._preview_timer = self.app.set_timer(PREVIEW_DELAY, self._start_preview)

    def _start_preview(self) -> None:
        self._preview_timer = None
        if self._wanted_preview is not None and self.pane is not None:
            self.app.run_worker(self._show_preview(self._wanted_preview), name="tree-preview", group="tree-preview",
                                exclusive=True, exit_on_error=False)

    async def _show_preview(self, entry_id: str) -> None:
        from ..tree.branch_preview import PREVIEW_MESSAGES, BranchPreview

        app = self.app
        if self.pane is None or self._wanted_preview != entry_id:
            return
        if self.preview is None:
            self.preview = BranchPreview(app.cwd, id="tree-preview")
            self.preview.display = False
            await self._workspace().mount(self.preview, after=app.transcript)
        preview = self.preview
        messages = self._session().branch_messages(entry_id, PREVIEW_MESSAGES)
        row = self.pane.live.rows.rows[self.pane.live.rows.row_of[entry_id]]
        title = row.text if len(row.text) <= 48 else row.text[:47] + "…"
        await preview.show(entry_id, messages, title, tools_expanded=app.transcript.tools_expanded,
                           thinking_collapsed=app.transcript.thinking_collapsed)
        if self._wanted_preview == entry_id and self.preview is preview:
            refocus = app.focused is app.transcript
            app.transcript.display = False
            preview.display = True
            if refocus:
                app.set_focus(self._shown_transcript())

    def _show_live(self) -> None:
        self._wanted_preview = None
        if self.preview is not None and self.preview.display:
            refocus = self.app.focused is not None and self.preview in self.app.focused.ancestors_with_self
            self.preview.display = False
            self.app.transcript.display = True
            if refocus:
                self.app.set_focus(self.app.transcript)

    def end_preview(self) -> None:
        """Back to the live conversation, the cursor on the current leaf."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        self._show_live()
        if self.pane is not None:
            self.pane.cursor_to_leaf()

    # ------------------------------------------------------------------ acting on the selected row

    def _idle_or_say(self, what: str) -> bool:
        if self._session().is_streaming:
            self.app.notify(f"Wait for the agent to finish (or press Esc) before {what}", timeout=4)
            return False
        return True

    def choose(self, entry_id: str) -> None:
        """Enter: continue from this entry (with /tree's "Summarize branch?" question; a run in
        progress is stopped first, as Pi's /tree does)."""
        from .nav_flows import navigate_with_choice

        # Once the move is decided, the editor takes the keys: the next thing a user does after
        # "continue here" is type, and those keys must not land in the pane's search.
        navigate_with_choice(self.app, self._session(), entry_id, on_decided=self.leave_pane)  # stops a run first, as /tree does

    def fork(self, entry_id: str) -> None:
        """A new session with the history before this user message (its text comes to the editor)."""
        entry = self.pane.live.rows.rows[self.pane.live.rows.row_of[entry_id]]
        if entry.kind != "user":
            self.app.notify("Fork starts before a user message: select a user row", timeout=4)
            return
        if self._idle_or_say("forking"):
            from .nav_flows import fork_at

            self.app.run_worker(fork_at(self.app, self._session(), entry_id), name="fork", group="kernel",
                                exit_on_error=False)

    def clone(self, entry_id: str) -> None:
        """A new session with the path up to and including this entry."""
        if self._idle_or_say("cloning"):
            self.app.run_worker(self._clone(entry_id), name="clone", group="kernel", exit_on_error=False)

    async def _clone(self, entry_id: str) -> None:
        session = self._session()
        result = await session.clone(entry_id)
        if not result.cancelled:
            self.app.show_status("Cloned to new session")

    def edit_label(self, entry_id: str) -> None:
        from ..dialogs.text_prompt import TextPrompt

        current = self.pane.live.rows.labels.get(entry_id)

        def done(value: str | None) -> None:
            if value is None or self.pane is None:
                return
            try:
                self._session().set_label(entry_id, value.strip() or None)
            except Exception as exc:  # noqa: BLE001 - a read-only or locked session: say so, keep the pane
                self.app.notify(f"Could not set the label: {exc}", severity="error", timeout=6)
                return
            self.pane.refresh_rows()  # the label entry is in the session now

        self.app.push_screen(TextPrompt(f"Label for {entry_id}", current.text if current else "",
                                        hint="enter to save (empty clears) · esc to cancel"), done)
