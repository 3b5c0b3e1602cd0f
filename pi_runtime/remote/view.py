"""``SessionView``: a viewer's copy of a served session, from a snapshot and the records after it.

The session tree is a replica of the server's (``SessionManager.replica``): a snapshot carries its
entries, ``session_entries`` records carry what is appended (or the whole tree of a new file),
so the transcript is the active path's context exactly as the kernel builds it, and the tree,
labels and usage are read locally. ``get_state`` data (``state``) comes with the snapshot and is
refreshed by ``session_state`` records and by the events that change one of its fields. The
message being streamed is rebuilt from its deltas (``EventDecoder``). Each record is applied once:
one whose cursor was already applied is skipped (a replay that overlaps).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..frontend.events import (
    AgentSettledEvent,
    AgentStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    ModelChangedEvent,
    QueueUpdateEvent,
    SessionChangedEvent,
    SessionInfoChangedEvent,
    ThinkingLevelChangedEvent,
)
from ..frontend.wire import EventDecoder

if TYPE_CHECKING:
    from ..ai.types import AssistantMessage
    from ..frontend.events import SessionEvent
    from ..kernel.message_queue import QueuedMessage
    from ..session.manager import SessionManager

DIALOGS = frozenset({"select", "confirm", "input", "editor", "custom"})
"""Requests that wait for a viewer (``custom``: an extension's component, until it is done)."""


class SessionView:
    """A served session's state as one viewer holds it (see the module docstring).

    Args:
        snapshot: The ``snapshot`` of an ``attach`` or ``get_snapshot`` answer.
    """

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.cursor = 0
        self.closed = False
        self.closed_reason = ""
        """Why the server closed the session (its ``session_closed`` record)."""
        self.notices: list[str] = []
        """The session's one-line reports not taken yet (``session_notice`` records)."""
        self.reset(snapshot)

    def reset(self, snapshot: dict[str, Any]) -> None:
        """Start again from a snapshot (attach, or a resync after a reconnect from too far back)."""
        from ..ai.types import AssistantMessage
        from ..kernel.message_queue import QueuedMessage
        from ..session.manager import SessionManager

        self.cursor = int(snapshot["cursor"])
        self.cwd: str = snapshot.get("cwd") or ""
        self.state: dict[str, Any] = dict(snapshot.get("state") or {})
        self.status: str = snapshot.get("status") or "idle"
        self.manager: SessionManager = SessionManager.replica(snapshot["header"], list(snapshot["entries"]),
                                                              snapshot.get("leafId"))
        self.queue: list[QueuedMessage] = [QueuedMessage.from_wire(q) for q in snapshot.get("queue") or []]
        streaming = snapshot.get("streaming")
        if streaming:
            message = AssistantMessage.model_validate(streaming["message"])
            tool_json = {int(k): v for k, v in (streaming.get("toolJson") or {}).items()}
            self.decoder = EventDecoder(message, tool_json)
        else:
            self.decoder = EventDecoder()
        ui = snapshot.get("ui") or {}
        self.dialogs: dict[str, dict[str, Any]] = {r["id"]: r for r in ui.get("pending") or []}
        """Open extension dialogs: id → Pi's ``extension_ui_request`` record."""
        self.statuses: dict[str, str] = dict(ui.get("statuses") or {})
        self.widgets: dict[str, dict[str, Any]] = dict(ui.get("widgets") or {})
        self.title: str | None = ui.get("title")
        self.scoped_models: list[dict[str, Any]] = list(snapshot.get("scopedModels") or [])
        """The models Ctrl+P cycles through (``provider``, ``modelId``, ``thinkingLevel``); empty: all."""
        self._messages: list[Any] | None = None
        self._messages_leaf: str | None = None

    # ------------------------------------------------------------------ applying records

    def apply(self, record: dict[str, Any]) -> SessionEvent | None:
        """Apply one record of the session's stream; returns its typed event (None for pi's own
        records: entries, state, extension UI, closing). A record already applied returns None.

        Raises:
            ValueError: A malformed event (the view stays as it was before it).
        """
        cursor = record.get("cursor")
        if isinstance(cursor, int):
            if cursor <= self.cursor:
                return None
            self.cursor = cursor
        kind = record.get("type")
        if kind == "session_entries":
            self._entries(record)
        elif kind == "session_state":
            self.state = dict(record.get("state") or {})
        elif kind == "extension_ui_request":
            self._ui_request(record)
        elif kind == "extension_ui_resolved":
            self.dialogs.pop(str(record.get("id")), None)
        elif kind == "extension_ui_render":
            pass  # a served component's lines: the UI binding draws them (remote_ui.py)
        elif kind == "session_closed":
            self.closed = True
            self.closed_reason = str(record.get("reason") or "")
        elif kind == "scoped_models":
            self.scoped_models = list(record.get("models") or [])
        elif kind == "session_notice":
            self.notices.append(str(record.get("text") or ""))
        else:
            event = self.decoder.decode(record)
            self._follow(event, record)
            return event
        return None

    def _entries(self, record: dict[str, Any]) -> None:
        from ..session.manager import SessionManager

        leaf = record.get("leafId")
        if record.get("reset"):
            self.manager = SessionManager.replica(record["header"], list(record["entries"]), leaf)
            self._messages = None
            return
        new = list(record.get("entries") or [])
        previous_leaf = self.manager.leaf_id
        self.manager.replicate(new, leaf)
        # The common case, an answer appended to the path: the transcript grows by its messages;
        # anything else (a branch, a compaction, an edit of the context) rebuilds it on next read.
        if self._messages is not None and self._messages_leaf == previous_leaf and _is_chain(new, previous_leaf, leaf):
            from ..ai.types import parse_message

            self._messages.extend(parse_message(entry["message"]) for entry in new)
            self._messages_leaf = leaf
        else:
            self._messages = None

    def _ui_request(self, record: dict[str, Any]) -> None:
        method = record.get("method")
        if method in DIALOGS:
            self.dialogs[str(record.get("id"))] = record
        elif method == "setStatus":
            if record.get("statusText") is None:
                self.statuses.pop(str(record.get("statusKey")), None)
            else:
                self.statuses[str(record.get("statusKey"))] = str(record["statusText"])
        elif method == "setWidget":
            if record.get("widgetComponent") is not None:
                self.widgets[str(record.get("widgetKey"))] = {"component": str(record["widgetComponent"]),
                                                              "placement": record.get("widgetPlacement")}
            elif record.get("widgetLines") is None:
                self.widgets.pop(str(record.get("widgetKey")), None)
            else:
                self.widgets[str(record.get("widgetKey"))] = {"lines": list(record["widgetLines"]),
                                                              "placement": record.get("widgetPlacement")}
        elif method == "setTitle":
            self.title = record.get("title")

    def _follow(self, event: SessionEvent, record: dict[str, Any]) -> None:
        """Keep ``state`` current with the events that change one of its fields."""
        state = self.state
        match event:
            case QueueUpdateEvent():
                self.queue = list(event.items)
                state["pendingMessageCount"] = len(event.items)
            case ModelChangedEvent():
                state["model"] = record["model"]
            case ThinkingLevelChangedEvent():
                state["thinkingLevel"] = event.level
            case SessionInfoChangedEvent():
                if event.name:
                    state["sessionName"] = event.name
                else:
                    state.pop("sessionName", None)
            case AgentStartEvent():
                state["isStreaming"] = True
                self.status = "working"
            case AgentSettledEvent():
                state["isStreaming"] = False
                self.status = "waiting" if self.dialogs else "idle"
            case CompactionStartEvent():
                state["isCompacting"] = True
            case CompactionEndEvent():
                state["isCompacting"] = False
            case SessionChangedEvent():
                state["sessionFile"] = event.session_file

    # ------------------------------------------------------------------ reading

    @property
    def streaming(self) -> AssistantMessage | None:
        return self.decoder.streaming

    @property
    def messages(self) -> list[Any]:
        """The transcript: the context of the replica's active path (dicts validated on first read)."""
        if self._messages is None:
            from ..agent.transcript import Transcript
            from ..session.entries import parse_messages

            stored = self.manager.build_session_context().message_dicts

            def materialize(dicts: list[dict[str, Any]], known: dict[int, Any]) -> list[Any]:
                messages = parse_messages(dicts)
                for index, message in known.items():
                    messages[index] = message  # keep the objects a window already read
                return messages

            # A Transcript is the list it stands for (see agent/transcript.py); the last screenful
            # of a long one is read without validating the rest.
            self._messages = cast("list[Any]", Transcript(stored, materialize, lambda i: parse_messages([stored[i]])[0]))
            self._messages_leaf = self.manager.leaf_id
        return self._messages


def _is_chain(entries: list[dict[str, Any]], parent: str | None, leaf: str | None) -> bool:
    """Whether ``entries`` are message entries each the child of the one before, from ``parent``
    down to ``leaf``."""
    if not entries or entries[-1].get("id") != leaf:
        return False
    for entry in entries:
        if entry.get("type") != "message" or entry.get("parentId") != parent:
            return False
        parent = entry.get("id")
    return True
