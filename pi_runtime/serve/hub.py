"""``SessionHub``: one live session's stream of records, numbered, kept and fanned out to its viewers.

Every record the session sends gets the next ``cursor`` and is encoded once; the same bytes go to
every attached viewer (a non-blocking write each, so an event reaches five viewers in microseconds
of each other and a viewer that stops reading never holds up the run) and into a bounded replay
buffer, from which a viewer that reconnects with its cursor gets what it missed.

The hub subscribes to the kernel's events and adds what the kernel does not announce but a viewer
in another process needs to keep its copy of the session exact: ``session_entries`` (entries
appended to the session tree, or the whole tree when the session file changed) before the event
that follows them, and ``session_state`` (Pi's ``get_state`` data) when it changed after a command
or a settled run. A snapshot (``snapshot``) is the state a viewer starts from: it matches the
records numbered up to its cursor, so applying the later records to it is exact.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from ..frontend.wire import event_to_wire
from ..modes.json_mode import IN_PROCESS_ONLY
from .fanout_ui import FanoutUI
from .protocol import REPLAY_BYTES, REPLAY_RECORDS, encode_record, serve_only

SessionStatus = str
"""``working``, ``waiting`` (a question or permission waits for an answer), ``idle`` or ``failed``."""


class Viewer(Protocol):
    """An attached viewer: where a session's records go."""

    rpc: bool
    """Wants Pi's plain RPC records (no ``session``/``cursor``, no pi-only records)."""

    def deliver(self, data: bytes) -> None:
        """Send one encoded record (must not block)."""


