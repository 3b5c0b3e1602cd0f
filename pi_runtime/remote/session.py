"""``RemoteSession``: a session ``pi serve`` runs, held through ``SessionPort`` like a local one.

State is read from the viewer's copy (``SessionView``): the transcript, the tree (a replica of
the server's entries), the queue, model and thinking level, usage. Events arrive typed, in order,
to every subscriber (awaited one after the other, in a task of their own, so a subscriber may
itself call the session). Calls go to the server and are awaited; a refusal raises the kernel's
own error (``PromptError``, ``QueueEditError``, ``SessionBusyError``, ``CompactionError``).

Where ``SessionPort`` has a synchronous method that changes the session (queue edits, modes,
labels), the command is sent without waiting and the answer is the one the view predicts; the
server's next event corrects it if it refused. :meth:`call` is the awaited way to send any command.
Closing (``dispose``) detaches this viewer: the run goes on on the server.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..frontend.events import AgentSettledEvent, BashExecutionUpdateEvent, SessionChangedEvent
from . import queue_prediction
from .delivery import EventDelivery
from .local_folder import LocalFolder
from .remote_ui import RemoteUIBinding
from .session_commands import SessionCommands
from .stream_shadow import StreamShadow
from .view import SessionView

if TYPE_CHECKING:
    from ..agent.agent import QueueKind, StreamingBehavior
    from ..ai.models import ModelRegistry
    from ..ai.types import ImageContent, Model
    from ..ai.virtual import RoutedModel
    from ..extensions.host import ExtensionHost
    from ..frontend.events import SessionEvent
    from ..kernel.input_router import PromptDisposition
    from ..kernel.message_queue import QueuedMessage
    from ..kernel.results import (
        ContextUsage,
        SessionStats,
        UsageTotals,
    )
    from ..resources.port import ResourceLoaderPort
    from ..session.manager import SessionManager
    from ..settings import SettingsManager
    from .client import ServeClient

log = logging.getLogger("pi.remote")


class RemoteSession(SessionCommands):
    """A served session (see the module docstring). Made by ``ServeClient.attach``."""

    def __init__(self, client: ServeClient, attach_data: dict[str, Any]) -> None:
        from ..kernel.usage_ledger import UsageLedger

        self._client = client
        self.handle: str = attach_data["session"]
        """The session's id on the server."""
        snapshot = attach_data["snapshot"]
        self._view = SessionView(snapshot)
        self.cwd: str = self._view.cwd or os.getcwd()
        self._folder = LocalFolder(self.cwd, bool(snapshot.get("projectTrusted", False)))
        self._ledger = UsageLedger(lambda: self._view.manager)
        self._delivery = EventDelivery()
        self._shadow = StreamShadow(self._view.streaming)
        self._delivery.subscribe(self._shadow)  # first: it must see each event before any other subscriber
        self._started_at: int | None = None
        """The count of settled runs when a prompt of ours started one whose ``agent_settled`` has not come yet."""
        self._bash_deltas: dict[str, Callable[[str], None]] = {}
        self._held: list[dict[str, Any]] | None = None
        self._commands: list[dict[str, Any]] = []
        self._shortcuts: list[str] = []
        self._notices: list[str] = []
        """Records that came while a snapshot is fetched after missed ones (None: none is)."""
        self._background: set[asyncio.Future[Any]] = set()
        self.ui = RemoteUIBinding(self)
        """Shows the session's extension dialogs in a front end's UI (``ui.bind(...)``)."""
        self.connected = True

    # ------------------------------------------------------------------ records and events

    @property
    def client(self) -> ServeClient:
        """The connection this session's records come through (another one after a reconnect)."""
        return self._client

    @property
    def cursor(self) -> int:
        """The last record applied (what a reconnect asks to continue from)."""
        return self._view.cursor

    @property
    def view(self) -> SessionView:
        """The viewer's copy of the session (open dialogs, statuses, widgets, the listing status)."""
        return self._view

    def receive(self, record: dict[str, Any]) -> None:
        """Apply one record of the session's stream (called by the client, in order).

        A record past the next cursor means some were missed (the stream has no gaps, so this is a
        server's or a connection's fault): the session starts again from a fresh snapshot, and the
        records that come meanwhile wait for it.
        """
        if self._held is not None:
            self._held.append(record)
            return
        cursor = record.get("cursor")
        if isinstance(cursor, int) and cursor > self._view.cursor + 1 and not self._view.closed:
            log.warning("pi serve's records %d to %d never came: taking a snapshot", self._view.cursor + 1, cursor - 1)
            self._held = [record]
            self._keep(asyncio.ensure_future(self._resync()))
            return
        self._apply(record)

    async def _resync(self) -> None:
        try:
            snapshot = await self.call("get_snapshot")
        except Exception as exc:  # noqa: BLE001 - the reconnect (from the cursor before the gap) takes over
            log.warning("no snapshot after missed records: %s", exc)
            self._held = None
            return
        held, self._held = self._held or [], None
        self._restart(snapshot)
        for record in held:
            self.receive(record)  # those the snapshot includes are skipped by their cursor

    def _restart(self, snapshot: dict[str, Any]) -> None:
        """Start again from ``snapshot``; subscribers are told to rebuild (``session_changed``,
        reason ``resync``) and get the answer streaming at the snapshot drawn again."""
        self._view.reset(snapshot)
        self._delivery.put(SessionChangedEvent("resync", self.session_file))
        for event in StreamShadow(self._view.streaming).catch_up():
            self._delivery.put(event)

    def _apply(self, record: dict[str, Any]) -> None:
        try:
            event = self._view.apply(record)
        except ValueError as exc:
            log.warning("pi serve sent a record this client cannot read: %s", exc)
            return
        self.ui.on_record(record)
        if event is None:
            if self._view.closed:
                self._delivery.wake()
            return
        if isinstance(event, AgentSettledEvent):
            self._started_at = None
        elif isinstance(event, BashExecutionUpdateEvent) and event.id in self._bash_deltas:
            self._bash_deltas[event.id](event.delta)
        self._delivery.put(event)

    def subscribe(self, listener: Callable[[SessionEvent], Any]) -> Callable[[], None]:
        """Receive every event of the session, typed (sync or async listener). Returns an unsubscriber.

        While an answer streams, the listener first gets it as far as the other subscribers had
        it (a ``message_start`` and a delta per block, at once), then the stream's own events.
        """
        import inspect

        unsubscribe = self._delivery.subscribe(listener)
        for event in self._shadow.catch_up():
            result = listener(event)
            if inspect.isawaitable(result):
                self._keep(asyncio.ensure_future(result))
        return unsubscribe

    def resume_from(self, attach_data: dict[str, Any]) -> None:
        """After a reconnect: replayed records follow; or, past the replay buffer, start again from the
        snapshot and tell subscribers to rebuild (``session_changed`` with reason ``resync``)."""
        self.connected = True
        snapshot = attach_data.get("snapshot")
        if snapshot is not None:
            self._restart(snapshot)

    def connection_lost(self) -> None:
        self.connected = False
        self._delivery.wake()

    async def wait_disconnected(self) -> None:
        """Until the connection is lost or the session closed on the server (at once if so already)."""
        while self.connected and not self._view.closed:
            await self._delivery.changed()

    async def reconnect(self) -> dict[str, Any]:
        """Connect again and continue from :attr:`cursor`: the records missed meanwhile are replayed
        (or a snapshot taken, see :meth:`resume_from`). Returns the ``attach`` answer's data."""
        from .client import ServeClient

        self._client = await ServeClient.connect(self._client.path)
        return await self._client.reattach(self)

    # ------------------------------------------------------------------ state

    @property
    def settings(self) -> SettingsManager:
        """The folder's settings, read here (the server reads the same files)."""
        return self._folder.settings

    @settings.setter
    def settings(self, value: SettingsManager) -> None:
        self._folder.settings = value

    @property
    def model_registry(self) -> ModelRegistry | None:
        """Models and credentials as this machine's agent dir has them (for pickers; the server
        resolves the model it is told to use in its own registry)."""
        return self._folder.model_registry

    @model_registry.setter
    def model_registry(self, value: ModelRegistry | None) -> None:
        self._folder.model_registry = value

    @property
    def resources(self) -> ResourceLoaderPort | None:
        """Skills, prompt templates and context files of the folder, loaded here."""
        return self._folder.resources

    @resources.setter
    def resources(self, value: ResourceLoaderPort | None) -> None:
        self._folder.resources = value

    @property
    def scoped_models(self) -> list[tuple[Model, str | None]]:
        """The models Ctrl+P cycles through on the server, looked up in this folder's registry."""
        registry = self.model_registry
        found = []
        for item in self._view.scoped_models:
            model = registry.find(item["provider"], item["modelId"]) if registry is not None else None
            if model is not None:
                found.append((model, item.get("thinkingLevel")))
        return found

    @scoped_models.setter
    def scoped_models(self, models: list[tuple[Model, str | None]]) -> None:
        """Sent without waiting; the copy follows at once (the server tells every viewer)."""
        wire = [{"provider": model.provider, "modelId": model.id, "thinkingLevel": level} for model, level in models]
        self._view.scoped_models = wire
        self._send_soon("set_scoped_models", models=wire)

    @property
    def model(self) -> Model:
        from ..ai.types import Model

        return Model.model_validate(self._view.state["model"])

    @property
    def thinking_level(self) -> str:
        return str(self._view.state.get("thinkingLevel", "off"))

    @property
    def routed_model(self) -> RoutedModel | None:
        """Under a virtual selection, the physical model and level of the latest successful answer,
        looked up in this folder's registry (the router itself runs in the server)."""
        from ..ai.types import is_virtual

        registry = self.model_registry
        if registry is None or not is_virtual(self._view.state.get("model") or {}):
            return None
        from ..ai.virtual import RoutedModel, latest_response

        latest = latest_response(self.messages)
        model = registry.physical(latest.provider, latest.model) if latest is not None else None
        return RoutedModel(model, latest.thinking_level) if model is not None else None

    @property
    def messages(self) -> list[Any]:
        return self._view.messages

    @property
    def streaming_message(self) -> Any:
        """The assistant message being streamed, as far as it got (None between messages)."""
        return self._view.streaming

    @property
    def is_streaming(self) -> bool:
        return bool(self._view.state.get("isStreaming")) or (
            self._started_at is not None and self._delivery.received_settles == self._started_at)

    @property
    def is_compacting(self) -> bool:
        return bool(self._view.state.get("isCompacting"))

    @property
    def session_id(self) -> str:
        return str(self._view.state.get("sessionId") or self._view.manager.session_id)

    @property
    def session_file(self) -> str | None:
        return self._view.state.get("sessionFile")

    @property
    def session_name(self) -> str | None:
        return self._view.state.get("sessionName")

    @property
    def session_manager(self) -> SessionManager:
        """A read-only replica of the server's session tree."""
        return self._view.manager

    def take_session_notices(self) -> list[str]:
        """The session's one-line reports (a save that failed in the server...) and this viewer's own,
        each given once. Those of the session's start are printed by ``pi serve`` on its stderr."""
        notices, self._notices = self._view.notices + self._notices, []
        self._view.notices = []
        return notices

    def add_notice(self, text: str) -> None:
        self._notices.append(text)

    def reload_settings(self) -> None:
        """Read this folder's settings again here (``/reload``); the server reads its own at its next use."""
        reload = getattr(self.settings, "reload", None)
        if callable(reload):
            reload()

    @property
    def extension_runner(self) -> ExtensionHost | None:
        return None  # extensions run in the server: see ``extension_commands``, ``ui``

    @property
    def steering_texts(self) -> list[str]:
        return [item.text for item in self._view.queue if item.kind == "steer"]

    @property
    def follow_up_texts(self) -> list[str]:
        return [item.text for item in self._view.queue if item.kind == "follow_up"]

    @property
    def auto_compaction_enabled(self) -> bool:
        return bool(self._view.state.get("autoCompactionEnabled", True))

    # ------------------------------------------------------------------ calls

    async def call(self, command: str, **fields: Any) -> Any:
        """Send a command of the protocol to this session and return its ``data``.

        Raises:
            The kernel's error type the server named, else ``RemoteError``; ``ConnectionLost``
            saying what to do when the server has closed this session (it stopped, or an
            extension ended it): no reconnect brings it back.
        """
        from .errors import ConnectionLost

        if self.view.closed:
            reason = f" ({self.view.closed_reason})" if self.view.closed_reason else ""
            saved = self.session_file is not None and os.path.exists(self.session_file)  # none before a prompt
            kept = "/resume its file here, or /close this tab" if saved else "/close this tab"
            raise ConnectionLost(command, f"pi serve closed this session{reason}: {kept}")
        return await self._client.request({"type": command, "session": self.handle, **fields})

    def send_ui_response(self, record: dict[str, Any]) -> None:
        """Answer an extension dialog (an ``extension_ui_response``; the first answer wins)."""
        self._client.send_nowait({**record, "session": self.handle})

    def _send_soon(self, command: str, **fields: Any) -> None:
        """A command ``SessionPort`` does not await: a refusal is logged (the next event corrects the view)."""
        async def send() -> None:
            try:
                await self.call(command, **fields)
            except Exception as exc:  # noqa: BLE001 - nobody awaits this call
                log.warning("pi serve refused %s: %s", command, exc)

        self._keep(asyncio.ensure_future(send()))

    def _keep(self, task: asyncio.Future[Any]) -> None:
        """Hold a task nobody awaits until it ends (the loop keeps only weak references)."""
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def prompt(self, text: str, images: list[ImageContent] | None = None,
                     streaming_behavior: StreamingBehavior | None = None, *, wait: bool = True) -> PromptDisposition:
        """Send what the user typed (see ``AgentSession.prompt``)."""
        fields: dict[str, Any] = {"message": text}
        if images:
            fields["images"] = [image.to_wire() for image in images]
        if streaming_behavior is not None:
            fields["streamingBehavior"] = streaming_behavior
        mark = self._delivery.received_settles
        data = await self.call("prompt", **fields)
        disposition: PromptDisposition = data["disposition"]
        if disposition == "started" and self._delivery.received_settles == mark:
            self._started_at = mark
            if wait:
                await self.wait_for_idle()
        return disposition

    async def wait_for_idle(self) -> None:
        """Until the run in progress settles and subscribers have had its ``agent_settled`` (at once
        when idle, closed or disconnected)."""
        while (self.is_streaming or self._delivery.behind) and self.connected and not self._view.closed:
            await self._delivery.changed()

    async def abort(self) -> None:
        await self.call("abort")

    def abort_bash(self) -> None:
        self._send_soon("abort_bash")

    def abort_retry(self) -> None:
        self._send_soon("abort_retry")

    async def dispose(self, reason: str = "quit") -> None:
        """Detach this viewer (the session goes on running on the server)."""
        await self._client.detach(self.handle)
        self._delivery.close()

    def clear_queue(self) -> tuple[list[str], list[str]]:
        taken = (self.steering_texts, self.follow_up_texts)
        self._send_soon("clear_queue")
        return taken

    # -- the queue as a list: sent without waiting; the answer is the view's prediction

    def queued_messages(self) -> list[QueuedMessage]:
        return list(self._view.queue)

    def edit_queued(self, message_id: str, text: str) -> list[QueuedMessage]:
        queue = self.queued_messages()
        queue_prediction.require(queue, message_id)
        self._send_soon("edit_queued", messageId=message_id, message=text)
        return queue_prediction.edited(queue, message_id, text)

    def remove_queued(self, message_id: str) -> list[QueuedMessage]:
        queue = self.queued_messages()
        queue_prediction.require(queue, message_id)
        self._send_soon("remove_queued", messageId=message_id)
        return queue_prediction.removed(queue, message_id)

    def move_queued(self, message_id: str, index: int, kind: QueueKind | None = None) -> list[QueuedMessage]:
        queue = self.queued_messages()
        queue_prediction.require(queue, message_id)
        fields: dict[str, Any] = {"messageId": message_id, "index": index}
        if kind is not None:
            fields["kind"] = "followUp" if kind == "follow_up" else "steer"
        self._send_soon("move_queued", **fields)
        return queue_prediction.moved(queue, message_id, index, kind)

    # ------------------------------------------------------------------ views (read from the replica)

    def usage_totals(self) -> UsageTotals:
        return self._ledger.totals()

    def context_usage(self) -> ContextUsage | None:
        routed = self.routed_model  # a virtual selection: the window of the model that answered last
        return self._ledger.context(self.messages, routed.model if routed is not None else self.model)

    def get_session_stats(self) -> SessionStats:
        from ..kernel.views import session_stats

        return session_stats(self, self._ledger)

    def get_last_assistant_text(self) -> str | None:
        from ..serve.live import last_answer

        return last_answer(self.messages)

    def branch_messages(self, entry_id: str, last: int | None = None) -> list[Any]:
        from ..session.entries import parse_messages

        manager = self._view.manager
        if manager.get_entry(entry_id) is None:
            raise KeyError(f"Entry {entry_id} not found")
        dicts = manager.context_at(entry_id).message_dicts
        return parse_messages(dicts[-last:] if last else list(dicts))
