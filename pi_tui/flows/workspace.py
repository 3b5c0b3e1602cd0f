"""``Workspace``: the sessions open in one app, which one is shown, and where events go.

Each open session has its own bridge and its own transcript widget. The transcripts are all
mounted, one displayed: switching hides one and shows the other, so the other's blocks are
not rebuilt (the bench, ``bench/tui_switch_sessions.py``, measures it), and a background
transcript keeps its own bounded window (``transcript_window.py``) while its events arrive.
The app's ``session``, ``transcript`` and ``bridge`` are read from ``active`` (nothing re-points
them): the parts that follow the shown tab (input, completion, the chrome) serve the shown one and
need not know there are others; a command or dialog takes the session it acts on when it starts. Events of a background session go to its transcript and its
tab only, never to the header, footer or queue, which mirror the shown session.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from pi_runtime.frontend import events as ev

from ..bridge import EVENT_BATCH_SECONDS, Bridge
from ..sessions.full_collections import FullCollections
from ..sessions.open_session import Draft, OpenSession
from ..transcript.transcript import Transcript
from .extension_host import show_extension_ui
from .shown_title import show_window_title

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .host import PiHost


class Workspace:
    """The open sessions of one app; the first is the one the app started with."""

    def __init__(self, app: PiHost) -> None:
        self._app = app
        self.sessions: list[OpenSession] = []
        """In tab order."""
        self.active: OpenSession | None = None
        """The session on screen."""
        self._next_number = 1
        self._collections = FullCollections(app)
        """Full garbage collections wait for the runs to end (``full_collections.py``)."""

    # ------------------------------------------------------------------ lookup

    def owner(self, bridge: Bridge) -> OpenSession | None:
        """The open session whose events ``bridge`` carries (None once it was closed)."""
        for entry in self.sessions:
            if entry.bridge is bridge:
                return entry
        return None

    def entry_for(self, session: object) -> OpenSession | None:
        """The open session (tab) showing ``session``, if any."""
        for entry in self.sessions:
            if entry.session is session:
                return entry
        return None

    @property
    def busy(self) -> list[OpenSession]:
        """Sessions of this process with a run (or compaction) in progress, or a question waiting
        (a served session's run goes on in ``pi serve`` when the app quits: it is never busy here)."""
        from ..sessions.served import is_served

        return [e for e in self.sessions
                if (e.working or e.questions or e.session.is_streaming) and not is_served(e.session)]

    # ------------------------------------------------------------------ opening

    def adopt_first(self, session: SessionPort, bridge: Bridge, transcript: Transcript) -> OpenSession:
        """The session the app started with (or was given), already attached and shown."""
        entry = self._entry(session, bridge, transcript)
        entry.working = session.is_streaming
        entry.shown.set()
        self.sessions.append(entry)
        self.active = entry
        return entry

    async def open(self, session: SessionPort, *, editor_text: str = "") -> OpenSession:
        """Add ``session`` in a new tab and show it; its extensions start (in a worker)."""
        app = self._app
        number = self._next_number
        shown = app.transcript
        transcript = Transcript(session, cwd=session.cwd, id=f"transcript-{number}")
        transcript.display = False
        # The view settings the user chose apply to every session's transcript.
        transcript.tools_expanded = shown.tools_expanded
        transcript.thinking_collapsed = shown.thinking_collapsed
        transcript.scrollbar_mode = shown.scrollbar_mode
        transcript.set_class(shown.has_class("-pad-0"), "-pad-0")
        last = self.sessions[-1].transcript if self.sessions else shown
        await app.mount(transcript, after=last)
        bridge = Bridge(session, app)  # type: ignore[arg-type]  # the app is the message pump
        transcript.messages_when = bridge.messages_when
        entry = self._entry(session, bridge, transcript)
        lines = editor_text.split("\n")
        entry.draft = Draft(editor_text, (len(lines) - 1, len(lines[-1])))  # the cursor at the end
        self.sessions.append(entry)
        await transcript.load_messages(session.messages)
        bridge.start()
        await self.show(entry)
        app.run_worker(self._start_extensions(entry), name="start-session", group="session", exit_on_error=False)
        return entry

    def _entry(self, session: SessionPort, bridge: Bridge, transcript: Transcript) -> OpenSession:
        entry = OpenSession(self._next_number, session, bridge, transcript)
        self._next_number += 1
        return entry

    async def _start_extensions(self, entry: OpenSession) -> None:
        from .tab_extensions import start_tab_extensions

        await start_tab_extensions(self._app, self, entry)

    # ------------------------------------------------------------------ switching

    async def show(self, entry: OpenSession) -> None:
        """Put ``entry`` on screen: its transcript, its draft, its chrome; the rest stay as they are."""
        app = self._app
        old = self.active
        if old is entry:
            return
        editor = app.editor
        if old is not None:
            unsaved = app.queue_view.leave_session()  # a queued message being edited is saved first
            if unsaved is not None:  # it left the queue meanwhile: the edit is kept at the top of the draft
                editor.load_text("\n\n".join([unsaved] + ([editor.text] if editor.text.strip() else [])))
            old.draft = Draft(editor.text, editor.cursor_location, dict(getattr(editor, "pastes", {})),
                              copy.copy(getattr(editor, "images", {})))
            old.shown.clear()
            old.transcript.display = False
        self.active = entry
        entry.transcript.display = True
        app.jump_hint.place(entry.transcript)  # this tab's own scroll position decides
        # The old tab's extension statuses, widgets and editor go (kept), this one's come back;
        # the editor may change here, so the draft goes into ``app.editor`` as it is after this.
        show_extension_ui(app, entry.extension_ui)
        editor = app.editor
        app.chrome.show(entry.session)  # the header, footer and queue pane show this session now
        show_window_title(app)
        app.tree_pane.shown_session_changed()
        busy = entry.working or entry.session.is_streaming
        app.footer_bar.set_working(busy, since=entry.working_since if busy else None)
        draft = entry.draft
        editor.load_text(draft.text)
        if hasattr(editor, "pastes"):  # pi's editor (an extension's may have neither)
            editor.pastes = dict(draft.pastes)
            editor.images = copy.copy(draft.images)
        editor.move_cursor(draft.cursor)
        if app.menu.is_open:
            app.menu.hide()
        entry.unseen = None
        entry.shown.set()
        app.refresh_session_tabs()

    async def step(self, direction: int) -> None:
        """Show the next (1) or previous (-1) tab, wrapping around."""
        if len(self.sessions) < 2 or self.active is None:
            return
        index = self.sessions.index(self.active)
        await self.show(self.sessions[(index + direction) % len(self.sessions)])

    # ------------------------------------------------------------------ events

    async def route(self, bridge: Bridge) -> OpenSession | None:
        """Apply a background session's waiting events; returns the shown session when ``bridge`` is
        its (the app applies those itself), None otherwise."""
        entry = self.owner(bridge)
        if entry is None:
            for _ in bridge.drain():  # a closed session's last events: nobody shows them
                pass
            return None
        if entry is self.active:
            return entry
        for event in bridge.drain(budget=EVENT_BATCH_SECONDS):
            await entry.transcript.handle(event)
            self._follow(entry, event, background=True)
        return None

    def note_shown(self, event: ev.SessionEvent) -> None:
        """The shown session's event (the app applied it to the chrome): its tab follows it."""
        if self.active is not None:
            self._follow(self.active, event, background=False)

    def _follow(self, entry: OpenSession, event: ev.SessionEvent, *, background: bool) -> None:
        before = (entry.state, entry.session.session_name)
        outcome = entry.note(event)
        match event:
            case ev.AgentStartEvent():
                entry.transcript.set_streaming(True)
                self._collections.run_started(entry)
            case ev.AgentSettledEvent():
                entry.transcript.set_streaming(False)
                self._collections.run_settled(entry)
                ui = entry.extension_ui
                if background and ui is not None and ui.footer_data is not None:
                    ui.footer_data.check_branch()  # the shown one's is checked by the app
            case _:
                pass
        if background and outcome is not None:
            entry.unseen = outcome
            what = "failed" if outcome == "failed" else "finished"
            self._app.notify(f"{entry.name}: {what}", severity="error" if outcome == "failed" else "information",
                             timeout=4)
        if (outcome is not None or before != (entry.state, entry.session.session_name)
                or isinstance(event, (ev.MessageEndEvent, ev.ModelChangedEvent))):
            self._app.refresh_session_tabs()  # state, name, cost or model changed (not per delta)

    def asked(self, entry: OpenSession, title: str) -> None:
        """An extension of ``entry`` asks something while the tab is in the background."""
        entry.questions += 1
        entry.unseen = "asks"
        self._app.notify(f"{entry.name} asks: {title}" if title else f"{entry.name} is waiting for you",
                         severity="warning", timeout=6)
        self._app.refresh_session_tabs()

    def answered(self, entry: OpenSession) -> None:
        entry.questions = max(0, entry.questions - 1)
        self._app.refresh_session_tabs()

    # ------------------------------------------------------------------ closing

    async def replace(self, entry: OpenSession, session: SessionPort) -> OpenSession:
        """Show ``session`` in ``entry``'s tab instead of its session, which ends (``session_shutdown``,
        reason ``resume``): ``/resume`` of a session that runs in another folder, which gets a
        session of its own rather than a switched file. The tab keeps its place and number."""
        fresh = await self.open(session)
        self.sessions.remove(fresh)
        self.sessions.insert(self.sessions.index(entry), fresh)
        fresh.number = entry.number
        await self.close(entry, reason="resume")
        return fresh

    async def close(self, entry: OpenSession, *, reason: str = "quit") -> None:
        """Close ``entry``'s tab: its session ends (``session_shutdown`` with ``reason``), its
        transcript goes.

        The last open session is never closed here (quitting does that).
        """
        if len(self.sessions) < 2:
            return
        if entry is self.active:
            index = self.sessions.index(entry)
            await self.show(self.sessions[index + 1] if index + 1 < len(self.sessions) else self.sessions[index - 1])
        self.sessions.remove(entry)
        self._collections.run_settled(entry)  # a run that was cut short settles nothing more
        if entry.extension_ui is not None:
            entry.extension_ui.discard()  # its widgets and editor were kept hidden for its tab
        self._app.tree_pane.session_closed(entry.session)
        entry.bridge.stop()
        await entry.transcript.remove()
        self._app.refresh_session_tabs()
        await dispose_session(entry.session, reason)

    async def shut_down(self) -> None:
        """End every open session once (the app is quitting)."""
        import asyncio

        for entry in self.sessions:
            entry.bridge.stop()
        await asyncio.gather(*(dispose_session(entry.session) for entry in self.sessions))


DISPOSE_TIMEOUT_S = 3.0
"""How long ending a session waits for it (extensions' ``session_shutdown``); a hung handler must not keep pi open."""


async def dispose_session(session: SessionPort, reason: str = "quit") -> None:
    import asyncio

    try:
        await asyncio.wait_for(session.dispose(reason), DISPOSE_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - closing goes on whatever the session says
        pass