class SessionHub:
    """The stream of one live session (see the module docstring).

    Args:
        handle: The session's id on this server (the ``session`` field of its records).
        session: The ``AgentSession``.
        keep_records: Records kept for replay.
        keep_bytes: Bytes of records kept for replay.
    """

    def __init__(self, handle: str, session: Any, *, keep_records: int = REPLAY_RECORDS,
                 keep_bytes: int = REPLAY_BYTES) -> None:
        from ..frontend.wire import EventDecoder

        self.handle = handle
        self.session = session
        self.cursor = 0
        self.viewers: list[Viewer] = []
        self._kept: deque[tuple[int, bytes]] = deque()
        self._kept_bytes = 0
        self._keep_records = keep_records
        self._keep_bytes = keep_bytes
        self._stream = EventDecoder()
        """The message being streamed as viewers have been told it (a snapshot's ``streaming``)."""
        manager = session.session_manager
        self._told_manager = manager
        self._told_entries = len(manager.raw_entries())
        self._told_leaf = manager.leaf_id
        self._told_state: dict[str, Any] = session.get_state()
        self.ui = FanoutUI(self.publish)
        self.last_error: str | None = None
        """The error the last run ended with (None after a run that did not fail)."""
        self._unsubscribe: Callable[[], None] = session.subscribe(self._on_event)

    # ------------------------------------------------------------------ the stream

    def publish(self, record: dict[str, Any], pi_record: dict[str, Any] | None = None) -> None:
        """Number ``record``, keep it and send it to every viewer; ``rpc`` viewers get ``pi_record``
        (Pi's shape) instead, or nothing when it is None and the record is pi's own."""
        self.cursor += 1
        record["session"] = self.handle
        record["cursor"] = self.cursor
        data = encode_record(record)
        self._keep(data)
        plain: bytes | None = None
        if pi_record is None and not serve_only(record):
            pi_record = {k: v for k, v in record.items() if k not in ("session", "cursor")}
        for viewer in list(self.viewers):
            if not viewer.rpc:
                viewer.deliver(data)
            elif pi_record is not None:
                if plain is None:
                    plain = encode_record(pi_record)
                viewer.deliver(plain)

    def _keep(self, data: bytes) -> None:
        self._kept.append((self.cursor, data))
        self._kept_bytes += len(data)
        while self._kept and (len(self._kept) > self._keep_records or self._kept_bytes > self._keep_bytes):
            self._kept_bytes -= len(self._kept.popleft()[1])

    def _on_event(self, event: Any) -> None:
        self.check_entries()
        if event.type in _NOTICE_POINTS:
            self.check_notices()
        wire = event_to_wire(event)
        kind = event.type
        if kind in _STREAM_EVENTS:
            self._stream.decode(wire)  # the hub's copy of the streamed message as viewers were told it
        if kind in IN_PROCESS_ONLY:
            self.publish(wire)
        else:
            self.publish(wire, event.to_wire() if getattr(event, "wire_extras", None) else None)
        if kind == "message_end" and getattr(event.message, "role", None) == "assistant":
            failed = event.message.stop_reason == "error"
            self.last_error = event.message.error_message if failed else None
        if kind in ("agent_settled", "session_changed"):
            self.check_state()

    # ------------------------------------------------------------------ what the kernel does not announce

    def check_entries(self) -> None:
        """Send the session tree's entries appended since the last check (or the whole tree of a
        new session file), with where the leaf is."""
        manager = self.session.session_manager
        entries = manager.raw_entries()
        if manager is not self._told_manager:
            self._told_manager = manager
            self._told_entries, self._told_leaf = len(entries), manager.leaf_id
            self.publish({"type": "session_entries", "reset": True, "header": manager.header,
                          "entries": entries, "leafId": manager.leaf_id})
        elif len(entries) != self._told_entries or manager.leaf_id != self._told_leaf:
            new = entries[self._told_entries:]
            self._told_entries, self._told_leaf = len(entries), manager.leaf_id
            self.publish({"type": "session_entries", "entries": new, "leafId": manager.leaf_id})

    def check_notices(self) -> None:
        """Send the session's one-line reports (a save that failed, lines skipped in a file switched
        to) to the viewers, before the event that follows them: a front end takes its session's
        notices when an answer ends or the session changes."""
        for text in self.session.take_session_notices():
            self.publish({"type": "session_notice", "text": str(text)})

    def check_state(self) -> None:
        """Send Pi's ``get_state`` data when it changed since viewers last got it."""
        state = self.session.get_state()
        if state != self._told_state:
            self._told_state = state
            self.publish({"type": "session_state", "state": state})

    def checkpoint(self) -> None:
        """After a command: tell viewers what it changed that no event announced."""
        self.check_entries()
        self.check_state()

    # ------------------------------------------------------------------ viewers

    def attach(self, viewer: Viewer, cursor: int | None) -> tuple[dict[str, Any], list[bytes]]:
        """Add ``viewer``. Returns the ``attach`` response's data and the records to send after it.

        With a ``cursor`` still in the replay buffer the viewer gets the records after it; otherwise
        (no cursor, or one too old or from another run of the server) a snapshot to start from.
        Synchronous: nothing is published between the answer and the viewer's first live record.
        """
        first = self._kept[0][0] if self._kept else self.cursor + 1
        data: dict[str, Any]
        if cursor is not None and first - 1 <= cursor <= self.cursor:
            replay = [record for number, record in self._kept if number > cursor]
            data = {"session": self.handle, "cursor": self.cursor, "replayed": len(replay)}
        else:
            replay = []
            data = {"session": self.handle, "cursor": self.cursor}
            if not viewer.rpc:
                data["snapshot"] = self.snapshot()
                data["cursor"] = self.cursor  # the snapshot may have sent what was pending
                if cursor is not None:
                    data["resync"] = True
        self.viewers.append(viewer)
        return data, replay

    def detach(self, viewer: Viewer) -> None:
        if viewer in self.viewers:
            self.viewers.remove(viewer)

    def snapshot(self) -> dict[str, Any]:
        """The session's state as of the current cursor (see the module docstring)."""
        from .commands import scoped_models_wire

        self.checkpoint()
        session = self.session
        manager = session.session_manager
        streaming = self._stream.streaming
        return {
            "cursor": self.cursor,
            "cwd": session.cwd,
            "projectTrusted": bool(getattr(session.settings, "project_trusted", False)),
            "state": self._told_state,
            "status": self.status(),
            "header": manager.header,
            "entries": manager.raw_entries(),
            "leafId": manager.leaf_id,
            "queue": [item.to_wire() for item in session.queued_messages()],
            "streaming": None if streaming is None else {
                "message": streaming.to_wire(), "toolJson": {str(k): v for k, v in self._stream.open_tool_json().items()},
            },
            "ui": self.ui.snapshot(),
            "scopedModels": scoped_models_wire(session),
        }

    # ------------------------------------------------------------------ for listings

    def status(self) -> SessionStatus:
        if self.ui.open:
            return "waiting"
        if self.session.is_streaming or self.session.is_compacting:
            return "working"
        return "failed" if self.last_error else "idle"

    def close(self) -> None:
        """Stop listening to the session (its viewers were told ``session_closed``)."""
        self._unsubscribe()
        self.viewers.clear()


_STREAM_EVENTS = frozenset({"message_start", "message_update", "message_end"})
_NOTICE_POINTS = frozenset({"message_end", "agent_settled", "session_changed"})
"""Where a front end looks for a session's notices (the app does at these events)."""
